//! Set operations on two sorted inputs, on the GPU: union, intersection, difference and
//! symmetric difference, as multisets, with the C++ library's `std::set_*` rule for repeated
//! keys. The work is cut on the balanced path (lib/balanced_path.wgsl), where A's r-th copy of a
//! key and B's r-th copy are never parted: the partition pass (partition.rs, on the balanced
//! path) cuts tiles, and each workgroup of `set.wgsl` takes tiles in turn, cuts each again per
//! invocation, runs the serial set operation over each part, finds the tile's place in the
//! output by decoupled look-back (look_back.rs) and writes the kept elements there. One
//! submission; the count comes back with the output.

use std::ops::Range;

use bytemuck::{Pod, Zeroable};

use crate::cpu;
use crate::device::{bind_elements, entry};
use crate::host::{self, Call, Piece, PieceWork, Recorded, ResultVec};
use crate::key::{values_module, Key, KeyType, Order};
use crate::look_back::{self, LookBack};
use crate::merge::{ValueBuffers, VALUE_BINDINGS};
use crate::ops::SetOperation;
use crate::partition::Partition;
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scratch::Scratch;
use crate::tuning::{self, SetTiling};
use crate::validate::{unsorted_at, unsorted_either};
use crate::values::{check_value_size, HostValues};
use crate::{Error, Gpu, Side};

/// How to run a set operation. A plain struct: set the fields you need and take the rest from
/// `Default`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetOptions {
    /// The order both inputs are sorted in, and the output's.
    pub order: Order,
    /// Check on the GPU that both inputs are sorted in `order`, returning [`Error::Unsorted`]
    /// with the first out-of-order keys if not (as [`crate::MergeOptions::validate`]). Costs one
    /// extra read of the inputs.
    pub validate: bool,
    /// Slice forms: the most keys (of A and B together) one piece may hold. Longer inputs are
    /// cut between runs of equal keys into pieces that are uploaded, run and read back in turn,
    /// so the result is the same. A run of equal keys longer than a piece goes in pieces of its
    /// own, each with the copies of the same indices in the run from A and from B (which is how
    /// every operation pairs them). `None`: pieces of at most one storage binding; 1 is
    /// [`Error::TooLarge`] for a run of two or more.
    pub max_piece_len: Option<usize>,
}

/// The caller's GPU buffers for [`Gpu::encode_set_operation`]: sorted keys of the [`Key`] type
/// the call names, from offset 0. Every buffer needs `STORAGE` (`count` also `COPY_DST`), and
/// each written one must be a buffer of its own.
#[derive(Clone, Copy, Debug)]
pub struct SetBuffers<'a> {
    /// The first input.
    pub a: &'a wgpu::Buffer,
    /// Keys in `a`.
    pub a_len: usize,
    /// The second input.
    pub b: &'a wgpu::Buffer,
    /// Keys in `b`.
    pub b_len: usize,
    /// Receives the kept keys: room for `a_len + b_len`.
    pub out: &'a wgpu::Buffer,
    /// Receives the number kept as a `u32` at offset 0.
    pub count: &'a wgpu::Buffer,
    /// Values moved with the keys, if any.
    pub values: Option<ValueBuffers<'a>>,
}

/// `set_tiles` in set.wgsl.
pub(crate) static SET_TILES: Kernel = Kernel {
    file: "set",
    entry: "set_tiles",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE), (8, WRITE)],
    value_bindings: VALUE_BINDINGS,
};

/// `SetParams` in set.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct SetParams {
    a_len: u32,
    b_len: u32,
    tiles: u32,
    state_at: u32,
}

/// The scratch temporary a set operation uses (scan.rs numbers its own from 0): the tiles'
/// boundaries, then the look-back's state and the number kept.
const CUTS_AND_STATE: usize = 40;

/// What a set operation's kernel is specialised for.
#[derive(Clone, Copy, Debug)]
struct SetKernel {
    operation: SetOperation,
    key: KeyType,
    order: Order,
    value_size: u32,
    /// The shape and the elements a tile holds (tuning::set_tiling).
    tiling: SetTiling,
    look_back: LookBack,
    /// Whether the look-back's window is one subgroup's.
    subgroups: bool,
}

impl SetKernel {
    fn specialization(self) -> Specialization {
        let ((workgroup_size, items), tile) = self.tiling;
        let mut constants = vec![
            ("WORKGROUP_SIZE", workgroup_size),
            ("ITEMS_PER_THREAD", items),
            ("TILE", tile),
            ("DESCENDING", u32::from(self.order == Order::Descending)),
            ("SET_OPERATION", u32::from(self.operation.index())),
        ];
        constants.extend(self.look_back.constants());
        // Counts, below 2^30: one word of look-back state a tile (run 155).
        constants.push(("NARROW", 1));
        constants.push(("MOST_TILES", most_tiles()));
        // With values the kept elements' slots are staged too; keys alone need no such array.
        let staged = if self.value_size > 0 { tile } else { 1 };
        constants.push(("STAGED", staged));
        Specialization {
            params: vec![
                ("key", self.key.module()),
                ("values", values_module(self.value_size)),
                ("look_back_window", look_back::window_module(self.subgroups)),
            ],
            constants,
            with_values: self.value_size > 0,
        }
    }
}

/// Loop iterations an invocation of `set_tiles` runs a tile at most, for
/// [`tuning::most_tiles_within_loop_budget`]: the co-rank and the balanced split's searches in
/// the tile (about 6 log2 of it), the scan of the counts, the look-back's rounds and the writes.
const LOOPS_PER_TILE: u32 = 256;

/// `MOST_TILES` of `set_tiles`.
fn most_tiles() -> u32 {
    tuning::most_tiles_within_loop_budget(LOOPS_PER_TILE)
}

/// Bytes of workgroup memory of `set_tiles`: a tile of keys (and with values their slots), a word
/// an invocation for its part and then the scan of the parts' counts, and the look-back's (with or
/// without subgroups).
fn workgroup_memory(
    ((workgroup, _), tile): SetTiling,
    key: KeyType,
    with_values: bool,
    subgroups: bool,
) -> u64 {
    let tile = u64::from(tile);
    // `staged`: a slot per element with values, else one unused word.
    let staged = if with_values { tile * 4 } else { 4 };
    tile * u64::from(key.size())
        + staged
        // `wg_words`: the parts, then the scan of their counts.
        + u64::from(workgroup) * 4
        + look_back::workgroup_memory(subgroups)
}

impl Gpu {
    /// `operation` on sorted `a` and `b` (ascending), read back: see [`SetOperation`] for what
    /// each keeps. If an input is not sorted the result is unspecified, but no invocation reads
    /// or writes out of bounds.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_operation<K: Key>(
        &self,
        operation: SetOperation,
        a: &[K],
        b: &[K],
    ) -> Result<Vec<K>, Error> {
        self.set_operation_with(operation, a, b, &SetOptions::default())
    }

    /// [`Gpu::set_operation`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_operation_with<K: Key>(
        &self,
        operation: SetOperation,
        a: &[K],
        b: &[K],
        options: &SetOptions,
    ) -> Result<Vec<K>, Error> {
        self.block_on(self.set_operation_async(operation, a, b, options))
    }

    /// [`Gpu::set_operation_with`] without blocking, for targets that cannot block.
    pub async fn set_operation_async<K: Key>(
        &self,
        operation: SetOperation,
        a: &[K],
        b: &[K],
        options: &SetOptions,
    ) -> Result<Vec<K>, Error> {
        let mut keys = ResultVec::<K>::new(a.len() + b.len())?;
        let kept = self
            .set_host(operation, a, b, None, options, &mut [keys.bytes()])
            .await?;
        Ok(keys.into_vec(kept))
    }

    /// `operation` on sorted keys with a value per key; each kept key brings its value. Values
    /// are 4 or 8 bytes; keys and values of one input must have the same length.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_operation_pairs<K: Key, V: Pod>(
        &self,
        operation: SetOperation,
        a_keys: &[K],
        a_values: &[V],
        b_keys: &[K],
        b_values: &[V],
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.set_operation_pairs_with(
            operation,
            a_keys,
            a_values,
            b_keys,
            b_values,
            &SetOptions::default(),
        )
    }

    /// [`Gpu::set_operation_pairs`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_operation_pairs_with<K: Key, V: Pod>(
        &self,
        operation: SetOperation,
        a_keys: &[K],
        a_values: &[V],
        b_keys: &[K],
        b_values: &[V],
        options: &SetOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.block_on(
            self.set_operation_pairs_async(operation, a_keys, a_values, b_keys, b_values, options),
        )
    }

    /// [`Gpu::set_operation_pairs_with`] without blocking.
    pub async fn set_operation_pairs_async<K: Key, V: Pod>(
        &self,
        operation: SetOperation,
        a_keys: &[K],
        a_values: &[V],
        b_keys: &[K],
        b_values: &[V],
        options: &SetOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        let values = HostValues::of(a_keys, a_values, b_keys, b_values)?;
        let total = a_keys.len() + b_keys.len();
        let mut keys = ResultVec::<K>::new(total)?;
        let mut kept_values = ResultVec::<V>::new(total)?;
        let kept = self
            .set_host(
                operation,
                a_keys,
                b_keys,
                Some(values),
                options,
                &mut [keys.bytes(), kept_values.bytes()],
            )
            .await?;
        Ok((keys.into_vec(kept), kept_values.into_vec(kept)))
    }

    /// Records `operation` on GPU-resident sorted `buffers` into `encoder`; nothing is read
    /// back. The kept keys (and values) go to `out` in merge order, their number to the first
    /// word of `count`, which needs `COPY_DST` besides `STORAGE`. Both inputs together must fit
    /// one storage binding ([`Gpu::max_set_len`]). `options.validate` needs a readback and is
    /// [`Error::InvalidOptions`] here.
    pub fn encode_set_operation<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        operation: SetOperation,
        buffers: &SetBuffers<'_>,
        options: &SetOptions,
    ) -> Result<(), Error> {
        self.check_lost()?;
        if options.validate {
            return Err(Error::InvalidOptions(
                "validate reports unsorted input with a readback; the encoder form has none".into(),
            ));
        }
        let value_size = check_value_size(buffers.values.map_or(0, |v| v.value_size))?;
        let (m, n) = (buffers.a_len, buffers.b_len);
        let plan = self.plan_set(operation, K::TYPE, (m, n), value_size, options.order)?;
        let key_size = K::TYPE.size();
        let mut arrays = vec![
            ("a", buffers.a, m, key_size, false),
            ("b", buffers.b, n, key_size, false),
            ("out", buffers.out, m + n, key_size, true),
            ("count", buffers.count, 1, 4, true),
        ];
        if let Some(values) = &buffers.values {
            arrays.push(("a values", values.a, m, value_size, false));
            arrays.push(("b values", values.b, n, value_size, false));
            arrays.push(("out values", values.out, m + n, value_size, true));
        }
        self.check_arrays(&arrays)?;
        if !buffers.count.usage().contains(wgpu::BufferUsages::COPY_DST) {
            return Err(Error::MissingUsage {
                buffer: "count",
                needed: wgpu::BufferUsages::COPY_DST,
            });
        }
        self.checked(|| {
            if m + n == 0 {
                encoder.clear_buffer(buffers.count, 0, Some(4));
                return Ok(());
            }
            let arrays = SetArrays {
                a: buffers.a,
                b: buffers.b,
                out: buffers.out,
                values: buffers.values.map(|v| (v.a, v.b, v.out)),
            };
            let (kept, at) = self.record_set(encoder, scratch, &arrays, &plan)?;
            encoder.copy_buffer_to_buffer(&kept, at, buffers.count, 0, 4);
            Ok::<_, Error>(())
        })?
    }

    /// The longest pair of inputs (`a.len() + b.len()`) a set operation takes on this device for
    /// `key` keys with values of `value_size` bytes (0 for none): what one storage binding holds.
    pub fn max_set_len(&self, key: KeyType, value_size: u32) -> usize {
        self.max_merge_len(key, value_size)
    }

    /// Checks a set operation's lengths against the device and plans it.
    fn plan_set(
        &self,
        operation: SetOperation,
        key: KeyType,
        (a_len, b_len): (usize, usize),
        value_size: u32,
        order: Order,
    ) -> Result<SetPlan, Error> {
        let len = a_len + b_len;
        let max = self.max_set_len(key, value_size);
        if len > max {
            return Err(Error::TooLarge {
                what: "set operation input",
                len,
                max,
            });
        }
        // The device's own checks decide what fits; where nothing does, the smallest shape's
        // error says why.
        let what = format!("a set operation on {} keys", key.name());
        let check = |tiling: SetTiling| {
            self.check_shape(tiling.0)?;
            let subgroups = self.subgroups_fill(tiling.0 .0);
            self.check_workgroup_memory(
                workgroup_memory(tiling, key, value_size > 0, subgroups),
                &what,
            )
        };
        let with_values = value_size > 0;
        let tiling =
            match tuning::set_tiling(operation, key.size(), with_values, |t| check(t).is_ok()) {
                Some(tiling) => tiling,
                None => {
                    check(tuning::SMALLEST_SET_TILING)?;
                    return Err(Error::Unsupported(what));
                }
            };
        let (shape, tile) = tiling;
        self.check_storage_buffers(&SET_TILES, with_values)?;
        // A balanced split may take one more input than merge path's, so boundaries every
        // tile - 1 outputs give tiles of at most `tile` inputs.
        let spacing = tile - 1;
        let tiles = len.div_ceil(spacing as usize);
        Ok(SetPlan {
            kernel: SetKernel {
                operation,
                key,
                order,
                value_size,
                tiling,
                look_back: self.default_look_back(),
                subgroups: self.subgroups_fill(shape.0),
            },
            a_len,
            b_len,
            tiles,
            partition: Partition::plan(self, key, order, (a_len, b_len), spacing, 0, false)?
                .on_balanced_path(),
            // Workgroups take tiles in turn; at least one, which writes the count.
            dispatch: self.dispatch_shape(
                tuning::scan_single_pass_groups(tiles, shape.0, most_tiles()).max(1),
            )?,
        })
    }

    /// Records a planned set operation; returns where the GPU leaves the number of kept
    /// elements (buffer, byte offset).
    fn record_set(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &SetArrays<'_>,
        plan: &SetPlan,
    ) -> Result<(wgpu::Buffer, u64), Error> {
        let tiles = plan.tiles;
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        // The boundaries (tiles + 1 of them, two words each on the balanced path), then the
        // look-back's words at a 256-byte offset, then the number kept: one binding (set.wgsl's
        // `state`).
        let state_at = u64::from(plan.partition.words()).next_multiple_of(64);
        let state_words = look_back::state_words(tiles);
        let state = scratch.temporary(
            &self.device,
            CUTS_AND_STATE,
            (state_at + state_words + 1) * 4,
            storage,
        );
        let count_at = (state_at + state_words) * 4;
        if tiles == 0 {
            return Ok((state, 0));
        }
        let kernel = plan.kernel;
        let key_size = kernel.key.size();
        let placeholder = scratch.placeholder();
        let bind = |buffer, len, size| bind_elements(buffer, 0, len, size, placeholder);
        let params = SetParams {
            a_len: plan.a_len as u32,
            b_len: plan.b_len as u32,
            tiles: tiles as u32,
            state_at: state_at as u32,
        };
        let uniform = self.uniform("wgmerge set params", bytemuck::bytes_of(&params));
        // Published values start unset and the tile counter at 0: the partition zeroes them.
        let partition = plan
            .partition
            .clone()
            .zeroing(state_at as u32, state_words as u32);
        let partition = partition.prepare(
            self,
            (
                bind(buffers.a, plan.a_len, key_size),
                bind(buffers.b, plan.b_len, key_size),
            ),
            &state,
            None,
            None,
        )?;
        let total = plan.a_len + plan.b_len;
        let mut entries = vec![
            entry(0, uniform.as_entire_binding()),
            entry(1, bind(buffers.a, plan.a_len, key_size)),
            entry(2, bind(buffers.b, plan.b_len, key_size)),
            entry(3, bind(buffers.out, total, key_size)),
            entry(8, state.as_entire_binding()),
        ];
        let with_values = buffers.values.is_some();
        if let Some((a, b, out)) = buffers.values {
            let size = kernel.value_size;
            entries.extend([
                entry(4, bind(a, plan.a_len, size)),
                entry(5, bind(b, plan.b_len, size)),
                entry(6, bind(out, total, size)),
            ]);
        }
        let bind_group = self.bind_group(&SET_TILES, with_values, &entries);
        let pipeline = self.pipeline(&SET_TILES, &kernel.specialization())?;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("set_tiles"),
            timestamp_writes: None,
        });
        partition.record(&mut pass);
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(plan.dispatch.0, plan.dispatch.1, 1);
        Ok((state, count_at))
    }

    /// Upload, run, read back the kept elements through the host driver; writes keys (and value
    /// bytes) into `destinations` and returns how many were kept.
    async fn set_host<K: Key>(
        &self,
        operation: SetOperation,
        a: &[K],
        b: &[K],
        values: Option<HostValues<'_>>,
        options: &SetOptions,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let value_size = values.map_or(0, |v| v.size);
        let (m, n) = (a.len(), b.len());
        // The options and the device, before any work; each piece is planned as it is recorded.
        self.plan_set(operation, K::TYPE, (0, 0), value_size, options.order)?;
        if m + n == 0 {
            return Ok(0);
        }
        let most = host::piece_len(options.max_piece_len, self.max_set_len(K::TYPE, value_size))?;
        let cuts = set_pieces(a, b, most, options)?;
        let key_size = K::TYPE.size() as usize;
        let mut call = Call {
            inputs: vec![
                (bytemuck::cast_slice(a), key_size),
                (bytemuck::cast_slice(b), key_size),
            ],
            output_sizes: vec![key_size],
            pieces: Vec::new(),
            input_room: vec![0, 0],
            output_room: 0,
        };
        for (i, j) in cuts {
            let inputs = if values.is_some() {
                vec![i.clone(), j.clone(), i.clone(), j.clone()]
            } else {
                vec![i.clone(), j.clone()]
            };
            call.input_room[0] = call.input_room[0].max(i.len());
            call.input_room[1] = call.input_room[1].max(j.len());
            call.output_room = call.output_room.max(i.len() + j.len());
            // The output's place is known only from the counts: the driver places each piece's
            // kept elements after the last.
            call.pieces.push(Piece {
                inputs,
                output: 0..i.len() + j.len(),
            });
        }
        if let Some(v) = values {
            let size = v.size as usize;
            call.inputs.extend([(v.a, size), (v.b, size)]);
            call.input_room
                .extend([call.input_room[0], call.input_room[1]]);
            call.output_sizes.push(size);
        }
        let mut work = SetWork {
            operation,
            a,
            b,
            options,
            value_size,
            scratch: self.create_scratch(),
        };
        host::run(self, &call, &mut work, destinations, &mut |_, _| {}).await
    }
}

/// Copies of `key` that `keys` (sorted, none before `key`) starts with.
fn run_len<K: Key>(keys: &[K], key: &K, order: Order) -> usize {
    keys.partition_point(|k| !key.before(k, order))
}

/// Pieces of one run of equal keys, `ca` copies in A from `i0` and `cb` in B from `j0`, of at
/// most `half` copies a side: each piece takes the copies whose index in the run lies in the
/// same range on both sides. Every operation keeps a run's copies by their index in it alone
/// (union: all of A's, then B's from index `ca`; intersection: A's below `cb`; a difference:
/// each side's from the other's count on), so pieces aligned by that index keep, in order,
/// what the whole run keeps.
fn run_pieces(i0: usize, ca: usize, j0: usize, cb: usize, half: usize) -> Vec<PieceRanges> {
    (0..ca.max(cb))
        .step_by(half)
        .map(|t| {
            let (a_end, b_end) = ((t + half).min(ca), (t + half).min(cb));
            (i0 + t.min(ca)..i0 + a_end, j0 + t.min(cb)..j0 + b_end)
        })
        .collect()
}

/// One piece of a set operation: its ranges of A and B.
type PieceRanges = (Range<usize>, Range<usize>);

/// The pieces of a set operation of at most `most` keys each, as ranges of A and B: cut by
/// co-rank, then moved back to the start of the run of keys equal to the first one left out, so
/// that every copy of a key (in A and in B) is in one piece and each piece's result is the
/// whole result's part; a run longer than a piece is cut by `run_pieces`. With `validate`, the
/// joins between pieces are checked here (the GPU checks within each).
fn set_pieces<K: Key>(
    a: &[K],
    b: &[K],
    most: usize,
    options: &SetOptions,
) -> Result<Vec<PieceRanges>, Error> {
    let order = options.order;
    let (m, n) = (a.len(), b.len());
    let mut pieces = Vec::new();
    let (mut i0, mut j0) = (0, 0);
    while i0 < m || j0 < n {
        let (i1, j1) = if (m - i0) + (n - j0) <= most {
            (m, n)
        } else {
            let (a_rest, b_rest) = (&a[i0..], &b[j0..]);
            // Clamped so that unsorted input still gives ranges within the inputs.
            let i = cpu::co_rank_ordered(most, a_rest, b_rest, order)
                .min(a_rest.len())
                .max(most.saturating_sub(b_rest.len()));
            let j = most - i;
            // The first key the cut leaves out: merge order takes A's first on ties.
            let next = match (a_rest.get(i), b_rest.get(j)) {
                (Some(x), Some(y)) if y.before(x, order) => *y,
                (Some(x), _) => *x,
                (None, Some(y)) => *y,
                (None, None) => unreachable!("the inputs hold more than `most` keys"),
            };
            let i1 = i0 + a_rest[..i].partition_point(|x| x.before(&next, order));
            let j1 = j0 + b_rest[..j].partition_point(|x| x.before(&next, order));
            if i1 + j1 == i0 + j0 {
                // Unsorted input can look like one long run: say so where it was asked.
                if options.validate {
                    for (side, keys) in [(Side::A, a), (Side::B, b)] {
                        if let Some(index) = cpu::first_unsorted(keys, order) {
                            return Err(unsorted_at(side, keys, index, order));
                        }
                    }
                }
                // A run of equal keys longer than a piece starts at i0 and j0.
                let (ca, cb) = (run_len(a_rest, &next, order), run_len(b_rest, &next, order));
                if ca + cb == 0 || most < 2 {
                    return Err(Error::TooLarge {
                        what: "run of equal keys in a set operation's piece",
                        len: most + 1,
                        max: most,
                    });
                }
                pieces.extend(run_pieces(i0, ca, j0, cb, most / 2));
                (i0, j0) = (i0 + ca, j0 + cb);
                continue;
            }
            (i1, j1)
        };
        if options.validate {
            for (side, keys, start, end) in [(Side::A, a, i0, i1), (Side::B, b, j0, j1)] {
                if start > 0 && start < end && keys[start].before(&keys[start - 1], order) {
                    return Err(unsorted_at(side, keys, start, order));
                }
            }
        }
        pieces.push((i0..i1, j0..j1));
        (i0, j0) = (i1, j1);
    }
    Ok(pieces)
}

/// A set operation checked against the device.
struct SetPlan {
    kernel: SetKernel,
    a_len: usize,
    b_len: usize,
    tiles: usize,
    partition: Partition,
    dispatch: (u32, u32),
}

/// The buffers of a set operation: A, B, the output, and values (A's, B's, the output's).
struct SetArrays<'a> {
    a: &'a wgpu::Buffer,
    b: &'a wgpu::Buffer,
    out: &'a wgpu::Buffer,
    values: Option<(&'a wgpu::Buffer, &'a wgpu::Buffer, &'a wgpu::Buffer)>,
}

/// A slice-form set operation, in one piece.
struct SetWork<'a, K> {
    operation: SetOperation,
    a: &'a [K],
    b: &'a [K],
    options: &'a SetOptions,
    value_size: u32,
    scratch: Scratch,
}

impl<K: Key> PieceWork for SetWork<'_, K> {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error> {
        let (m, n) = (piece.inputs[0].len(), piece.inputs[1].len());
        let order = self.options.order;
        let plan = gpu.plan_set(self.operation, K::TYPE, (m, n), self.value_size, order)?;
        let mut words = Vec::new();
        if self.options.validate {
            let key_order = (K::TYPE, order);
            words =
                gpu.record_validate_both(encoder, key_order, (&inputs[0], m), (&inputs[1], n))?;
        }
        let buffers = SetArrays {
            a: &inputs[0],
            b: &inputs[1],
            out: &outputs[0],
            values: (self.value_size > 0).then(|| (&inputs[2], &inputs[3], &outputs[1])),
        };
        let (kept, at) = gpu.record_set(encoder, &self.scratch, &buffers, &plan)?;
        // The next piece reuses the scratch before this one's count is read: a word of its own.
        let count = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgmerge set count"),
            size: 4,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_buffer_to_buffer(&kept, at, &count, 0, 4);
        Ok(Recorded {
            outputs: outputs.to_vec(),
            count: Some((count, 0)),
            words,
        })
    }

    fn check(&mut self, piece: &Piece, words: &[u32]) -> Result<(), Error> {
        let (a, b) = (
            (self.a, piece.inputs[0].start),
            (self.b, piece.inputs[1].start),
        );
        unsorted_either(a, b, words, self.options.order)
    }
}

/// Configurations the crate builds, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for operation in SetOperation::ALL {
        for key in KeyType::ALL {
            for order in [Order::Ascending, Order::Descending] {
                for value_size in [0, 4, 8] {
                    let tiling =
                        tuning::set_tiling(operation, key.size(), value_size > 0, |_| true)
                            .expect("a tiling");
                    for (wait, subgroups) in [(false, false), (true, true)] {
                        let kernel = SetKernel {
                            operation,
                            key,
                            order,
                            value_size,
                            tiling,
                            look_back: LookBack {
                                wait,
                                spins: look_back::SPINS,
                            },
                            subgroups,
                        };
                        out.push(crate::kernel_tests::Configuration {
                            kernel: &SET_TILES,
                            specialization: kernel.specialization(),
                            workgroup_memory: workgroup_memory(
                                tiling,
                                key,
                                value_size > 0,
                                subgroups,
                            ),
                        });
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_buffers::{submit_and_read, upload};

    /// The decoupled fallback with no patience: a tile whose look-back does not end at once
    /// decides its predecessors in its own workgroup memory, then its own tile again. Every
    /// operation, with values, must give what the CPU gives.
    #[test]
    fn fallback_gives_the_same_set_operation() {
        let gpu = Gpu::new().expect("an adapter (lavapipe in CI)");
        let (m, n) = (40_009, 33_001);
        let mut a: Vec<u32> = (0..m as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 17)
            .collect();
        let mut b: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_246_822_519) >> 17)
            .collect();
        a.sort_unstable();
        b.sort_unstable();
        let (a_index, b_index): (Vec<u32>, Vec<u32>) = (
            (0..m as u32).collect(),
            (m as u32..(m + n) as u32).collect(),
        );
        let upload = |words: &[u32]| upload(&gpu, words);
        let (a_keys, b_keys, a_values, b_values) =
            (upload(&a), upload(&b), upload(&a_index), upload(&b_index));
        let room: Vec<u32> = vec![0; m + n];
        let (out_keys, out_values) = (upload(&room), upload(&room));
        let scratch = gpu.create_scratch();
        let windows = [false, gpu.subgroups_fill(tuning::SET_TILING.0 .0)];
        let runs = SetOperation::ALL
            .into_iter()
            .flat_map(|op| windows.map(|w| (op, w)));
        for (operation, subgroups) in runs {
            let (want_keys, want_values) = crate::cpu::set_operation_pairs_ordered(
                operation,
                &a,
                &a_index,
                &b,
                &b_index,
                Order::Ascending,
            );
            let mut plan = gpu
                .plan_set(operation, KeyType::U32, (m, n), 4, Order::Ascending)
                .expect("planned");
            plan.kernel.look_back = LookBack::IMPATIENT;
            plan.kernel.subgroups = subgroups;
            let arrays = SetArrays {
                a: &a_keys,
                b: &b_keys,
                out: &out_keys,
                values: Some((&a_values, &b_values, &out_values)),
            };
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            let (count, at) = gpu
                .record_set(&mut encoder, &scratch, &arrays, &plan)
                .expect("recorded");
            let parts = [
                (&out_keys, 0, m + n),
                (&out_values, 0, m + n),
                (&count, at, 1),
            ];
            let got = submit_and_read(&gpu, encoder, &parts);
            let kept = got[2 * (m + n)] as usize;
            let what = format!("{operation:?}, subgroups {subgroups}");
            assert_eq!(kept, want_keys.len(), "{what}: count");
            assert!(got[..kept] == want_keys[..], "{what}: keys");
            let values = &got[m + n..m + n + kept];
            assert!(values == &want_values[..], "{what}: values");
        }
    }
}
