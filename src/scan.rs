//! Scan (prefix sums, minima, maxima) and reduction of `u32`, `i32` and `f32` arrays: the
//! reduction and Blelloch-scan steps of the radix-sort chapter this crate is built from, as a
//! public layer that set operations (and radix sort) build on. Kernels: `scan.wgsl`,
//! `reduce.wgsl`, with the workgroup-level scan from `lib/workgroup_scan/` (subgroup operations
//! where the adapter has them, workgroup memory otherwise).
//!
//! Strategies ([`ScanStrategy`]): a single pass with decoupled look-back and decoupled fallback
//! (safe on every adapter: no workgroup ever waits on another), the same waiting on predecessors
//! where the adapter is known to give forward progress, or reduce-then-scan (the input read
//! twice).

use bytemuck::Pod;

use crate::device::{dispatch, entry, whole, whole_vec4_bytes};
use crate::host::{self, Call, Piece, PieceWork, Recorded, ResultVec};
use crate::look_back::{self, MODE_FALLBACK, MODE_LOOK_BACK, SPINS};
use crate::ops::{ReduceOp, Scalar, ScanKind};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scratch::Scratch;
use crate::tuning::{self, SCAN_SHAPE};
use crate::{Error, Gpu};

/// How a scan finds each tile's prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanStrategy {
    /// One pass over the data: each tile looks its predecessors' published reductions up, and
    /// computes a predecessor's reduction from its input itself when it has not been published
    /// after a few reads (decoupled fallback), so no workgroup ever waits on another. Safe on
    /// every adapter; the default where waiting is not known to be safe.
    SinglePass,
    /// One pass, each tile waiting for its predecessors however long it takes (decoupled
    /// look-back). Only where the adapter is known to give workgroups forward progress (NVIDIA
    /// through Vulkan or DX12); [`Error::Unsupported`] elsewhere. The default there.
    LookBack,
    /// Three passes: reduce every tile, scan the reductions, scan every tile from its prefix.
    /// Reads the input twice; the same results from run to run for `f32` sums.
    ReduceThenScan,
}

/// How to scan or reduce. A plain struct: set the fields you need and take the rest from
/// `Default`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanOptions {
    /// The strategy; `None` takes [`ScanStrategy::LookBack`] where the adapter gives forward
    /// progress and [`ScanStrategy::SinglePass`] elsewhere. Reductions always read the input
    /// once and ignore it.
    pub strategy: Option<ScanStrategy>,
    /// Whether to use subgroup operations; `None` uses them where the device has them
    /// (`Features::SUBGROUP`). `Some(true)` on a device without them is
    /// [`Error::Unsupported`].
    pub subgroups: Option<bool>,
    /// Slice forms: the most elements one piece may hold (`None`: as many as one storage binding
    /// holds). Longer inputs go in pieces that carry the running total from one to the next.
    pub max_piece_len: Option<usize>,
}

/// The caller's GPU buffers for [`Gpu::encode_scan`]: `len` elements of the [`Scalar`] type the
/// call names, from offset 0 of each. Both need `STORAGE`, and must be different buffers.
#[derive(Clone, Copy, Debug)]
pub struct ScanBuffers<'a> {
    /// The elements.
    pub input: &'a wgpu::Buffer,
    /// Receives the scan.
    pub output: &'a wgpu::Buffer,
    /// Elements.
    pub len: usize,
}

/// The caller's GPU buffers for [`Gpu::encode_reduce`]: the result (one element) goes to offset
/// 0 of `output`, which needs `COPY_DST`; `input` needs `STORAGE`.
#[derive(Clone, Copy, Debug)]
pub struct ReduceBuffers<'a> {
    /// The elements.
    pub input: &'a wgpu::Buffer,
    /// Elements.
    pub len: usize,
    /// Receives the result.
    pub output: &'a wgpu::Buffer,
}

const SCAN_BINDINGS: &[(u32, wgpu::BufferBindingType)] =
    &[(0, UNIFORM), (1, READ), (2, WRITE), (3, WRITE), (4, WRITE)];

/// `scan` in scan.wgsl.
pub(crate) static SCAN: Kernel = Kernel {
    file: "scan",
    entry: "scan",
    bindings: SCAN_BINDINGS,
    value_bindings: &[],
};
/// `reduce_tiles` in reduce.wgsl.
pub(crate) static REDUCE_TILES: Kernel = Kernel {
    file: "reduce",
    entry: "reduce_tiles",
    bindings: &[(0, UNIFORM), (1, READ), (3, WRITE)],
    value_bindings: &[],
};
/// `reduce_partials` in reduce.wgsl.
pub(crate) static REDUCE_PARTIALS: Kernel = Kernel {
    file: "reduce",
    entry: "reduce_partials",
    bindings: &[(0, UNIFORM), (3, WRITE), (4, WRITE)],
    value_bindings: &[],
};

/// `MODE` in scan.wgsl.
const MODE_PREFIXES: u32 = 0;
/// `NO_CARRY` in scan.wgsl: nothing before this piece.
const NO_CARRY: u32 = u32::MAX;
/// `PREFIXES` in scan.wgsl: where tile prefixes start in `aux`, in words (256 bytes: a binding
/// offset every device allows).
const PREFIXES: u64 = 64;

/// `ScanParams` / `ReduceParams` in scan.wgsl and reduce.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, bytemuck::Zeroable)]
struct ScanParams {
    len: u32,
    tiles: u32,
    carry_in: u32,
    carry_out: u32,
}

/// Loop iterations an invocation of the single-pass scan runs a tile, for
/// [`tuning::most_tiles_within_loop_budget`]: the lanes' scan, the look-back's rounds and the
/// fallback's. On lavapipe a 2^24-element scan whose workgroups took up to 600 tiles each was
/// right and up to 900 wrong (its first workgroups take most tiles there): 73 to 109 iterations a
/// tile. At 128 tiles a workgroup the H100's 1024 workgroups are not held back (32 tiles each at
/// 2^28).
const LOOPS_PER_TILE: u32 = 128;

/// `MOST_TILES` of the single-pass scan.
fn most_tiles() -> u32 {
    tuning::most_tiles_within_loop_budget(LOOPS_PER_TILE)
}

/// What a scan or reduction is specialised for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Operator {
    element: u32,
    op: ReduceOp,
    subgroups: bool,
    /// `SPINS` (the tests set 0, so that every look-back that is not done at once falls back).
    spins: u32,
    /// Invocations per workgroup (tuning::scan_workgroup); a tile is this many times
    /// `SCAN_SHAPE.1` elements.
    workgroup: u32,
}

impl Operator {
    /// Elements of one tile.
    fn tile(self) -> usize {
        (self.workgroup * SCAN_SHAPE.1) as usize
    }

    fn specialization(self, vec4: bool, scan: Option<(u32, ScanKind)>) -> Specialization {
        let lanes = lanes_module(self.subgroups);
        let io = if vec4 {
            "lib/scan_io/vec4"
        } else {
            "lib/scan_io/scalar"
        };
        let mut constants = vec![
            ("WORKGROUP_SIZE", self.workgroup),
            ("OPERATOR", self.op.index()),
            ("ELEMENT", self.element),
        ];
        if let Some((mode, kind)) = scan {
            constants.extend([
                ("MODE", mode),
                ("EXCLUSIVE", u32::from(kind == ScanKind::Exclusive)),
                ("SPINS", self.spins),
                ("MOST_TILES", most_tiles()),
            ]);
        }
        Specialization {
            params: vec![
                ("lanes", lanes),
                ("io", io),
                ("look_back_window", look_back::window_module(self.subgroups)),
            ],
            constants,
            with_values: false,
        }
    }

    /// Workgroup memory of the scan kernels.
    fn workgroup_memory(self, scan: bool) -> u64 {
        let lanes = lanes_memory(self.subgroups, self.workgroup);
        lanes
            + if scan {
                look_back::workgroup_memory(self.subgroups)
            } else {
                0
            }
    }
}

/// The workgroup scan (`lanes`) that scan.wgsl, reduce.wgsl and lib/select.wgsl import: with
/// subgroup operations or in workgroup memory.
pub(crate) fn lanes_module(subgroups: bool) -> &'static str {
    if subgroups {
        "lib/workgroup_scan/subgroups"
    } else {
        "lib/workgroup_scan/plain"
    }
}

/// Bytes of workgroup memory of the `lanes` module in a workgroup of `workgroup` invocations.
pub(crate) fn lanes_memory(subgroups: bool, workgroup: u32) -> u64 {
    let workgroup = u64::from(workgroup);
    if subgroups {
        // Lanes taken, three words per group base, and the total.
        4 + workgroup * 12 + 4
    } else {
        workgroup * 16
    }
}

/// One array of a scan as bound: its buffer, first element and elements, and whether it may be
/// bound by whole vec4s (our own padded buffers, or a length that is a multiple of 4).
#[derive(Clone, Copy)]
struct Bound<'a> {
    buffer: &'a wgpu::Buffer,
    offset: u64,
    len: usize,
    padded: bool,
}

impl<'a> Bound<'a> {
    fn resource(self, vec4: bool) -> wgpu::BindingResource<'a> {
        let bytes = if vec4 {
            whole_vec4_bytes(self.len)
        } else {
            self.len as u64 * 4
        };
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: self.buffer,
            offset: self.offset * 4,
            size: wgpu::BufferSize::new(bytes.max(4)),
        })
    }

    fn vec4(self) -> bool {
        self.padded || self.len.is_multiple_of(4)
    }
}

/// Temporaries of one scan level, from the scratch: its look-back state, `aux` (running totals
/// and tile prefixes) and `partials` words: the tile reductions of reduce-then-scan or a
/// reduction's partial results (no more than needed, so small devices' buffers hold them).
fn temporaries(
    gpu: &Gpu,
    scratch: &Scratch,
    level: usize,
    tiles: usize,
    partials: usize,
) -> [wgpu::Buffer; 3] {
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
    let words = |n: usize| (n as u64 + 4) * 4;
    [
        scratch.temporary(&gpu.device, 3 * level, words(4 * tiles + 1), usage),
        scratch.temporary(
            &gpu.device,
            3 * level + 1,
            (PREFIXES + tiles as u64 + 4) * 4,
            usage,
        ),
        scratch.temporary(&gpu.device, 3 * level + 2, words(partials), usage),
    ]
}

impl Gpu {
    /// Whether the workgroup scan of a workgroup of `workgroup` invocations may use subgroups:
    /// the device has them, and a workgroup fills its subgroups
    /// (lib/workgroup_scan/subgroups.wgsl; an adapter that reports no size, 0, is taken at
    /// WebGPU's word: at most 128).
    pub(crate) fn subgroups_fill(&self, workgroup: u32) -> bool {
        self.has_subgroups() && self.adapter_info().subgroup_max_size <= workgroup
    }

    /// Whether to use subgroups, and the scan strategy, for `options`.
    fn scan_choice(&self, options: &ScanOptions) -> Result<(bool, ScanStrategy), Error> {
        let subgroups = match options.subgroups {
            Some(true) if !self.has_subgroups() => {
                return Err(Error::Unsupported(
                    "subgroups asked for, but the device has no Features::SUBGROUP".into(),
                ))
            }
            Some(on) => on,
            None => self.subgroups_fill(SCAN_SHAPE.0),
        };
        let strategy = match options.strategy {
            Some(ScanStrategy::LookBack) if !self.has_forward_progress() => {
                return Err(Error::Unsupported(format!(
                    "ScanStrategy::LookBack waits on other workgroups, and {} is not known to \
                     give them forward progress; ScanStrategy::SinglePass is safe everywhere",
                    self.adapter_info().name
                )))
            }
            Some(strategy) => strategy,
            None if self.has_forward_progress() => ScanStrategy::LookBack,
            None => ScanStrategy::SinglePass,
        };
        Ok((subgroups, strategy))
    }

    /// The most elements one scan or reduction dispatch takes: one binding.
    pub(crate) fn max_scan_len(&self) -> usize {
        let binding = self.max_binding_bytes() / 4;
        // Whole vec4s, and whole tiles of aligned pieces (pieces start at 256-byte offsets).
        usize::try_from(binding / 64 * 64)
            .unwrap_or(usize::MAX)
            .min(1 << 30)
    }

    /// Records a scan of `len` elements of `input` into `output` (one binding each): the running
    /// total from `carry.0` (a word of `aux`, or none) and the new one into word `carry.1`.
    #[allow(clippy::too_many_arguments)]
    fn record_scan_piece(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        (input, output): (Bound<'_>, Bound<'_>),
        operator: Operator,
        kind: ScanKind,
        strategy: ScanStrategy,
        carry: (u32, u32),
        level: usize,
    ) -> Result<(), Error> {
        let len = input.len;
        if len == 0 {
            return Ok(());
        }
        let tiles = len.div_ceil(operator.tile());
        // Reduce-then-scan's tile reductions: one per workgroup of a folded dispatch, which runs
        // a few more workgroups than tiles.
        let groups = self.dispatch_shape(tiles as u32)?;
        let reductions = match strategy {
            ScanStrategy::ReduceThenScan if tiles > 1 => (groups.0 * groups.1) as usize,
            _ => 0,
        };
        let [state, aux, partials] = temporaries(self, scratch, level, tiles, reductions);
        let vec4 = input.vec4() && output.vec4();
        let mode = match strategy {
            ScanStrategy::ReduceThenScan if tiles > 1 => {
                // Every tile's reduction, then their exclusive scan into aux's prefixes.
                let partials_bound = Bound {
                    buffer: &partials,
                    offset: 0,
                    len: tiles,
                    padded: true,
                };
                self.record_reduce_tiles(encoder, input, &partials, operator, vec4, groups)?;
                let prefixes = Bound {
                    buffer: &aux,
                    offset: PREFIXES,
                    len: tiles,
                    padded: true,
                };
                self.record_scan_piece(
                    encoder,
                    scratch,
                    (partials_bound, prefixes),
                    operator,
                    ScanKind::Exclusive,
                    strategy,
                    (NO_CARRY, 0),
                    level + 1,
                )?;
                MODE_PREFIXES
            }
            ScanStrategy::ReduceThenScan => MODE_PREFIXES,
            ScanStrategy::SinglePass => MODE_FALLBACK,
            ScanStrategy::LookBack => MODE_LOOK_BACK,
        };
        if mode != MODE_PREFIXES {
            // Published values start unset and the tile counter at 0.
            encoder.clear_buffer(&state, 0, Some(look_back::state_words(tiles) * 4));
        }
        let params = ScanParams {
            len: len as u32,
            tiles: tiles as u32,
            carry_in: carry.0,
            carry_out: carry.1,
        };
        let uniform = self.uniform("wgmerge scan params", bytemuck::bytes_of(&params));
        let bind_group = self.bind_group(
            &SCAN,
            false,
            &[
                whole(0, &uniform),
                entry(1, input.resource(vec4)),
                entry(2, output.resource(vec4)),
                whole(3, &state),
                whole(4, &aux),
            ],
        );
        let pipeline = self.pipeline(&SCAN, &operator.specialization(vec4, Some((mode, kind))))?;
        let groups = if mode == MODE_PREFIXES {
            tiles as u32
        } else {
            tuning::scan_single_pass_groups(tiles, operator.workgroup, most_tiles())
        };
        dispatch(
            encoder,
            "scan",
            &pipeline,
            &bind_group,
            self.dispatch_shape(groups)?,
        );
        Ok(())
    }

    /// Records reduce_tiles over `input` in `groups` workgroups into `partials`.
    fn record_reduce_tiles(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: Bound<'_>,
        partials: &wgpu::Buffer,
        operator: Operator,
        vec4: bool,
        groups: (u32, u32),
    ) -> Result<(), Error> {
        let params = ScanParams {
            len: input.len as u32,
            tiles: input.len.div_ceil(operator.tile()) as u32,
            carry_in: NO_CARRY,
            carry_out: 0,
        };
        let uniform = self.uniform("wgmerge reduce params", bytemuck::bytes_of(&params));
        let bind_group = self.bind_group(
            &REDUCE_TILES,
            false,
            &[
                whole(0, &uniform),
                entry(1, input.resource(vec4)),
                whole(3, partials),
            ],
        );
        let pipeline = self.pipeline(&REDUCE_TILES, &operator.specialization(vec4, None))?;
        dispatch(encoder, "reduce_tiles", &pipeline, &bind_group, groups);
        Ok(())
    }

    /// Records a reduction of `input` (one binding) into word `carry.1` of the top level's aux,
    /// after the running total in word `carry.0` (or none).
    fn record_reduce_piece(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        input: Bound<'_>,
        operator: Operator,
        carry: (u32, u32),
    ) -> Result<(), Error> {
        let vec4 = input.vec4();
        let groups = tuning::reduce_workgroups(input.len, operator.tile() as u32);
        let shape = self.dispatch_shape(groups)?;
        let partial_count = (shape.0 * shape.1) as usize;
        let [_, aux, partials] = temporaries(self, scratch, 0, 1, partial_count);
        if input.len > 0 {
            self.record_reduce_tiles(encoder, input, &partials, operator, vec4, shape)?;
        }
        let params = ScanParams {
            len: 0,
            // reduce_partials reads this many partials: none for an empty piece.
            tiles: if input.len > 0 { shape.0 * shape.1 } else { 0 },
            carry_in: carry.0,
            carry_out: carry.1,
        };
        let uniform = self.uniform("wgmerge reduce params", bytemuck::bytes_of(&params));
        let bind_group = self.bind_group(
            &REDUCE_PARTIALS,
            false,
            &[whole(0, &uniform), whole(3, &partials), whole(4, &aux)],
        );
        let pipeline = self.pipeline(&REDUCE_PARTIALS, &operator.specialization(vec4, None))?;
        dispatch(encoder, "reduce_partials", &pipeline, &bind_group, (1, 1));
        Ok(())
    }

    /// Checks a scan's or reduction's length and options; returns its operator and strategy.
    fn plan_scan<T: Scalar>(
        &self,
        op: ReduceOp,
        options: &ScanOptions,
    ) -> Result<(Operator, ScanStrategy), Error> {
        self.check_lost()?;
        let (subgroups, strategy) = self.scan_choice(options)?;
        let operator = Operator {
            element: T::ELEMENT,
            op,
            subgroups,
            spins: SPINS,
            workgroup: tuning::scan_workgroup(
                strategy != ScanStrategy::ReduceThenScan,
                self.device.limits().max_compute_invocations_per_workgroup,
            ),
        };
        self.check_workgroup_memory(operator.workgroup_memory(true), "scan")?;
        self.check_storage_buffers(&SCAN, false)?;
        if let Some(0) = options.max_piece_len {
            return Err(Error::InvalidOptions(
                "max_piece_len must be positive".into(),
            ));
        }
        Ok((operator, strategy))
    }

    /// The scan of `xs` under `op`: `kind` says whether `out[i]` includes `xs[i]`. Blocks; see
    /// [`Gpu::scan_async`].
    ///
    /// ```
    /// # let gpu = wgmerge::Gpu::new()?;
    /// use wgmerge::{ReduceOp, ScanKind};
    /// assert_eq!(gpu.scan(&[3u32, 1, 4], ScanKind::Inclusive, ReduceOp::Sum)?, [3, 4, 8]);
    /// assert_eq!(gpu.scan(&[3i32, 1, 4], ScanKind::Exclusive, ReduceOp::Max)?, [i32::MIN, 3, 3]);
    /// # Ok::<(), wgmerge::Error>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn scan<T: Scalar>(&self, xs: &[T], kind: ScanKind, op: ReduceOp) -> Result<Vec<T>, Error> {
        self.scan_with(xs, kind, op, &ScanOptions::default())
    }

    /// [`Gpu::scan`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn scan_with<T: Scalar>(
        &self,
        xs: &[T],
        kind: ScanKind,
        op: ReduceOp,
        options: &ScanOptions,
    ) -> Result<Vec<T>, Error> {
        self.block_on(self.scan_async(xs, kind, op, options))
    }

    /// [`Gpu::scan_with`] without blocking. Inputs longer than one storage binding go in pieces
    /// that carry the running total.
    pub async fn scan_async<T: Scalar>(
        &self,
        xs: &[T],
        kind: ScanKind,
        op: ReduceOp,
        options: &ScanOptions,
    ) -> Result<Vec<T>, Error> {
        let (operator, strategy) = self.plan_scan::<T>(op, options)?;
        let mut out = ResultVec::<T>::new(xs.len())?;
        if xs.is_empty() {
            return Ok(out.into_vec(0));
        }
        let call = self.scan_call(xs, options, 4)?;
        let mut work = ScanWork {
            scratch: self.create_scratch(),
            recorded: 0,
            operator,
            kind,
            strategy,
            reduce: false,
            pieces: call.pieces.len(),
        };
        let written = host::run(self, &call, &mut work, &mut [out.bytes()], &mut |_, _| {}).await?;
        Ok(out.into_vec(written))
    }

    /// The driver's call for a scan or reduction of `xs`: pieces of whole tiles, output bytes
    /// per element `out_size`.
    fn scan_call<'a, T: Scalar>(
        &self,
        xs: &'a [T],
        options: &ScanOptions,
        out_size: usize,
    ) -> Result<Call<'a>, Error> {
        let most = options
            .max_piece_len
            .unwrap_or(usize::MAX)
            .min(self.max_scan_len());
        let piece_len = if options.max_piece_len.is_some() {
            most
        } else {
            tuning::host_piece_len(xs.len(), most)
        };
        let reduce = out_size == 0;
        let pieces: Vec<Piece> = (0..xs.len())
            .step_by(piece_len)
            .map(|start| {
                let end = (start + piece_len).min(xs.len());
                let output = if !reduce {
                    start..end
                } else if end == xs.len() {
                    0..1
                } else {
                    0..0
                };
                Piece {
                    inputs: std::iter::once(start..end).collect(),
                    output,
                }
            })
            .collect();
        Ok(Call {
            inputs: vec![(bytemuck::cast_slice(xs), 4)],
            output_sizes: vec![4],
            input_room: vec![xs.len().min(piece_len)],
            output_room: if reduce { 1 } else { xs.len().min(piece_len) },
            pieces,
        })
    }

    /// The combination of every element of `xs` under `op` (the identity when `xs` is empty).
    /// Blocks; see [`Gpu::reduce_async`].
    ///
    /// ```
    /// # let gpu = wgmerge::Gpu::new()?;
    /// assert_eq!(gpu.reduce(&[3u32, 1, 4], wgmerge::ReduceOp::Sum)?, 8);
    /// assert_eq!(gpu.reduce(&[2.5f32, -1.0], wgmerge::ReduceOp::Min)?, -1.0);
    /// # Ok::<(), wgmerge::Error>(())
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reduce<T: Scalar>(&self, xs: &[T], op: ReduceOp) -> Result<T, Error> {
        self.reduce_with(xs, op, &ScanOptions::default())
    }

    /// [`Gpu::reduce`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reduce_with<T: Scalar>(
        &self,
        xs: &[T],
        op: ReduceOp,
        options: &ScanOptions,
    ) -> Result<T, Error> {
        self.block_on(self.reduce_async(xs, op, options))
    }

    /// [`Gpu::reduce_with`] without blocking.
    pub async fn reduce_async<T: Scalar>(
        &self,
        xs: &[T],
        op: ReduceOp,
        options: &ScanOptions,
    ) -> Result<T, Error> {
        let (operator, strategy) = self.plan_scan::<T>(op, options)?;
        if xs.is_empty() {
            return Ok(crate::cpu::identity(op));
        }
        let call = self.scan_call(xs, options, 0)?;
        let mut work = ScanWork {
            scratch: self.create_scratch(),
            recorded: 0,
            operator,
            kind: ScanKind::Inclusive,
            strategy,
            reduce: true,
            pieces: call.pieces.len(),
        };
        let mut out = ResultVec::<T>::new(1)?;
        let written = host::run(self, &call, &mut work, &mut [out.bytes()], &mut |_, _| {}).await?;
        out.into_vec(written)
            .first()
            .copied()
            .ok_or_else(|| Error::DeviceLost("the reduction's result was not read back".into()))
    }

    /// Records a scan of GPU-resident `buffers` into `encoder`; nothing is read back. Any length
    /// the buffers hold: beyond one storage binding the scan goes in pieces that carry the
    /// running total on the GPU.
    pub fn encode_scan<T: Scalar>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &ScanBuffers<'_>,
        kind: ScanKind,
        op: ReduceOp,
        options: &ScanOptions,
    ) -> Result<(), Error> {
        let (operator, strategy) = self.plan_scan::<T>(op, options)?;
        let len = buffers.len;
        self.check_arrays(&[
            ("input", buffers.input, len, 4, false),
            ("output", buffers.output, len, 4, true),
        ])?;
        let piece = self.resident_piece_len(options);
        self.checked(|| {
            let mut carry = NO_CARRY;
            for (index, start) in (0..len).step_by(piece.max(1)).enumerate() {
                let end = (start + piece).min(len);
                let bound = |buffer| Bound {
                    buffer,
                    offset: start as u64,
                    len: end - start,
                    padded: false,
                };
                let out = (index % 2) as u32;
                self.record_scan_piece(
                    encoder,
                    scratch,
                    (bound(buffers.input), bound(buffers.output)),
                    operator,
                    kind,
                    strategy,
                    (carry, out),
                    0,
                )?;
                carry = out;
            }
            Ok::<_, Error>(())
        })?
    }

    /// Records a reduction of GPU-resident `buffers.input` into the first element of
    /// `buffers.output`; nothing is read back. Any length the buffer holds.
    pub fn encode_reduce<T: Scalar>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &ReduceBuffers<'_>,
        op: ReduceOp,
        options: &ScanOptions,
    ) -> Result<(), Error> {
        let (operator, _) = self.plan_scan::<T>(op, options)?;
        let len = buffers.len;
        self.check_arrays(&[
            ("input", buffers.input, len, 4, false),
            ("output", buffers.output, 1, 4, true),
        ])?;
        if !buffers
            .output
            .usage()
            .contains(wgpu::BufferUsages::COPY_DST)
        {
            return Err(Error::MissingUsage {
                buffer: "output",
                needed: wgpu::BufferUsages::COPY_DST,
            });
        }
        let piece = self.resident_piece_len(options);
        self.checked(|| {
            let mut carry = NO_CARRY;
            let mut pieces = 0;
            for (index, start) in (0..len).step_by(piece.max(1)).enumerate() {
                let end = (start + piece).min(len);
                let input = Bound {
                    buffer: buffers.input,
                    offset: start as u64,
                    len: end - start,
                    padded: false,
                };
                let out = (index % 2) as u32;
                self.record_reduce_piece(encoder, scratch, input, operator, (carry, out))?;
                carry = out;
                pieces += 1;
            }
            if pieces == 0 {
                // The identity, from a reduction of nothing.
                let nothing = Bound {
                    buffer: buffers.input,
                    offset: 0,
                    len: 0,
                    padded: false,
                };
                self.record_reduce_piece(encoder, scratch, nothing, operator, (NO_CARRY, 0))?;
                carry = 0;
            }
            let aux = &temporaries(self, scratch, 0, 1, 0)[1];
            encoder.copy_buffer_to_buffer(aux, u64::from(carry) * 4, buffers.output, 0, 4);
            Ok::<_, Error>(())
        })?
    }

    /// Records a scan of `len` elements of wgmerge's own buffers, from word offsets (multiples
    /// of 64) of each, with room for whole vec4s: what set operations scan their counts with.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record_scan_into<T: Scalar>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        (input, input_at): (&wgpu::Buffer, u64),
        (output, output_at): (&wgpu::Buffer, u64),
        len: usize,
        kind: ScanKind,
        op: ReduceOp,
        options: &ScanOptions,
    ) -> Result<(), Error> {
        let (operator, strategy) = self.plan_scan::<T>(op, options)?;
        let bound = |buffer, offset| Bound {
            buffer,
            offset,
            len,
            padded: true,
        };
        self.record_scan_piece(
            encoder,
            scratch,
            (bound(input, input_at), bound(output, output_at)),
            operator,
            kind,
            strategy,
            (NO_CARRY, 0),
            0,
        )
    }

    /// Elements of each piece of a resident scan or reduction: one binding, whole tiles, at
    /// offsets every device can bind (256 bytes).
    fn resident_piece_len(&self, options: &ScanOptions) -> usize {
        let most = options
            .max_piece_len
            .unwrap_or(usize::MAX)
            .min(self.max_scan_len());
        // Pieces after the first start at multiples of 64 elements.
        if most >= 64 {
            most / 64 * 64
        } else {
            most
        }
    }
}

/// A slice-form scan or reduction, piece by piece: each piece carries the running total on the
/// GPU (the scratch's aux words, in turn) to the next.
struct ScanWork {
    scratch: Scratch,
    /// Pieces recorded so far (the driver records them in order).
    recorded: usize,
    operator: Operator,
    kind: ScanKind,
    strategy: ScanStrategy,
    reduce: bool,
    pieces: usize,
}

impl ScanWork {
    /// (carry in, carry out) words of piece `index`.
    fn carry(index: usize) -> (u32, u32) {
        let carry_in = if index == 0 {
            NO_CARRY
        } else {
            ((index - 1) % 2) as u32
        };
        (carry_in, (index % 2) as u32)
    }
}

impl PieceWork for ScanWork {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error> {
        let index = self.recorded;
        self.recorded += 1;
        let carry = ScanWork::carry(index);
        let input = Bound {
            buffer: &inputs[0],
            offset: 0,
            len: piece.inputs[0].len(),
            padded: true,
        };
        if self.reduce {
            gpu.record_reduce_piece(encoder, &self.scratch, input, self.operator, carry)?;
            if index + 1 == self.pieces {
                let aux = &temporaries(gpu, &self.scratch, 0, 1, 0)[1];
                encoder.copy_buffer_to_buffer(aux, u64::from(carry.1) * 4, &outputs[0], 0, 4);
            }
        } else {
            let output = Bound {
                buffer: &outputs[0],
                ..input
            };
            gpu.record_scan_piece(
                encoder,
                &self.scratch,
                (input, output),
                self.operator,
                self.kind,
                self.strategy,
                carry,
                0,
            )?;
        }
        Ok(Recorded::outputs(&[&outputs[0]]))
    }
}

/// Configurations the crate builds, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for element in [0, 1, 2] {
        for op in [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max] {
            for (subgroups, workgroup) in [(false, 256), (true, 256), (false, 512), (true, 512)] {
                let operator = Operator {
                    element,
                    op,
                    subgroups,
                    spins: SPINS,
                    workgroup,
                };
                for vec4 in [false, true] {
                    for mode in [MODE_PREFIXES, MODE_FALLBACK, MODE_LOOK_BACK] {
                        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                            out.push(crate::kernel_tests::Configuration {
                                kernel: &SCAN,
                                specialization: operator.specialization(vec4, Some((mode, kind))),
                                workgroup_memory: operator.workgroup_memory(true),
                            });
                        }
                    }
                    for kernel in [&REDUCE_TILES, &REDUCE_PARTIALS] {
                        out.push(crate::kernel_tests::Configuration {
                            kernel,
                            specialization: operator.specialization(vec4, None),
                            workgroup_memory: operator.workgroup_memory(false),
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

    /// The decoupled fallback with no patience: every tile whose look-back does not end at once
    /// computes its predecessors' reductions from their input. The result must not change.
    #[test]
    fn fallback_gives_the_same_scan() {
        let gpu = Gpu::new().expect("an adapter (lavapipe in CI)");
        let len = 300_007;
        let xs: Vec<u32> = (0..len as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 8)
            .collect();
        let input = upload(&gpu, &xs);
        let output = upload(&gpu, &vec![0; len]);
        let scratch = gpu.create_scratch();
        for subgroups in [false, gpu.has_subgroups()] {
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                let operator = Operator {
                    element: u32::ELEMENT,
                    op: ReduceOp::Max,
                    subgroups,
                    spins: 0,
                    workgroup: SCAN_SHAPE.0,
                };
                let bound = |buffer| Bound {
                    buffer,
                    offset: 0,
                    len,
                    padded: false,
                };
                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                gpu.record_scan_piece(
                    &mut encoder,
                    &scratch,
                    (bound(&input), bound(&output)),
                    operator,
                    kind,
                    ScanStrategy::SinglePass,
                    (NO_CARRY, 0),
                    0,
                )
                .expect("recorded");
                let got = submit_and_read(&gpu, encoder, &[(&output, 0, len)]);
                let want = crate::cpu::scan(&xs, kind, ReduceOp::Max);
                assert!(got == want, "subgroups {subgroups} {kind:?}: differs");
            }
        }
    }
}
