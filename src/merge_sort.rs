//! Merge sort built on merge path: `merge_sort.wgsl` sorts each workgroup's tile, then every pass
//! merges all pairs of sorted runs at once with the partition pass (`partition.wgsl`, segments of
//! `run_len`) and merge path's merge pass, doubling the run length until one run remains. All
//! passes are recorded into one submission. The API is sort.rs's ([`SortAlgorithm::Merge`]).
//!
//! [`SortAlgorithm::Merge`]: crate::SortAlgorithm::Merge

use crate::device::{bind_elements, entry, whole};
use crate::key::{values_module, KeyType, Order};
use crate::merge::{MergeBuffers, MergeOptions, MergePlan, PreparedMerge, ValueBuffers};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scratch::Scratch;
use crate::sort::SortOptions;
use crate::tuning::{self, Shape};
use crate::{Algorithm, Error, Gpu};

/// `sort_block` in merge_sort.wgsl: sorts each workgroup's tile. It reads A's keys only, with
/// merge path's tile loads (B's keys and values are bound to A's too).
pub(crate) static SORT_BLOCK: Kernel = Kernel {
    file: "merge_sort",
    entry: "sort_block",
    bindings: &[(0, UNIFORM), (1, READ), (3, WRITE)],
    value_bindings: &[(4, READ), (5, READ), (6, WRITE)],
};

/// Bytes of workgroup memory the block sort uses: one tile of keys and, with values, each key's
/// origin slot: merge path's tile, so every merge-path shape that fits the device fits it too.
fn block_memory(shape: Shape, key: KeyType, value_size: u32) -> u64 {
    let slot = if value_size > 0 { 4 } else { 0 };
    u64::from(shape.0) * u64::from(shape.1) * (u64::from(key.size()) + slot)
}

/// The block sort's specialization; `in_place` sorts the output buffers' keys and values where
/// they are.
fn block_specialization(
    shape: Shape,
    key: KeyType,
    order: Order,
    value_size: u32,
    in_place: bool,
) -> Specialization {
    let stage = if value_size > 0 {
        "lib/sort_block/pairs"
    } else {
        "lib/sort_block/keys"
    };
    Specialization {
        params: vec![
            ("key", key.module()),
            ("values", values_module(value_size)),
            ("stage", stage),
        ],
        constants: vec![
            ("WORKGROUP_SIZE", shape.0),
            ("ITEMS_PER_THREAD", shape.1),
            ("DESCENDING", u32::from(order == Order::Descending)),
            ("IN_PLACE", u32::from(in_place)),
        ],
        with_values: value_size > 0,
    }
}

impl Gpu {
    /// Checks a merge sort's shape against the device and plans its passes, for `len` keys that
    /// fit one binding (sort.rs's `plan_any_sort` checks the length and the options first).
    pub(crate) fn plan_merge_sort(
        &self,
        key: KeyType,
        len: usize,
        value_size: u32,
        options: &SortOptions,
    ) -> Result<MergeSortPlan, Error> {
        // The block sort and every merge pass take one shape, so each tile of a pass lies in
        // one pair of runs.
        let chosen = tuning::merge_sort_shape(
            key.size(),
            value_size,
            len,
            self.merge_path_fits(key, value_size),
        );
        let shape = (
            options.workgroup_size.unwrap_or(chosen.0),
            options.items_per_thread.unwrap_or(chosen.1),
        );
        let merge_options = MergeOptions {
            algorithm: Algorithm::MergePath,
            order: options.order,
            workgroup_size: Some(shape.0),
            items_per_thread: Some(shape.1),
            ..Default::default()
        };
        // Checks the shape, merge path's workgroup memory and the storage buffers.
        let merge = self.plan_merge(key, len, 0, value_size, &merge_options)?;
        self.check_workgroup_memory(
            block_memory(shape, key, value_size),
            &format!(
                "sorting {} {} keys per workgroup",
                shape.0 * shape.1,
                key.name()
            ),
        )?;
        let tile = shape.0 as usize * shape.1 as usize;
        let runs = len.div_ceil(tile).max(1);
        Ok(MergeSortPlan {
            len,
            // Merge passes: each halves the number of runs.
            passes: runs.next_power_of_two().trailing_zeros(),
            block_dispatch: self.dispatch_shape(runs as u32)?,
            shape,
            order: options.order,
            merge,
        })
    }

    /// Every pass's pipelines and bind groups, sorting `keys[0]` (and `values[0]`) with the
    /// second buffers as temporaries. With `end_in_place` the result ends in `keys[0]`: where
    /// an even number of merge passes follows, the block sort sorts `keys[0]` in place, so no
    /// pass copies the result back.
    pub(crate) fn prepare_merge_sort(
        &self,
        scratch: &Scratch,
        keys: [&wgpu::Buffer; 2],
        values: Option<[&wgpu::Buffer; 2]>,
        plan: &MergeSortPlan,
        end_in_place: bool,
    ) -> Result<PreparedSort, Error> {
        // The buffer the block sort writes; merge pass p reads buffer (sorted + p) % 2.
        let sorted = if end_in_place {
            (plan.passes % 2) as usize
        } else {
            1
        };
        let len = plan.len;
        let key_size = plan.merge.key.size();
        let value_size = plan.merge.value_size;
        let block_params = self.uniform(
            "wgmerge sort params",
            bytemuck::bytes_of(&crate::merge::MergeParams {
                a_len: len as u32,
                b_len: 0,
                tiles_per_group: 1,
                run_len: 0,
            }),
        );
        // In place, the inputs it reads are bound to the other buffers and unused.
        let unsorted = 1 - sorted;
        let mut entries = vec![
            whole(0, &block_params),
            entry(
                1,
                bind_elements(keys[unsorted], 0, len, key_size, keys[unsorted]),
            ),
            entry(
                3,
                bind_elements(keys[sorted], 0, len, key_size, keys[sorted]),
            ),
        ];
        if let Some(values) = values {
            let (from, to) = (values[unsorted], values[sorted]);
            entries.extend([
                entry(4, bind_elements(from, 0, len, value_size, from)),
                entry(5, bind_elements(from, 0, len, value_size, from)),
                entry(6, bind_elements(to, 0, len, value_size, to)),
            ]);
        }
        let specialization = block_specialization(
            plan.shape,
            plan.merge.key,
            plan.order,
            value_size,
            sorted == 0,
        );
        let block = (
            self.pipeline(&SORT_BLOCK, &specialization)?,
            self.bind_group(&SORT_BLOCK, values.is_some(), &entries),
            plan.block_dispatch,
        );
        let passes = (0..plan.passes).map(|pass| {
            let run_len = (plan.tile() << pass) as u32;
            let mut merge: MergePlan = plan.merge.clone();
            merge.params.run_len = run_len;
            merge.partition = merge.partition.map(|p| p.with_run_len(run_len));
            merge
        });
        let (merges, result) = self.prepare_passes(scratch, keys, values, sorted, passes)?;
        Ok(PreparedSort {
            block: Some(block),
            merges,
            result,
        })
    }

    /// Merge passes back and forth between `keys` (and `values`): the pass of `plans[p]` reads
    /// buffer (first + p) % 2, bound as both A and B, and writes the other. Merge sort's and the
    /// many-way merge's passes. Returns them and the buffer the last one writes.
    pub(crate) fn prepare_passes(
        &self,
        scratch: &Scratch,
        keys: [&wgpu::Buffer; 2],
        values: Option<[&wgpu::Buffer; 2]>,
        first: usize,
        plans: impl IntoIterator<Item = MergePlan>,
    ) -> Result<(Vec<PreparedMerge>, usize), Error> {
        let mut merges = Vec::new();
        let mut source = first;
        for plan in plans {
            let target = 1 - source;
            let len = plan.params.a_len as usize;
            let buffers = MergeBuffers {
                a: keys[source],
                a_len: len,
                b: keys[source],
                b_len: 0,
                out: keys[target],
                values: values.map(|v| ValueBuffers {
                    a: v[source],
                    b: v[source],
                    out: v[target],
                    value_size: plan.value_size,
                }),
            };
            let params = self.uniform("wgmerge pass params", bytemuck::bytes_of(&plan.params));
            merges.push(self.prepare_merge(&params, scratch, &buffers, &plan)?);
            source = target;
        }
        Ok((merges, source))
    }
}

/// A sort checked against the device: its length, tile and passes.
pub(crate) struct MergeSortPlan {
    len: usize,
    /// Merge passes needed to leave one run.
    passes: u32,
    block_dispatch: (u32, u32),
    /// The block sort's shape (merge path's) and the order.
    shape: Shape,
    order: Order,
    /// Merge path over the whole input, in the sort's shape; each pass sets its run length.
    merge: MergePlan,
}

impl MergeSortPlan {
    /// Keys each workgroup of the block sort sorts; runs after it are this long.
    fn tile(&self) -> usize {
        self.shape.0 as usize * self.shape.1 as usize
    }
}

/// A merge sort's pipelines and bind groups (the block sort, then each merge pass), or a merge
/// tree's (merge passes only).
pub(crate) struct PreparedSort {
    pub(crate) block: Option<(wgpu::ComputePipeline, wgpu::BindGroup, (u32, u32))>,
    pub(crate) merges: Vec<PreparedMerge>,
    /// The buffer the last pass writes (0: the keys, 1: the temporary one).
    pub(crate) result: usize,
}

impl PreparedSort {
    /// Records every pass; returns which buffer holds the result (0: the keys, 1: the temporary
    /// one).
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) -> usize {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("sort"),
            timestamp_writes: None,
        });
        if let Some((pipeline, bind_group, (x, y))) = &self.block {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(*x, *y, 1);
        }
        for merge in &self.merges {
            merge.record(&mut pass);
        }
        self.result
    }
}

/// Configurations the crate builds, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for key in KeyType::ALL {
        // Merge sort's own shapes (tuning.rs: merge_sort_shape), then odd ones.
        for shape in [
            (256, 11),
            (512, 11),
            (256, 6),
            (256, 3),
            (512, 3),
            (256, 7),
            (1, 1),
            (96, 3),
            (64, 2),
        ] {
            for (order, in_place) in [(Order::Ascending, false), (Order::Descending, true)] {
                for value_size in [0, 4, 8] {
                    out.push(crate::kernel_tests::Configuration {
                        kernel: &SORT_BLOCK,
                        specialization: block_specialization(
                            shape, key, order, value_size, in_place,
                        ),
                        workgroup_memory: block_memory(shape, key, value_size),
                    });
                }
            }
        }
    }
    out
}
