//! The merge-path partition (`partition.wgsl`): co-ranks the boundaries of a merge's output every
//! `spacing` outputs into a splits buffer. Merge path's merge passes, merge sort's merge passes,
//! set operations and resident merges in pieces cut their work with it; ModernGPU's
//! `merge_path_partitions` plays the same part there. The host's own co-rank, for inputs it
//! holds, is [`cpu::co_rank_ordered`](crate::cpu::co_rank_ordered).

use bytemuck::{Pod, Zeroable};

use crate::device::{bind_elements, entry, whole};
use crate::key::{KeyType, Order};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::tuning::{partition_lanes, PARTITION_WORKGROUP_SIZE};
use crate::{Error, Gpu};

/// `partition_splits` in partition.wgsl.
pub(crate) static PARTITION: Kernel = Kernel {
    file: "partition",
    entry: "partition_splits",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE)],
    value_bindings: &[],
};

/// `partition_splits` over segments the host lists (lib/tiling/table.wgsl, binding 9).
pub(crate) static PARTITION_TABLE: Kernel = Kernel {
    file: "partition",
    entry: "partition_splits",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE), (9, READ)],
    value_bindings: &[],
};

/// `partition_splits_reset_counter` in partition.wgsl: the same, and zeroes the word the next pass
/// counts in (merge_path_chunks' chunks taken, sorted search's flag).
pub(crate) static PARTITION_RESET_COUNTER: Kernel = Kernel {
    file: "partition",
    entry: "partition_splits_reset_counter",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE), (4, WRITE)],
    value_bindings: &[],
};

/// `PartitionParams` in partition.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct PartitionParams {
    pub(crate) a_len: u32,
    pub(crate) b_len: u32,
    pub(crate) spacing: u32,
    pub(crate) run_len: u32,
    /// Words of the splits buffer from `zero_at` that the partition zeroes ([`Partition::zeroing`]).
    pub(crate) zero_at: u32,
    pub(crate) zero_len: u32,
    pub(crate) _pad: [u32; 2],
}

/// A partition checked against the device, ready to record.
#[derive(Clone, Debug)]
pub(crate) struct Partition {
    params: PartitionParams,
    key: KeyType,
    order: Order,
    lanes: u32,
    dispatch: (u32, u32),
    reset_counter: bool,
    /// Over segments listed in a table (lib/tiling/table.wgsl): the tiles it cuts.
    table_tiles: Option<u32>,
    /// Whether each boundary moves to the balanced path and is written as two words (A's and
    /// B's elements before it): set operations.
    balanced: bool,
}

impl Partition {
    /// The partition of the merge of `a_len` and `b_len` keys (or, with `run_len`, of every pair
    /// of runs of `a_len` keys of A, lib/segments.wgsl) every `spacing` outputs; with
    /// `reset_counter` it also zeroes a word the next pass counts in (bound when prepared).
    pub(crate) fn plan(
        gpu: &Gpu,
        key: KeyType,
        order: Order,
        (a_len, b_len): (usize, usize),
        spacing: u32,
        run_len: u32,
        reset_counter: bool,
    ) -> Result<Self, Error> {
        let total = (a_len + b_len) as u64;
        // Boundaries must be counted in u32 (Partition::boundaries).
        u32::try_from(total.div_ceil(u64::from(spacing.max(1))) + 1).map_err(|_| {
            Error::TooLarge {
                what: "partition boundaries",
                len: total as usize,
                max: u32::MAX as usize,
            }
        })?;
        Partition {
            params: PartitionParams {
                a_len: a_len as u32,
                b_len: b_len as u32,
                spacing: spacing.max(1),
                run_len,
                zero_at: 0,
                zero_len: 0,
                _pad: [0; 2],
            },
            key,
            order,
            // Set for its boundaries by dispatched().
            lanes: 1,
            dispatch: (0, 0),
            reset_counter,
            table_tiles: None,
            balanced: false,
        }
        .dispatched(gpu)
    }

    /// The same partition with each boundary on the balanced path (lib/balanced_path.wgsl),
    /// written as two words: A's elements before it, then B's.
    pub(crate) fn on_balanced_path(mut self) -> Self {
        self.balanced = true;
        self
    }

    /// The same partition, which also zeroes `len` words of its splits buffer from word `at`
    /// (beyond its boundaries): the state the next pass starts from, with no clear of its own
    /// before the pass (run 328: a `clear_buffer` and its barrier cost sorted search 5.8 us).
    pub(crate) fn zeroing(mut self, at: u32, len: u32) -> Self {
        self.params.zero_at = at;
        self.params.zero_len = len;
        self
    }

    /// Words the partition writes: one per boundary, or two on the balanced path.
    pub(crate) fn words(&self) -> u32 {
        let per_boundary = if self.balanced { 2 } else { 1 };
        self.boundaries() * per_boundary
    }

    /// The same partition at the starts of `tiles` tiles of segments listed in a table (bound
    /// when prepared), where A is bound as B: the many-way merge's passes.
    pub(crate) fn with_segment_table(mut self, gpu: &Gpu, tiles: u32) -> Result<Self, Error> {
        self.params.b_len = 0;
        self.params.run_len = 0;
        self.reset_counter = false;
        self.table_tiles = Some(tiles);
        self.dispatched(gpu)
    }

    /// The partition with its lanes per boundary and its dispatch set for its boundaries.
    fn dispatched(mut self, gpu: &Gpu) -> Result<Self, Error> {
        self.lanes = partition_lanes(self.boundaries());
        let workgroups = self
            .boundaries()
            .div_ceil(PARTITION_WORKGROUP_SIZE / self.lanes);
        self.dispatch = gpu.dispatch_shape(workgroups)?;
        Ok(self)
    }

    /// The same partition over segments of `run_len` (merge sort's passes, lib/segments.wgsl).
    pub(crate) fn with_run_len(mut self, run_len: u32) -> Self {
        self.params.run_len = run_len;
        self
    }

    /// Words of the splits buffer it binds: its boundaries', and those it zeroes.
    fn bound_words(&self) -> u32 {
        let zeroed = self.params.zero_at + self.params.zero_len;
        self.words()
            .max(if self.params.zero_len > 0 { zeroed } else { 0 })
    }

    /// Boundaries the partition writes: one per tile and the end.
    pub(crate) fn boundaries(&self) -> u32 {
        if let Some(tiles) = self.table_tiles {
            return tiles + 1;
        }
        let total = u64::from(self.params.a_len) + u64::from(self.params.b_len);
        (total.div_ceil(u64::from(self.params.spacing)) + 1) as u32
    }

    fn kernel(&self) -> &'static Kernel {
        if self.table_tiles.is_some() {
            &PARTITION_TABLE
        } else if self.reset_counter {
            &PARTITION_RESET_COUNTER
        } else {
            &PARTITION
        }
    }

    /// The pipeline's specialization.
    pub(crate) fn specialization(&self) -> Specialization {
        specialization(
            self.key,
            self.order,
            self.lanes,
            self.table_tiles.is_some(),
            self.balanced,
        )
    }

    /// The partition's pipeline and bind group: A and B as bound (their first a_len and b_len
    /// keys), the boundaries into `splits`, the counter zeroed when planned so, and the segment
    /// table where planned with one.
    pub(crate) fn prepare(
        &self,
        gpu: &Gpu,
        (a, b): (wgpu::BindingResource<'_>, wgpu::BindingResource<'_>),
        splits: &wgpu::Buffer,
        counter: Option<&wgpu::Buffer>,
        segment_table: Option<&wgpu::Buffer>,
    ) -> Result<PreparedPartition, Error> {
        let kernel = self.kernel();
        let params = gpu.uniform("wgmerge partition params", bytemuck::bytes_of(&self.params));
        let mut entries = vec![
            whole(0, &params),
            entry(1, a),
            entry(2, b),
            entry(
                3,
                bind_elements(splits, 0, self.bound_words() as usize, 4, splits),
            ),
        ];
        if self.reset_counter {
            let counter = counter.ok_or_else(|| {
                Error::Validation("wgmerge: the partition needs the counter it zeroes".into())
            })?;
            entries.push(whole(4, counter));
        }
        if self.table_tiles.is_some() {
            let table = segment_table.ok_or_else(|| {
                Error::Validation("wgmerge: the partition needs its segment table".into())
            })?;
            entries.push(whole(9, table));
        }
        Ok(PreparedPartition {
            pipeline: gpu.pipeline(kernel, &self.specialization())?,
            bind_group: gpu.bind_group(kernel, false, &entries),
            dispatch: self.dispatch,
        })
    }
}

/// A partition's pipeline and bind group, ready to record into a compute pass.
pub(crate) struct PreparedPartition {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    dispatch: (u32, u32),
}

impl PreparedPartition {
    /// Records the partition's dispatch into `pass`.
    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.dispatch.0, self.dispatch.1, 1);
    }
}

/// The partition's specialization for `key` in `order` with `lanes` per boundary, over segments
/// listed in a table or not (lib/tiling), on the balanced path or merge path's.
pub(crate) fn specialization(
    key: KeyType,
    order: Order,
    lanes: u32,
    table: bool,
    balanced: bool,
) -> Specialization {
    Specialization {
        params: vec![("key", key.module()), ("tiling", tiling_module(table))],
        constants: vec![
            ("WORKGROUP_SIZE", PARTITION_WORKGROUP_SIZE),
            ("LANES", lanes),
            ("DESCENDING", u32::from(order == Order::Descending)),
            // The search over all of A's indices (partition.wgsl, lib/co_rank.wgsl).
            ("CO_RANK_WIDE", 1),
            ("BALANCED", u32::from(balanced)),
        ],
        with_values: false,
    }
}

/// The `tiling` module of merge-path passes (lib/tiling): over segments listed in a table, or
/// over segments of `run_len`.
pub(crate) fn tiling_module(table: bool) -> &'static str {
    if table {
        "lib/tiling/table"
    } else {
        "lib/tiling/runs"
    }
}

/// Configurations the crate builds, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for key in KeyType::ALL {
        for order in [Order::Ascending, Order::Descending] {
            for lanes in [1, 2, 8, 32] {
                for (kernel, table, balanced) in [
                    (&PARTITION, false, false),
                    (&PARTITION, false, true),
                    (&PARTITION_RESET_COUNTER, false, false),
                    (&PARTITION_TABLE, true, false),
                ] {
                    out.push(crate::kernel_tests::Configuration {
                        kernel,
                        specialization: specialization(key, order, lanes, table, balanced),
                        // Three words per search slot (SEARCH_SLOTS = 32), alone or together.
                        workgroup_memory: 32 * 3 * 4,
                    });
                }
            }
        }
    }
    out
}
