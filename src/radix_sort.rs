//! LSD radix sort (`radix_sort.wgsl`): one pass per digit of up to 8 bits of the keys'
//! order-preserving bits, in one of two strategies ([`RadixStrategy`]). Reduce-then-scan: each
//! pass a histogram of every tile's digits, the crate's scan of the histograms, and a stable
//! scatter; no workgroup waits on another. Single sweep: one histogram of every pass's digits,
//! then each pass one scatter whose tiles look back for their digits' places, with a decoupled
//! fallback. The passes go back and forth between the keys' two buffers (and the values');
//! [`Gpu::record_radix_sort`] says which one holds the result. A pass whose digit is the same
//! for every key only copies (CUB's short circuit), as its counts say on the GPU.

use std::ops::Range;

use bytemuck::{Pod, Zeroable};

use crate::device::{bind_elements, dispatch, entry, whole};
use crate::key::{move_values_module, KeyType, Order};
use crate::ops::{ReduceOp, ScanKind};
use crate::pipeline::{Binding, Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scan::ScanOptions;
use crate::scratch::Scratch;
use crate::sort::SortOptions;
use crate::tuning;
use crate::{Error, Gpu};

/// `radix_histogram` in radix_sort.wgsl.
pub(crate) static RADIX_HISTOGRAM: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_histogram",
    bindings: &[(0, UNIFORM), (1, READ), (3, WRITE), (7, WRITE), (13, WRITE)],
    value_bindings: &[],
};

/// `radix_scatter` in radix_sort.wgsl.
pub(crate) static RADIX_SCATTER: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_scatter",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (2, WRITE),
        (6, READ),
        (7, WRITE),
        (14, UNIFORM),
    ],
    value_bindings: &[(4, READ), (5, WRITE)],
};

/// The kernels when the number of keys comes from a GPU buffer (lib/key_count/buffer).
pub(crate) static RADIX_HISTOGRAM_COUNTED: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_histogram",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (3, WRITE),
        (7, WRITE),
        (8, READ),
        (13, WRITE),
    ],
    value_bindings: &[],
};
pub(crate) static RADIX_SCATTER_COUNTED: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_scatter",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (2, WRITE),
        (6, READ),
        (7, WRITE),
        (8, READ),
        (14, UNIFORM),
    ],
    value_bindings: &[(4, READ), (5, WRITE)],
};

/// The scatter of an argsort's first pass, whose values are the keys' indices
/// (lib/move_values/index): it writes them and reads none.
pub(crate) static RADIX_SCATTER_INDEXED: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_scatter",
    bindings: RADIX_SCATTER.bindings,
    value_bindings: &[(5, WRITE)],
};
pub(crate) static RADIX_SCATTER_INDEXED_COUNTED: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_scatter",
    bindings: RADIX_SCATTER_COUNTED.bindings,
    value_bindings: &[(5, WRITE)],
};

/// The single sweep's kernels: `radix_sweep_histogram` counts every pass's digits, and
/// `radix_scatter_sweep` is one pass (with the counted and argsort variants as above).
const SWEEP_BINDINGS: &[Binding] = &[
    (0, UNIFORM),
    (1, READ),
    (2, WRITE),
    (9, WRITE),
    (10, WRITE),
    (11, WRITE),
];
const SWEEP_COUNTED_BINDINGS: &[Binding] = &[
    (0, UNIFORM),
    (1, READ),
    (2, WRITE),
    (8, READ),
    (9, WRITE),
    (10, WRITE),
    (11, WRITE),
];
pub(crate) static RADIX_SWEEP_HISTOGRAM: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_sweep_histogram",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (9, WRITE),
        (10, WRITE),
        (12, UNIFORM),
    ],
    value_bindings: &[],
};
pub(crate) static RADIX_SWEEP_HISTOGRAM_COUNTED: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_sweep_histogram",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (8, READ),
        (9, WRITE),
        (10, WRITE),
        (12, UNIFORM),
    ],
    value_bindings: &[],
};
pub(crate) static RADIX_SCATTER_SWEEP: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_scatter_sweep",
    bindings: SWEEP_BINDINGS,
    value_bindings: &[(4, READ), (5, WRITE)],
};
pub(crate) static RADIX_SCATTER_SWEEP_COUNTED: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_scatter_sweep",
    bindings: SWEEP_COUNTED_BINDINGS,
    value_bindings: &[(4, READ), (5, WRITE)],
};
pub(crate) static RADIX_SCATTER_SWEEP_INDEXED: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_scatter_sweep",
    bindings: SWEEP_BINDINGS,
    value_bindings: &[(5, WRITE)],
};
pub(crate) static RADIX_SCATTER_SWEEP_INDEXED_COUNTED: Kernel = Kernel {
    file: "radix_sort",
    entry: "radix_scatter_sweep",
    bindings: SWEEP_COUNTED_BINDINGS,
    value_bindings: &[(5, WRITE)],
};

/// How a radix sort finds where each tile's keys of a digit go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RadixStrategy {
    /// Reduce-then-scan: each pass counts every tile's digits, scans the counts, then scatters
    /// (three dispatches a pass, the keys read twice). No workgroup waits on another.
    ReduceThenScan,
    /// Onesweep: one pass counts every pass's digits, then each pass is one dispatch in which a
    /// tile looks back over the tiles before it for its digits' places (decoupled look-back).
    /// A tile that finds a predecessor unpublished for a while counts that tile's digits itself
    /// (decoupled fallback), so it is correct on every adapter. It is the default only where
    /// the adapter is known to give workgroups forward progress (NVIDIA through Vulkan or DX12)
    /// and for up to 2^22 keys, where its fewer dispatches pay; on the H100 it is slower beyond
    /// (docs/benchmarks.md).
    SingleSweep,
}

/// The kernels of one strategy: the histogram, the scatter, and an argsort's first scatter.
struct RadixKernels {
    histogram: &'static Kernel,
    scatter: &'static Kernel,
    indexed: &'static Kernel,
}

/// The kernels of `strategy`, taking the number of keys from a GPU buffer where `counted`.
fn radix_kernels(strategy: RadixStrategy, counted: bool) -> RadixKernels {
    let (histogram, scatter, indexed) = match (strategy, counted) {
        (RadixStrategy::ReduceThenScan, false) => {
            (&RADIX_HISTOGRAM, &RADIX_SCATTER, &RADIX_SCATTER_INDEXED)
        }
        (RadixStrategy::ReduceThenScan, true) => (
            &RADIX_HISTOGRAM_COUNTED,
            &RADIX_SCATTER_COUNTED,
            &RADIX_SCATTER_INDEXED_COUNTED,
        ),
        (RadixStrategy::SingleSweep, false) => (
            &RADIX_SWEEP_HISTOGRAM,
            &RADIX_SCATTER_SWEEP,
            &RADIX_SCATTER_SWEEP_INDEXED,
        ),
        (RadixStrategy::SingleSweep, true) => (
            &RADIX_SWEEP_HISTOGRAM_COUNTED,
            &RADIX_SCATTER_SWEEP_COUNTED,
            &RADIX_SCATTER_SWEEP_INDEXED_COUNTED,
        ),
    };
    RadixKernels {
        histogram,
        scatter,
        indexed,
    }
}

/// Workgroup memory of the single sweep's scatter besides the reduce-then-scan one's: the
/// fallback's counts, the ticket and where the look-back stopped.
const SWEEP_SCATTER_MEMORY: u64 = (RADIX * 4 + 4 + 4 + 4) as u64;
/// Workgroup memory of the single sweep's histogram: every pass's counts.
#[cfg(test)]
const SWEEP_HISTOGRAM_MEMORY: u64 = (SWEEP_PASSES * RADIX * 4) as u64;
/// Most keys the single sweep sorts: its status words hold counts in 30 bits.
const SWEEP_MAX_LEN: usize = (1 << 30) - 1;

/// `WORKGROUP_SIZE` and `RADIX` in radix_sort.wgsl.
const WORKGROUP_SIZE: usize = 256;
const RADIX: usize = 256;
/// Bits of one digit at most.
const DIGIT_BITS: u32 = 8;

/// The scratch temporaries a radix sort uses (scan.rs numbers its own from 0, set.rs from 40).
const COUNTS: usize = 42;
const OFFSETS: usize = 43;
const WITHIN: usize = 47;
/// The single sweep's counts and tickets, and the tiles' status of even and odd passes.
const SWEEP_COUNTS: usize = 48;
const SWEEP_STATUS: [usize; 2] = [49, 50];
/// Reduce-then-scan's digit range of each pass (a vec4 each).
const DIGIT_RANGE: usize = 53;
/// `SWEEP_PASSES` in radix_sort.wgsl: most passes of one sort (8 digits and one more).
const SWEEP_PASSES: usize = 9;

/// `RadixParams` in radix_sort.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct RadixParams {
    len: u32,
    tiles: u32,
    groups: u32,
    tiles_per_group: u32,
    shift: u32,
    mask: u32,
    pass_index: u32,
    passes: u32,
}

/// A planned radix sort.
#[derive(Clone, Debug)]
pub(crate) struct RadixPlan {
    len: usize,
    tiles: usize,
    /// Workgroups of each kernel, and the run of tiles each takes.
    groups: usize,
    tiles_per_group: usize,
    key_size: u32,
    value_size: u32,
    /// Each pass's first bit and digit mask.
    passes: Vec<(u32, u32)>,
    /// Whether the number of keys comes from a GPU buffer (`len` is then the capacity).
    counted: bool,
    strategy: RadixStrategy,
    specialization: Specialization,
    /// An argsort's: the first pass's, which writes each key's index as its value.
    indexed: Option<Specialization>,
}

impl RadixPlan {
    /// Makes the plan (of 4-byte values) an argsort's: the values are the keys' indices, which
    /// the first pass writes.
    pub(crate) fn index_values(&mut self) {
        debug_assert_eq!(self.value_size, 4);
        let mut indexed = self.specialization.clone();
        for (name, module) in &mut indexed.params {
            if *name == "move_values" {
                *module = "lib/move_values/index";
            }
        }
        indexed.constants.retain(|(name, _)| *name != "VALUE_WORDS");
        self.indexed = Some(indexed);
    }
}

/// The passes over `bits`: digits of 8 bits from the lowest, the last one narrower where the
/// range is not a multiple of 8.
fn digit_passes(bits: Range<u32>) -> Vec<(u32, u32)> {
    bits.clone()
        .step_by(DIGIT_BITS as usize)
        .map(|shift| {
            let width = (bits.end - shift).min(DIGIT_BITS);
            (shift, (1u32 << width) - 1)
        })
        .collect()
}

/// How a radix sort ranks its tiles' keys: with lane masks in workgroup memory, or with the
/// ballots of subgroups of this many lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rank {
    Masks,
    Subgroups(u32),
}

impl Rank {
    /// Workgroup memory of the rank and of the scatter besides its tile: `wg_start`, and the
    /// module's own (lib/radix_rank/*.wgsl).
    fn memory(self) -> u64 {
        match self {
            Rank::Masks => tuning::RADIX_MASKS_MEMORY,
            Rank::Subgroups(lanes) => {
                let rows = u64::from(rank_rows(lanes));
                // wg_start, the lanes' counter, each row's counts (16-bit) and total.
                (RADIX * 4) as u64 + 4 + rows * (RADIX as u64 / 2) * 4 + rows * 4
            }
        }
    }
}

/// Subgroups of a workgroup (`RANK_ROWS` in lib/radix_rank/subgroups.wgsl).
fn rank_rows(lanes: u32) -> u32 {
    WORKGROUP_SIZE as u32 / lanes
}

fn specialization(
    key: KeyType,
    order: Order,
    value_size: u32,
    counted: bool,
    rounds: u32,
    rank: Rank,
) -> Specialization {
    let mut constants = vec![
        ("DESCENDING", u32::from(order == Order::Descending)),
        ("ROUNDS", rounds),
    ];
    let mut params = vec![("key", key.module())];
    match rank {
        Rank::Masks => params.push(("rank", "lib/radix_rank/masks")),
        Rank::Subgroups(lanes) => {
            constants.push(("RANK_ROWS", rank_rows(lanes)));
            constants.push(("BALLOT_WORDS", lanes.div_ceil(32)));
            let rounds_module = if tuning::radix_rank_unrolled(rounds) {
                "lib/rank_rounds/unrolled"
            } else {
                "lib/rank_rounds/looped"
            };
            params.push(("rank", "lib/radix_rank/subgroups"));
            params.push(("rank_rounds", rounds_module));
        }
    }
    let (values, value_constants) = move_values_module(value_size);
    constants.extend(value_constants);
    let count = if counted {
        "lib/key_count/buffer"
    } else {
        "lib/key_count/host"
    };
    params.extend([("move_values", values), ("key_count", count)]);
    Specialization {
        params,
        constants,
        with_values: value_size > 0,
    }
}

/// Keys of a tile of `rounds` rounds.
fn tile_len(rounds: u32) -> usize {
    WORKGROUP_SIZE * rounds as usize
}

/// Workgroup memory of the scatter: its rank's, its strategy's, and its tile sorted by digit (a
/// word a key, which the keys' words and values pass through in turn).
fn scatter_memory(rounds: u32, rank: Rank, strategy: RadixStrategy) -> u64 {
    rank.memory() + strategy_memory(strategy) + tile_len(rounds) as u64 * tuning::RADIX_SLOT_BYTES
}

/// Workgroup memory the single sweep's scatter adds.
fn strategy_memory(strategy: RadixStrategy) -> u64 {
    match strategy {
        RadixStrategy::ReduceThenScan => 0,
        RadixStrategy::SingleSweep => SWEEP_SCATTER_MEMORY,
    }
}

impl Gpu {
    /// How to rank keys for `subgroups` (the option): ballots where every subgroup has the
    /// same size, from 4 to 128 lanes (a ballot's vec4), and the device runs them.
    fn radix_rank(&self, subgroups: Option<bool>) -> Result<Rank, Error> {
        let info = self.adapter_info();
        let (min, max) = (info.subgroup_min_size, info.subgroup_max_size);
        let fixed = min == max && (4..=128).contains(&min) && self.has_subgroups();
        match subgroups {
            Some(true) if !fixed => Err(Error::Unsupported(format!(
                "subgroup ranks need subgroup operations with one subgroup size of 4 to 128 \
                 lanes; this device reports {min} to {max}{}",
                if self.has_subgroups() {
                    ""
                } else {
                    ", and no Features::SUBGROUP"
                }
            ))),
            Some(false) => Ok(Rank::Masks),
            _ if fixed => Ok(Rank::Subgroups(min)),
            _ => Ok(Rank::Masks),
        }
    }

    /// The strategy for `requested` (the option): the single sweep where the adapter gives
    /// forward progress and binds its buffers and the sort is short enough that it pays
    /// (`tuning::radix_single_sweep`), reduce-then-scan elsewhere.
    fn radix_strategy(
        &self,
        requested: Option<RadixStrategy>,
        len: usize,
        value_size: u32,
        counted: bool,
    ) -> Result<RadixStrategy, Error> {
        let sweep = radix_kernels(RadixStrategy::SingleSweep, counted).scatter;
        match requested {
            Some(RadixStrategy::SingleSweep) => {
                if len > SWEEP_MAX_LEN {
                    return Err(Error::TooLarge {
                        what: "single-sweep radix sort input",
                        len,
                        max: SWEEP_MAX_LEN,
                    });
                }
                Ok(RadixStrategy::SingleSweep)
            }
            Some(strategy) => Ok(strategy),
            None if self.has_forward_progress()
                && tuning::radix_single_sweep(len)
                && self.check_storage_buffers(sweep, value_size > 0).is_ok() =>
            {
                Ok(RadixStrategy::SingleSweep)
            }
            None => Ok(RadixStrategy::ReduceThenScan),
        }
    }

    /// Checks a radix sort's options (order, bits, subgroups) and the device, and plans its
    /// passes.
    pub(crate) fn plan_radix_sort(
        &self,
        key: KeyType,
        len: usize,
        value_size: u32,
        counted: bool,
        options: &SortOptions,
    ) -> Result<RadixPlan, Error> {
        let bits = options.bits.clone().unwrap_or(0..key.bits());
        if bits.start > bits.end || bits.end > key.bits() {
            return Err(Error::InvalidOptions(format!(
                "bits {bits:?} is not a range within the {} bits of {} keys",
                key.bits(),
                key.name()
            )));
        }
        let rank = self.radix_rank(options.subgroups)?;
        let strategy = self.radix_strategy(options.strategy, len, value_size, counted)?;
        self.check_storage_buffers(radix_kernels(strategy, counted).scatter, value_size > 0)?;
        let wanted = tuning::radix_rounds_wanted(
            key.size(),
            value_size,
            matches!(rank, Rank::Subgroups(_)),
            strategy == RadixStrategy::SingleSweep,
            len,
        );
        #[cfg(test)]
        let wanted = tests::ROUNDS.get().unwrap_or(wanted);
        let rounds = tuning::radix_rounds(
            self.limits().max_compute_workgroup_storage_size,
            rank.memory() + strategy_memory(strategy),
            wanted,
        );
        let memory = scatter_memory(rounds, rank, strategy);
        self.check_workgroup_memory(memory, "radix sort")?;
        let tile = tile_len(rounds);
        let tiles = len.div_ceil(tile);
        let tiles_per_group = tuning::radix_tiles_per_workgroup(tiles);
        let groups = tiles.div_ceil(tiles_per_group);
        let mut specialization =
            specialization(key, options.order, value_size, counted, rounds, rank);
        #[allow(unused_mut)]
        let mut wait = self.has_forward_progress();
        #[cfg(test)]
        {
            wait |= tests::WAIT.get();
        }
        if strategy == RadixStrategy::SingleSweep && wait {
            // Waits on each predecessor, with no fallback compiled in.
            specialization.constants.push(("WAIT", 1));
        }
        #[cfg(test)]
        if tests::FALLBACK_ONLY.get() {
            specialization
                .constants
                .extend([("FALLBACK_ONLY", 1), ("SPINS", 1)]);
        }
        Ok(RadixPlan {
            len,
            tiles,
            groups,
            tiles_per_group,
            key_size: key.size(),
            value_size,
            passes: digit_passes(bits),
            counted,
            strategy,
            specialization,
            indexed: None,
        })
    }

    /// Records `plan`'s passes over `keys[0]` (and `values[0]`), with the second buffers as
    /// temporaries; returns which buffer holds the result (the number of passes, mod 2). With
    /// `end_in_place`, an odd number of passes gets one more that moves the result back. A
    /// counted plan takes the number of keys from the first word of `count`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record_radix_sort(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        keys: [&wgpu::Buffer; 2],
        values: Option<[&wgpu::Buffer; 2]>,
        count: Option<&wgpu::Buffer>,
        plan: &RadixPlan,
        end_in_place: bool,
    ) -> Result<usize, Error> {
        let (key_size, value_size) = (plan.key_size, plan.value_size);
        let mut passes = plan.passes.clone();
        if plan.indexed.is_some() && passes.is_empty() {
            // The indices are written by a pass: one of no bits keeps the keys' order.
            passes.push((0, 0));
        }
        if end_in_place && passes.len() % 2 == 1 {
            // A digit of no bits is 0 for every key: a stable pass that moves everything back.
            passes.push((0, 0));
        }
        if plan.len == 0 || passes.is_empty() {
            return Ok(0);
        }
        let kernels = radix_kernels(plan.strategy, plan.counted);
        let histogram = if plan.strategy == RadixStrategy::SingleSweep {
            // The histogram's loop over the passes has a constant bound (`HISTOGRAM_PASSES`).
            let mut counting = plan.specialization.clone();
            counting
                .constants
                .push(("HISTOGRAM_PASSES", passes.len() as u32));
            self.pipeline(kernels.histogram, &counting)?
        } else {
            self.pipeline(kernels.histogram, &plan.specialization)?
        };
        let scatter = self.pipeline(kernels.scatter, &plan.specialization)?;
        let indexed = match &plan.indexed {
            Some(specialization) => Some(self.pipeline(kernels.indexed, specialization)?),
            None => None,
        };
        let groups = self.dispatch_shape(plan.groups as u32)?;
        let tiles = self.dispatch_shape(plan.tiles as u32)?;
        let placeholder = scratch.placeholder();
        let len = plan.len;
        let params = |pass: usize, (shift, mask): (u32, u32)| {
            self.uniform(
                "wgmerge radix params",
                bytemuck::bytes_of(&RadixParams {
                    len: len as u32,
                    tiles: plan.tiles as u32,
                    groups: plan.groups as u32,
                    tiles_per_group: plan.tiles_per_group as u32,
                    shift,
                    mask,
                    pass_index: pass as u32,
                    passes: passes.len() as u32,
                }),
            )
        };
        let key_count = count.map(|count| entry(8, bind_elements(count, 0, 1, 4, placeholder)));
        // Binding `binding` to keys[which].
        let keys_entry = |binding: u32, which: usize| {
            entry(
                binding,
                bind_elements(keys[which], 0, len, key_size, placeholder),
            )
        };
        // Per pass: the buffers its scan or look-back needs, then the scatter's dispatch.
        let sweep = if plan.strategy == RadixStrategy::SingleSweep {
            let counts = scratch.temporary(
                &self.device,
                SWEEP_COUNTS,
                ((SWEEP_PASSES + 1) * RADIX * 4) as u64,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            let status = SWEEP_STATUS.map(|slot| {
                scratch.temporary(
                    &self.device,
                    slot,
                    (plan.tiles * RADIX * 4) as u64,
                    wgpu::BufferUsages::STORAGE,
                )
            });
            let mut digits = [[0u32; 4]; SWEEP_PASSES];
            for (digit, &(shift, mask)) in digits.iter_mut().zip(&passes) {
                *digit = [shift, mask, 0, 0];
            }
            let digits = self.uniform("wgmerge radix digits", bytemuck::cast_slice(&digits));
            encoder.clear_buffer(&counts, 0, None);
            let uniform = params(0, (0, 0));
            let mut entries = vec![
                whole(0, &uniform),
                keys_entry(1, 0),
                whole(9, &counts),
                whole(10, &status[0]),
                whole(12, &digits),
            ];
            entries.extend(key_count.clone());
            let counted = self.bind_group(kernels.histogram, false, &entries);
            dispatch(
                encoder,
                "radix_sweep_histogram",
                &histogram,
                &counted,
                groups,
            );
            Some((counts, status))
        } else {
            None
        };
        // Reduce-then-scan's histograms, their scan, and each tile's counts before it.
        let words = plan.groups * RADIX;
        let reduce_then_scan = sweep.is_none().then(|| {
            let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
            let digit_range = scratch.temporary(
                &self.device,
                DIGIT_RANGE,
                (SWEEP_PASSES * 16) as u64,
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::UNIFORM
                    | wgpu::BufferUsages::COPY_DST,
            );
            encoder.clear_buffer(&digit_range, 0, None);
            // A multiple of 4 words: the scan reads them as whole vec4s.
            (
                scratch.temporary(&self.device, COUNTS, words as u64 * 4, usage),
                scratch.temporary(&self.device, OFFSETS, words as u64 * 4, usage),
                scratch.temporary(
                    &self.device,
                    WITHIN,
                    (plan.tiles * RADIX) as u64 * 4,
                    wgpu::BufferUsages::STORAGE,
                ),
                digit_range,
            )
        });
        for (pass, &digit) in passes.iter().enumerate() {
            let (from, to) = (pass % 2, 1 - pass % 2);
            let uniform = params(pass, digit);
            let mut entries = vec![whole(0, &uniform), keys_entry(1, from), keys_entry(2, to)];
            if let Some((counts, status)) = &sweep {
                entries.extend([
                    whole(9, counts),
                    whole(10, &status[pass % 2]),
                    whole(11, &status[1 - pass % 2]),
                ]);
            }
            if let Some((counts, offsets, within, digit_range)) = &reduce_then_scan {
                let within_entry = entry(
                    7,
                    bind_elements(within, 0, plan.tiles * RADIX, 4, placeholder),
                );
                let mut histogram_entries = vec![
                    whole(0, &uniform),
                    keys_entry(1, from),
                    entry(3, bind_elements(counts, 0, words, 4, placeholder)),
                    within_entry.clone(),
                    whole(13, digit_range),
                ];
                histogram_entries.extend(key_count.clone());
                let counted = self.bind_group(kernels.histogram, false, &histogram_entries);
                dispatch(encoder, "radix_histogram", &histogram, &counted, groups);
                self.record_scan_into::<u32>(
                    encoder,
                    scratch,
                    (counts, 0),
                    (offsets, 0),
                    words,
                    ScanKind::Exclusive,
                    ReduceOp::Sum,
                    &ScanOptions::default(),
                )?;
                entries.extend([
                    entry(6, bind_elements(offsets, 0, words, 4, placeholder)),
                    within_entry,
                    whole(14, digit_range),
                ]);
            }
            // An argsort's first pass writes the indices, reading no values.
            let first_indexed = pass == 0 && indexed.is_some();
            if let Some(values) = values {
                if !first_indexed {
                    entries.push(entry(
                        4,
                        bind_elements(values[from], 0, len, value_size, placeholder),
                    ));
                }
                entries.push(entry(
                    5,
                    bind_elements(values[to], 0, len, value_size, placeholder),
                ));
            }
            entries.extend(key_count.clone());
            let (kernel, pipeline) = match &indexed {
                Some(pipeline) if first_indexed => (kernels.indexed, pipeline),
                _ => (kernels.scatter, &scatter),
            };
            let scattered = self.bind_group(kernel, values.is_some(), &entries);
            dispatch(encoder, "radix_scatter", pipeline, &scattered, tiles);
        }
        Ok(passes.len() % 2)
    }
}

/// Every configuration of the radix kernels, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for key in KeyType::ALL {
        for order in [Order::Ascending, Order::Descending] {
            for (value_size, rounds, rank) in [
                (0, tuning::RADIX_ROUNDS, Rank::Masks),
                (4, 3, Rank::Masks),
                (8, 1, Rank::Masks),
                (0, tuning::RADIX_ROUNDS, Rank::Subgroups(32)),
                // The rounds subgroup ranks of 4-byte keys take in reduce-then-scan.
                (
                    0,
                    tuning::radix_rounds_wanted(4, 0, true, false, 1 << 28),
                    Rank::Subgroups(32),
                ),
                // And pairs of 4-byte keys and values.
                (
                    4,
                    tuning::radix_rounds_wanted(4, 4, true, false, 1 << 28),
                    Rank::Subgroups(32),
                ),
                (4, 5, Rank::Subgroups(8)),
                (8, 2, Rank::Subgroups(128)),
            ] {
                for (strategy, counted) in [
                    (RadixStrategy::ReduceThenScan, false),
                    (RadixStrategy::ReduceThenScan, true),
                    (RadixStrategy::SingleSweep, false),
                    (RadixStrategy::SingleSweep, true),
                ] {
                    let kernels = radix_kernels(strategy, counted);
                    let specialization =
                        specialization(key, order, value_size, counted, rounds, rank);
                    out.push(crate::kernel_tests::Configuration {
                        kernel: kernels.histogram,
                        specialization: specialization.clone(),
                        workgroup_memory: match strategy {
                            RadixStrategy::ReduceThenScan => (RADIX * 4 + 8) as u64,
                            RadixStrategy::SingleSweep => SWEEP_HISTOGRAM_MEMORY,
                        },
                    });
                    let memory = scatter_memory(rounds, rank, strategy);
                    if value_size == 4 {
                        let mut plan = RadixPlan {
                            len: 1,
                            tiles: 1,
                            groups: 1,
                            tiles_per_group: 1,
                            key_size: key.size(),
                            value_size,
                            passes: Vec::new(),
                            counted,
                            strategy,
                            specialization: specialization.clone(),
                            indexed: None,
                        };
                        plan.index_values();
                        out.push(crate::kernel_tests::Configuration {
                            kernel: kernels.indexed,
                            specialization: plan.indexed.expect("indexed"),
                            workgroup_memory: memory,
                        });
                    }
                    if strategy == RadixStrategy::SingleSweep {
                        let mut waiting = specialization.clone();
                        waiting.constants.push(("WAIT", 1));
                        out.push(crate::kernel_tests::Configuration {
                            kernel: kernels.scatter,
                            specialization: waiting,
                            workgroup_memory: memory,
                        });
                    }
                    out.push(crate::kernel_tests::Configuration {
                        kernel: kernels.scatter,
                        specialization,
                        workgroup_memory: memory,
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

    thread_local! {
        /// Sorts planned on this thread read no predecessor's status in the single sweep, so
        /// every digit count comes from its decoupled fallback.
        pub(super) static FALLBACK_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        /// Sorts planned on this thread wait on their predecessors in the single sweep, as on
        /// adapters that give forward progress.
        pub(super) static WAIT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        /// Sorts planned on this thread want tiles of this many rounds.
        pub(super) static ROUNDS: std::cell::Cell<Option<u32>> =
            const { std::cell::Cell::new(None) };
    }

    /// Tiles of more rounds than the driver's loop is left for (the subgroup rank's rounds
    /// written out, lib/rank_rounds/unrolled.wgsl), up to the most, sort as the CPU does: keys
    /// and pairs, both strategies and ranks, sizes around a tile.
    #[test]
    fn every_round_count_sorts() {
        let gpu = Gpu::new().expect("an adapter");
        // The subgroup rank where the adapter has it (not on llvmpipe's GL).
        let mut ranks = vec![Some(false)];
        if gpu.radix_rank(Some(true)).is_ok() {
            ranks.push(Some(true));
        }
        for rounds in [
            tuning::RADIX_WIDE_ROUNDS,
            tuning::RADIX_ROUNDS + 1,
            tuning::MAX_RADIX_ROUNDS,
        ] {
            ROUNDS.set(Some(rounds));
            for len in [1, 2559, 2561, 40_000] {
                let keys: Vec<u32> = (0..len)
                    .map(|i: u32| i.wrapping_mul(2_654_435_761) >> (i % 7))
                    .collect();
                let values: Vec<u32> = (0..len).collect();
                let (want_keys, want_values) =
                    crate::cpu::radix_sort_pairs_ordered(&keys, &values, 0..32, Order::Ascending);
                for strategy in [RadixStrategy::ReduceThenScan, RadixStrategy::SingleSweep] {
                    for subgroups in ranks.iter().copied() {
                        let options = SortOptions {
                            strategy: Some(strategy),
                            subgroups,
                            ..Default::default()
                        };
                        let what =
                            format!("{rounds} rounds, {len} keys, {strategy:?}, {subgroups:?}");
                        let got = gpu.sort_with(&keys, &options).unwrap();
                        assert!(got == want_keys, "{what}: keys differ");
                        let (got_keys, got_values) =
                            gpu.sort_pairs_with(&keys, &values, &options).unwrap();
                        assert!(got_keys == want_keys, "{what}: pairs' keys differ");
                        assert!(got_values == want_values, "{what}: values differ");
                    }
                }
            }
        }
        ROUNDS.set(None);
    }

    /// unrolled.wgsl calls the round for each round up to MAX_ROUNDS, one call each: a tile of
    /// more rounds would leave keys unranked.
    #[test]
    fn the_written_out_rounds_reach_the_most() {
        let text = crate::shader::file("lib/rank_rounds/unrolled").expect("the module");
        let calls = text.matches("        rank_round(").count() + 1;
        assert!(text.contains("    rank_round(0u, "));
        assert_eq!(calls, tuning::MAX_RADIX_ROUNDS as usize);
        for round in 1..tuning::MAX_RADIX_ROUNDS {
            assert!(text.contains(&format!(
                "if ROUNDS > {round}u {{\n        rank_round({round}u, "
            )));
        }
    }

    /// The single sweep with every look-back answered by the fallback (each tile counting its
    /// predecessors' digits itself) sorts as the CPU does: keys and pairs, both orders, a bit
    /// range, more tiles than workgroups.
    #[test]
    fn single_sweep_by_fallback_alone() {
        let gpu = Gpu::new().expect("an adapter");
        FALLBACK_ONLY.set(true);
        let sorted = single_sweep_sorts_as_the_cpu(&gpu, 300_000);
        FALLBACK_ONLY.set(false);
        sorted.unwrap();
    }

    /// The single sweep waiting on its predecessors, with no fallback compiled in, sorts as the
    /// CPU does. A few tiles only: lavapipe gives no forward-progress guarantee, and a long wait
    /// there runs into llvmpipe's loop limit (300,000 keys sorted wrong, waiting with or without
    /// the fallback compiled in). Even a few tiles wait that long now and then when other tests
    /// hold the machine's cores (once in CI on two cores), so a wrong sort is tried again, up to
    /// four times: a fault in the waiting code itself fails every try.
    #[test]
    fn single_sweep_waiting() {
        let gpu = Gpu::new().expect("an adapter");
        WAIT.set(true);
        let mut sorted = Err(String::new());
        for _ in 0..4 {
            sorted = single_sweep_sorts_as_the_cpu(&gpu, 10_000);
            if sorted.is_ok() {
                break;
            }
        }
        WAIT.set(false);
        sorted.unwrap();
    }

    /// `len` keys and pairs, both orders, a bit range: which first differs from the CPU's sort.
    fn single_sweep_sorts_as_the_cpu(gpu: &Gpu, len: u32) -> Result<(), String> {
        let keys: Vec<u32> = (0..len)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
            .collect();
        let values: Vec<u32> = (0..keys.len() as u32).collect();
        for (order, bits) in [(Order::Ascending, None), (Order::Descending, Some(3..20))] {
            let options = SortOptions {
                order,
                bits: bits.clone(),
                strategy: Some(RadixStrategy::SingleSweep),
                ..Default::default()
            };
            let (got_keys, got_values) = gpu.sort_pairs_with(&keys, &values, &options).unwrap();
            let (want_keys, want_values) =
                crate::cpu::radix_sort_pairs_ordered(&keys, &values, bits.unwrap_or(0..32), order);
            if got_keys != want_keys {
                return Err(format!("{order:?}: keys differ"));
            }
            if got_values != want_values {
                return Err(format!("{order:?}: values differ"));
            }
        }
        Ok(())
    }

    #[test]
    fn digits_cover_the_range_once() {
        assert_eq!(
            digit_passes(0..32),
            [(0, 255), (8, 255), (16, 255), (24, 255)]
        );
        assert_eq!(digit_passes(0..64).len(), 8);
        assert_eq!(digit_passes(4..16), [(4, 255), (12, 15)]);
        assert_eq!(digit_passes(31..32), [(31, 1)]);
        assert_eq!(digit_passes(5..5), []);
    }
}
