//! Sorted search (`search_sorted.wgsl`): where each needle would go in a sorted haystack. Many
//! needles go through the merge path: the shared partition (partition.rs) cuts the merge of
//! needles and haystack into tiles, and each tile's merge places its needles; where some tile's
//! needles are out of order every answer is checked and any that fails binary-searched, so
//! needles in any order are answered right. Few
//! needles take one binary search each (`lib/search.wgsl`). `tuning::search_by_tiles` chooses.

use bytemuck::{Pod, Zeroable};

use crate::device::{bind_elements, dispatch, entry};
use crate::host::{self, Call, Piece, PieceWork, Recorded, ResultVec};
use crate::key::{Key, KeyType, Order};
use crate::partition::Partition;
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scratch::Scratch;
use crate::tuning::{self, Shape};
use crate::{Error, Gpu};

/// `search_sorted` in search_sorted.wgsl.
pub(crate) static SEARCH_SORTED: Kernel = Kernel {
    file: "search_sorted",
    entry: "search_sorted",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE)],
    value_bindings: &[],
};

/// `search_tiles` in search_sorted.wgsl.
pub(crate) static SEARCH_TILES: Kernel = Kernel {
    file: "search_sorted",
    entry: "search_tiles",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (2, READ),
        (3, WRITE),
        (7, READ),
        (8, WRITE),
    ],
    value_bindings: &[],
};

/// `search_tiles_in_turn` in search_sorted.wgsl: several tiles a workgroup.
pub(crate) static SEARCH_TILES_IN_TURN: Kernel = Kernel {
    file: "search_sorted",
    entry: "search_tiles_in_turn",
    bindings: SEARCH_TILES.bindings,
    value_bindings: &[],
};

/// `search_fix` in search_sorted.wgsl: after `search_tiles`, the needles it left.
pub(crate) static SEARCH_FIX: Kernel = Kernel {
    file: "search_sorted",
    entry: "search_fix",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE), (8, WRITE)],
    value_bindings: &[],
};

/// `search_sorted`'s workgroup size (`WORKGROUP_SIZE`'s default in search_sorted.wgsl).
const WORKGROUP_SIZE: usize = 256;

/// The scratch temporaries of the tiles' cuts and of the flag of needles left to `search_fix`
/// (set.rs numbers its own from 40, radix sort to 50).
const CUTS: usize = 51;
const UNSORTED: usize = 52;

/// Bytes of workgroup memory of `search_tiles`: a tile of keys, and a word per invocation
/// (`walk_ends`).
fn tiles_memory((workgroup, items): Shape, key: KeyType) -> u64 {
    u64::from(workgroup) * (u64::from(items) * u64::from(key.size()) + 4)
}

/// Which end of a run of keys equal to the needle [`Gpu::search_sorted`] returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The first index whose key is not before the needle (`partition_point(|h| h < needle)`
    /// ascending): before any equal keys.
    #[default]
    Lower,
    /// The first index whose key is after the needle (`partition_point(|h| h <= needle)`
    /// ascending): after any equal keys.
    Upper,
}

/// How to search. A plain struct: set the fields you need and take the rest from `Default`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// Which end of a run of equal keys.
    pub bound: Bound,
    /// The order the haystack is sorted in.
    pub order: Order,
}

/// The caller's GPU buffers for [`Gpu::encode_search_sorted`]: keys of the [`Key`] type the
/// call names, from offset 0; `out` receives one `u32` index per needle. Every buffer needs
/// `STORAGE`, and `out` must be a buffer of its own.
#[derive(Clone, Copy, Debug)]
pub struct SearchBuffers<'a> {
    /// The sorted keys searched.
    pub haystack: &'a wgpu::Buffer,
    /// Keys in `haystack`.
    pub haystack_len: usize,
    /// The keys looked up.
    pub needles: &'a wgpu::Buffer,
    /// Keys in `needles`.
    pub needles_len: usize,
    /// Receives each needle's index.
    pub out: &'a wgpu::Buffer,
}

/// `SearchParams` in search_sorted.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SearchParams {
    haystack_len: u32,
    needles_len: u32,
    tiles_per_group: u32,
    _pad: u32,
}

/// The specialization of `search_sorted`, or with `tiles` of `search_tiles` in that shape.
fn specialization(key: KeyType, options: &SearchOptions, tiles: Option<Shape>) -> Specialization {
    let upper = options.bound == Bound::Upper;
    let mut constants = vec![
        ("DESCENDING", u32::from(options.order == Order::Descending)),
        ("UPPER", u32::from(upper)),
    ];
    if let Some((workgroup, items)) = tiles {
        // Needles take ties first (as A) for the lower bound, the haystack for the upper.
        constants.extend([
            ("NEEDLES_A", u32::from(!upper)),
            // The tiles' answers hold only for sorted needles: the merge checks them as it
            // goes (the haystack's order is the caller's promise).
            ("CHECK_ORDER", 1),
            ("CHECK_A", u32::from(!upper)),
            ("WORKGROUP_SIZE", workgroup),
            ("ITEMS_PER_THREAD", items),
        ]);
    }
    Specialization {
        params: vec![("key", key.module())],
        constants,
        with_values: false,
    }
}

/// A planned search: by tiles of the merge path, or one binary search per needle.
struct SearchPlan {
    specialization: Specialization,
    tiles: Option<SearchTiles>,
}

/// Merge-path tiles of a search: their shape, their partition, and whether the needles are the
/// merge's A (they are for the lower bound, taking ties first).
struct SearchTiles {
    shape: Shape,
    partition: Partition,
    needles_a: bool,
}

impl Gpu {
    /// For each needle, the index at which it would go in the sorted `haystack` (ascending), as
    /// `haystack.partition_point` gives it: before keys equal to it with [`Bound::Lower`], after
    /// them with [`Bound::Upper`]. Needles need not be sorted. If the haystack is not sorted the
    /// indices are unspecified, but each lies within `0..=haystack.len()`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn search_sorted<K: Key>(
        &self,
        haystack: &[K],
        needles: &[K],
        bound: Bound,
    ) -> Result<Vec<u32>, Error> {
        let options = SearchOptions {
            bound,
            ..Default::default()
        };
        self.search_sorted_with(haystack, needles, &options)
    }

    /// [`Gpu::search_sorted`] with `options` (the bound and the haystack's order).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn search_sorted_with<K: Key>(
        &self,
        haystack: &[K],
        needles: &[K],
        options: &SearchOptions,
    ) -> Result<Vec<u32>, Error> {
        self.block_on(self.search_sorted_async(haystack, needles, options))
    }

    /// [`Gpu::search_sorted_with`] without blocking.
    ///
    /// Beyond one storage binding the needles go in pieces, and a longer haystack in chunks:
    /// a needle's index is the sum of its indices in the chunks, since each chunk of a sorted
    /// haystack holds its own share of the keys before the needle.
    pub async fn search_sorted_async<K: Key>(
        &self,
        haystack: &[K],
        needles: &[K],
        options: &SearchOptions,
    ) -> Result<Vec<u32>, Error> {
        let most = self.max_merge_len(K::TYPE, 0);
        if haystack.len() <= most && needles.len() <= most {
            return self.search_piece(haystack, needles, options).await;
        }
        let len = haystack.len();
        if u32::try_from(len).is_err() {
            return Err(Error::TooLarge {
                what: "search haystack (answers are u32)",
                len,
                max: u32::MAX as usize,
            });
        }
        let mut found = Vec::new();
        found.try_reserve_exact(needles.len()).map_err(|_| {
            Error::OutOfMemory(format!("no host memory for {} answers", needles.len()))
        })?;
        found.resize(needles.len(), 0u32);
        for chunk in haystack.chunks(most) {
            for (answers, piece) in found.chunks_mut(most).zip(needles.chunks(most)) {
                let within = self.search_piece(chunk, piece, options).await?;
                for (answer, index) in answers.iter_mut().zip(within) {
                    *answer += index;
                }
            }
        }
        Ok(found)
    }

    /// A search of a haystack and needles that each fit one binding, in one piece.
    async fn search_piece<K: Key>(
        &self,
        haystack: &[K],
        needles: &[K],
        options: &SearchOptions,
    ) -> Result<Vec<u32>, Error> {
        self.check_lost()?;
        self.plan_search(K::TYPE, haystack.len(), needles.len(), options)?;
        let mut found = ResultVec::<u32>::new(needles.len())?;
        if needles.is_empty() {
            return Ok(found.into_vec(0));
        }
        let n = needles.len();
        let key_size = K::TYPE.size() as usize;
        let mut call = Call::one_piece(n);
        call.whole_input(bytemuck::cast_slice(haystack), key_size);
        call.whole_input(bytemuck::cast_slice(needles), key_size);
        call.output(4);
        let mut work = SearchWork {
            key: K::TYPE,
            options: options.clone(),
            scratch: self.create_scratch(),
        };
        let written =
            host::run(self, &call, &mut work, &mut [found.bytes()], &mut |_, _| {}).await?;
        Ok(found.into_vec(written))
    }

    /// Records a sorted search of GPU-resident `buffers` into `encoder`; nothing is read back.
    /// Haystack and needles must each fit one storage binding.
    pub fn encode_search_sorted<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &SearchBuffers<'_>,
        options: &SearchOptions,
    ) -> Result<(), Error> {
        self.check_lost()?;
        let (h, n) = (buffers.haystack_len, buffers.needles_len);
        let plan = self.plan_search(K::TYPE, h, n, options)?;
        let key_size = K::TYPE.size();
        self.check_arrays(&[
            ("haystack", buffers.haystack, h, key_size, false),
            ("needles", buffers.needles, n, key_size, false),
            ("out", buffers.out, n, 4, true),
        ])?;
        self.checked(|| {
            self.record_search(
                encoder,
                scratch,
                [buffers.haystack, buffers.needles, buffers.out],
                (h, n, key_size),
                &plan,
            )
        })?
    }

    /// Checks a search's lengths against the device and chooses its kernel: tiles where
    /// `tuning::search_by_tiles` says they pay and the device holds a tile.
    fn plan_search(
        &self,
        key: KeyType,
        haystack: usize,
        needles: usize,
        options: &SearchOptions,
    ) -> Result<SearchPlan, Error> {
        let max = self.max_merge_len(key, 0);
        for (what, len) in [("search haystack", haystack), ("search needles", needles)] {
            if len > max {
                return Err(Error::TooLarge { what, len, max });
            }
        }
        // The device's own checks decide what fits, once.
        let shape = tuning::search_shape(|shape| {
            self.check_shape(shape).is_ok()
                && self
                    .check_workgroup_memory(tiles_memory(shape, key), "search")
                    .is_ok()
        });
        let tiles = match shape {
            Some(shape) if tuning::search_by_tiles(haystack, needles) => {
                // Needles are A for the lower bound (ties first), B for the upper.
                let lens = match options.bound {
                    Bound::Lower => (needles, haystack),
                    Bound::Upper => (haystack, needles),
                };
                let tile = shape.0 * shape.1;
                Some(SearchTiles {
                    shape,
                    // The partition also zeroes the flag of needles left to search_fix.
                    partition: Partition::plan(self, key, options.order, lens, tile, 0, true)?,
                    needles_a: options.bound == Bound::Lower,
                })
            }
            _ => None,
        };
        Ok(SearchPlan {
            specialization: specialization(key, options, tiles.as_ref().map(|t| t.shape)),
            tiles,
        })
    }

    fn record_search(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        [haystack, needles, out]: [&wgpu::Buffer; 3],
        (h, n, key_size): (usize, usize, u32),
        plan: &SearchPlan,
    ) -> Result<(), Error> {
        if n == 0 {
            return Ok(());
        }
        let placeholder = scratch.placeholder();
        let tiles_per_group = tuning::search_tiles_per_workgroup(h + n);
        #[cfg(test)]
        let tiles_per_group = tests::TILES_PER_GROUP.get().unwrap_or(tiles_per_group);
        let params = self.uniform(
            "wgmerge search params",
            bytemuck::bytes_of(&SearchParams {
                haystack_len: h as u32,
                needles_len: n as u32,
                tiles_per_group,
                _pad: 0,
            }),
        );
        let haystack = bind_elements(haystack, 0, h, key_size, placeholder);
        let needles = bind_elements(needles, 0, n, key_size, placeholder);
        let mut entries = vec![
            entry(0, params.as_entire_binding()),
            entry(3, bind_elements(out, 0, n, 4, placeholder)),
        ];
        let Some(tiles_plan) = &plan.tiles else {
            entries.extend([entry(1, haystack), entry(2, needles)]);
            let bind_group = self.bind_group(&SEARCH_SORTED, false, &entries);
            let pipeline = self.pipeline(&SEARCH_SORTED, &plan.specialization)?;
            let groups = self.dispatch_shape(n.div_ceil(WORKGROUP_SIZE) as u32)?;
            dispatch(encoder, "search_sorted", &pipeline, &bind_group, groups);
            return Ok(());
        };
        let (workgroup, items) = tiles_plan.shape;
        let tiles = (h + n).div_ceil((workgroup * items) as usize);
        let storage = wgpu::BufferUsages::STORAGE;
        let cuts = scratch.temporary(&self.device, CUTS, (tiles as u64 + 2) * 4, storage);
        // Zeroed by the partition (no clear: run 328).
        let unsorted = scratch.temporary(&self.device, UNSORTED, 4, storage);
        let (a, b) = if tiles_plan.needles_a {
            (needles, haystack)
        } else {
            (haystack, needles)
        };
        let partition = tiles_plan.partition.prepare(
            self,
            (a.clone(), b.clone()),
            &cuts,
            Some(&unsorted),
            None,
        )?;
        entries.extend([
            entry(1, a),
            entry(2, b),
            entry(8, unsorted.as_entire_binding()),
        ]);
        let fix_group = self.bind_group(&SEARCH_FIX, false, &entries);
        entries.push(entry(7, cuts.as_entire_binding()));
        let tiles_kernel = match tiles_per_group {
            1 => &SEARCH_TILES,
            _ => &SEARCH_TILES_IN_TURN,
        };
        let tiles_group = self.bind_group(tiles_kernel, false, &entries);
        let tiles_pipeline = self.pipeline(tiles_kernel, &plan.specialization)?;
        let fix_pipeline = self.pipeline(&SEARCH_FIX, &plan.specialization)?;
        let tile_groups = self.dispatch_shape(tiles.div_ceil(tiles_per_group as usize) as u32)?;
        let fix_groups = n
            .div_ceil(workgroup as usize)
            .min(tuning::SEARCH_FIX_WORKGROUPS);
        let fix_groups = self.dispatch_shape(fix_groups as u32)?;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("search_tiles"),
            timestamp_writes: None,
        });
        partition.record(&mut pass);
        let passes: &[_] = &[
            (&tiles_pipeline, &tiles_group, tile_groups),
            (&fix_pipeline, &fix_group, fix_groups),
        ];
        #[cfg(test)]
        let passes = &passes[..if tests::TILES_ONLY.get() { 1 } else { 2 }];
        for &(pipeline, group, groups) in passes {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, 1);
        }
        Ok(())
    }
}

/// A slice-form search, in one piece: the slot's inputs are the haystack and the needles, its
/// output the indices.
struct SearchWork {
    key: KeyType,
    options: SearchOptions,
    scratch: Scratch,
}

impl PieceWork for SearchWork {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error> {
        let (h, n) = (piece.inputs[0].len(), piece.inputs[1].len());
        let plan = gpu.plan_search(self.key, h, n, &self.options)?;
        gpu.record_search(
            encoder,
            &self.scratch,
            [&inputs[0], &inputs[1], &outputs[0]],
            (h, n, self.key.size()),
            &plan,
        )?;
        Ok(Recorded::outputs(&[&outputs[0]]))
    }
}

/// Every configuration of the search kernel, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for key in KeyType::ALL {
        for order in [Order::Ascending, Order::Descending] {
            for bound in [Bound::Lower, Bound::Upper] {
                let options = SearchOptions { bound, order };
                out.push(crate::kernel_tests::Configuration {
                    kernel: &SEARCH_SORTED,
                    specialization: specialization(key, &options, None),
                    workgroup_memory: 0,
                });
                for shape in [(512, 5), (256, 5), (256, 3)] {
                    for kernel in [&SEARCH_TILES, &SEARCH_TILES_IN_TURN] {
                        out.push(crate::kernel_tests::Configuration {
                            kernel,
                            specialization: specialization(key, &options, Some(shape)),
                            workgroup_memory: tiles_memory(shape, key),
                        });
                    }
                    out.push(crate::kernel_tests::Configuration {
                        kernel: &SEARCH_FIX,
                        specialization: specialization(key, &options, Some(shape)),
                        // Its copy of the flag (`fix_needed`).
                        workgroup_memory: 4,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    thread_local! {
        /// Searches recorded on this thread answer this many tiles a workgroup.
        pub(super) static TILES_PER_GROUP: std::cell::Cell<Option<u32>> =
            const { std::cell::Cell::new(None) };
        /// Searches recorded on this thread leave out search_fix: sorted needles' answers come
        /// from the tiles alone.
        pub(super) static TILES_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Workgroups that answer one tile, or several in turn (the last group's share short), answer
    /// as the CPU does: both bounds, sorted needles with runs of equal keys and needles all equal
    /// from the tiles alone (no search_fix, which would repair any tile's answers), shuffled
    /// needles with it.
    #[test]
    fn tiles_in_turn_answer_every_needle() {
        let gpu = Gpu::new().expect("an adapter");
        let mut rng = rand::rngs::StdRng::seed_from_u64(311);
        let mut haystack: Vec<u32> = (0..20_011).map(|_| rng.random_range(0..9000)).collect();
        haystack.sort_unstable();
        let mut sorted: Vec<u32> = (0..15_013).map(|_| rng.random_range(0..9500)).collect();
        sorted.sort_unstable();
        let mut shuffled = sorted.clone();
        shuffled.reverse();
        shuffled.swap(17, 9_000);
        let equal = vec![haystack[7_000]; 12_345];
        for tiles in [1, 2, 3, 5] {
            TILES_PER_GROUP.set(Some(tiles));
            for (needles, tiles_only) in [(&sorted, true), (&equal, true), (&shuffled, false)] {
                TILES_ONLY.set(tiles_only);
                for bound in [Bound::Lower, Bound::Upper] {
                    let found = gpu
                        .search_sorted(&haystack, needles, bound)
                        .expect("search");
                    let expected =
                        crate::cpu::search_sorted(&haystack, needles, bound, Order::Ascending);
                    assert!(
                        found == expected,
                        "{tiles} tiles, {bound:?}, {} needles",
                        needles.len()
                    );
                }
            }
        }
        TILES_PER_GROUP.set(None);
        TILES_ONLY.set(false);
    }
}
