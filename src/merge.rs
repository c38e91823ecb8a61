//! Merging two sorted arrays on the GPU, in either order, optionally moving a 4- or 8-byte value
//! with each key: the API ([`Gpu::merge`] and its siblings, [`Gpu::encode_merge`]), the four
//! kernels (`merge_basic.wgsl`, `merge_tiled.wgsl`, `merge_circular.wgsl`, `merge_path.wgsl`) and
//! how a merge is planned and recorded. Slice forms go through the host driver (host.rs), cut
//! into pieces by the host's co-rank.

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};

use crate::device::{bind_elements, entry, whole, Gpu};
use crate::host::{
    self, element_sizes, expect_written, outputs_at, scaled, Call, Piece, PieceWork, Recorded,
    ResultVec,
};
use crate::key::{values_module, Key, KeyType, Order};
use crate::partition::Partition;
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scratch::Scratch;
use crate::tuning::{self, Shape};
use crate::validate::{unsorted_at, unsorted_either};
use crate::values::{check_value_size, HostValues};
use crate::{cpu, Error, Side};

/// Which merge kernel runs. Each is correct for every input; they differ in how work is split
/// and how often global memory is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Each invocation co-ranks its own output range over global memory and merges it.
    Basic,
    /// Workgroups co-rank once, stage A and B through workgroup memory one tile at a time.
    Tiled,
    /// The tiled kernel with ring-buffer tiles that reload only what was consumed.
    CircularBuffer,
    /// A partition pass co-ranks every workgroup's boundary in parallel, then each workgroup
    /// stages exactly its inputs in workgroup memory and writes its outputs coalesced: every key
    /// is read once and written once. The default.
    #[default]
    MergePath,
}

impl Algorithm {
    /// Every algorithm, for tests and benchmarks that sweep them.
    pub const ALL: [Algorithm; 4] = [
        Algorithm::Basic,
        Algorithm::Tiled,
        Algorithm::CircularBuffer,
        Algorithm::MergePath,
    ];

    /// Short name, as the examples and benchmarks take it on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Basic => "basic",
            Algorithm::Tiled => "tiled",
            Algorithm::CircularBuffer => "circular",
            Algorithm::MergePath => "merge-path",
        }
    }

    /// The algorithm [`Algorithm::name`] names.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// How to merge. A plain struct: set the fields you need and take the rest from `Default`.
///
/// ```
/// use wgmerge::{Algorithm, MergeOptions, Order};
/// let options = MergeOptions {
///     algorithm: Algorithm::CircularBuffer,
///     order: Order::Descending,
///     ..Default::default()
/// };
/// # let _ = options;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeOptions {
    /// The kernel.
    pub algorithm: Algorithm,
    /// The order both inputs are sorted in, and the output's.
    pub order: Order,
    /// Invocations per workgroup; `None` lets wgmerge choose for the device and the merge.
    pub workgroup_size: Option<u32>,
    /// Outputs each invocation merges per step (1 to 64); `None` lets wgmerge choose. The tiled
    /// kernels' tile holds `workgroup_size * items_per_thread` keys of each input.
    pub items_per_thread: Option<u32>,
    /// Tiled kernels and merge path: output tiles each workgroup merges (1 to 4096); `None`
    /// chooses from the input size. Values beyond what a workgroup can run within llvmpipe's
    /// loop budget are clamped.
    pub tiles_per_workgroup: Option<u32>,
    /// Slice forms: the most merged keys one piece may hold. Inputs whose merge is longer are
    /// split by co-rank into pieces that are uploaded, merged and read back in turn, so GPU
    /// memory use stays bounded. `None` lets wgmerge choose (pieces of at most one storage
    /// binding).
    pub max_piece_len: Option<usize>,
    /// Slice forms: check on the GPU that both inputs are sorted in `order` before trusting the
    /// merge, returning [`Error::Unsorted`] with the first out-of-order keys if not. Costs one
    /// extra read of the inputs. The resident forms cannot report it without a readback and
    /// return [`Error::InvalidOptions`] when this is set.
    pub validate: bool,
}

impl MergeOptions {
    /// The resident forms cannot check sortedness: the slice forms report where with a readback.
    pub(crate) fn refuse_validate(&self) -> Result<(), Error> {
        if self.validate {
            return Err(Error::InvalidOptions(
                "validate needs a readback: use the slice forms (merge_with, merge_pairs_with)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The longest piece a merge in pieces may take where the device allows `device_max` keys.
    pub(crate) fn piece_len(&self, device_max: usize) -> Result<usize, Error> {
        host::piece_len(self.max_piece_len, device_max)
    }
}

/// `MergeParams` in lib/merge_io.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct MergeParams {
    pub(crate) a_len: u32,
    pub(crate) b_len: u32,
    pub(crate) tiles_per_group: u32,
    pub(crate) run_len: u32,
}

/// Bindings of every merge kernel: parameters, A, B and the output's keys; then A's, B's and the
/// output's values (lib/values/common.wgsl).
pub(crate) const MERGE_BINDINGS: &[(u32, wgpu::BufferBindingType)] =
    &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE)];
pub(crate) const VALUE_BINDINGS: &[(u32, wgpu::BufferBindingType)] =
    &[(4, READ), (5, READ), (6, WRITE)];

/// `merge_basic` in merge_basic.wgsl.
pub(crate) static MERGE_BASIC: Kernel = Kernel {
    file: "merge_basic",
    entry: "merge_basic",
    bindings: MERGE_BINDINGS,
    value_bindings: VALUE_BINDINGS,
};
/// `merge_tiled` in merge_tiled.wgsl.
pub(crate) static MERGE_TILED: Kernel = Kernel {
    file: "merge_tiled",
    entry: "merge_tiled",
    bindings: MERGE_BINDINGS,
    value_bindings: VALUE_BINDINGS,
};
/// `merge_circular` in merge_circular.wgsl.
pub(crate) static MERGE_CIRCULAR: Kernel = Kernel {
    file: "merge_circular",
    entry: "merge_circular",
    bindings: MERGE_BINDINGS,
    value_bindings: VALUE_BINDINGS,
};
/// Merge path's bindings: the merge's, and the partition's splits.
const MERGE_PATH_BINDINGS: &[(u32, wgpu::BufferBindingType)] =
    &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE), (7, WRITE)];
/// `merge_path` in merge_path.wgsl: one tile per workgroup.
pub(crate) static MERGE_PATH: Kernel = Kernel {
    file: "merge_path",
    entry: "merge_path",
    bindings: MERGE_PATH_BINDINGS,
    value_bindings: VALUE_BINDINGS,
};
/// `merge_path_tiles`: a fixed run of tiles per workgroup.
pub(crate) static MERGE_PATH_TILES: Kernel = Kernel {
    file: "merge_path",
    entry: "merge_path_tiles",
    bindings: MERGE_PATH_BINDINGS,
    value_bindings: VALUE_BINDINGS,
};
/// `merge_path_tiles` over segments the host lists (lib/tiling/table.wgsl, binding 9): the
/// many-way merge's passes.
pub(crate) static MERGE_PATH_TILES_TABLE: Kernel = Kernel {
    file: "merge_path",
    entry: "merge_path_tiles",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (2, READ),
        (3, WRITE),
        (7, WRITE),
        (9, READ),
    ],
    value_bindings: VALUE_BINDINGS,
};
/// `merge_path_chunks`: chunks of tiles taken from a counter (binding 8).
pub(crate) static MERGE_PATH_CHUNKS: Kernel = Kernel {
    file: "merge_path",
    entry: "merge_path_chunks",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (2, READ),
        (3, WRITE),
        (7, WRITE),
        (8, WRITE),
    ],
    value_bindings: VALUE_BINDINGS,
};

/// The kernel an algorithm runs with one tile per workgroup.
fn kernel_of(algorithm: Algorithm) -> &'static Kernel {
    match algorithm {
        Algorithm::Basic => &MERGE_BASIC,
        Algorithm::Tiled => &MERGE_TILED,
        Algorithm::CircularBuffer => &MERGE_CIRCULAR,
        Algorithm::MergePath => &MERGE_PATH,
    }
}

/// Whether `kernel` is one of merge path's merge passes.
fn is_merge_path(kernel: &Kernel) -> bool {
    kernel.file == "merge_path"
}

/// Bytes of workgroup memory a merge kernel uses in `shape` for `key` keys with values of
/// `value_size` bytes.
pub(crate) fn workgroup_memory(
    kernel: &Kernel,
    shape: Shape,
    key: KeyType,
    value_size: u32,
) -> u64 {
    let tile = u64::from(shape.0) * u64::from(shape.1);
    let key = u64::from(key.size());
    if std::ptr::eq(kernel, &MERGE_BASIC) {
        return 0;
    }
    if !is_merge_path(kernel) {
        // Two tiles of keys and the two co-rank results shared by the workgroup.
        return tile * key * 2 + 8;
    }
    // One tile of keys, which keys-only merges reuse for their output; with values, each
    // output's slot (4 bytes); merge_path_chunks' chunk taken next.
    let slots = if value_size > 0 { tile * 4 } else { 0 };
    let chunk = if std::ptr::eq(kernel, &MERGE_PATH_CHUNKS) {
        4
    } else {
        0
    };
    tile * key + slots + chunk
}

/// The specialization of a merge kernel; `one_buffer` where a merge path pass reads A's buffer
/// bound again as B ([`MergePlan::segmented`]).
pub(crate) fn specialization(
    kernel: &Kernel,
    shape: Shape,
    key: KeyType,
    order: Order,
    value_size: u32,
    one_buffer: bool,
) -> Specialization {
    let mut params = vec![("key", key.module()), ("values", values_module(value_size))];
    let mut constants = vec![
        ("WORKGROUP_SIZE", shape.0),
        ("ITEMS_PER_THREAD", shape.1),
        ("DESCENDING", u32::from(order == Order::Descending)),
    ];
    if is_merge_path(kernel) {
        let stage = if value_size > 0 {
            "lib/merge_path/pairs"
        } else {
            "lib/merge_path/keys"
        };
        params.push(("stage", stage));
        let table = std::ptr::eq(kernel, &MERGE_PATH_TILES_TABLE);
        params.push(("tiling", crate::partition::tiling_module(table)));
        constants.push(("MOST_TILES", tuning::most_tiles_per_workgroup(shape.1)));
        constants.push(("ONE_BUFFER", u32::from(one_buffer)));
    }
    Specialization {
        params,
        constants,
        with_values: value_size > 0,
    }
}

/// The caller's GPU buffers for [`Gpu::encode_merge`]. Keys are of the [`Key`] type the call
/// names, tightly packed from offset 0.
///
/// Required usages: `STORAGE` on every buffer (plus whatever the caller needs to fill or read
/// them, such as `COPY_DST` or `COPY_SRC`). `out` must hold `a_len + b_len` keys and be a buffer
/// of its own (A and B may share one). A buffer whose length is 0 is never bound and may be of
/// any size.
#[derive(Clone, Copy, Debug)]
pub struct MergeBuffers<'a> {
    /// Sorted keys of A.
    pub a: &'a wgpu::Buffer,
    /// Keys in `a`.
    pub a_len: usize,
    /// Sorted keys of B.
    pub b: &'a wgpu::Buffer,
    /// Keys in `b`.
    pub b_len: usize,
    /// Receives the merged keys.
    pub out: &'a wgpu::Buffer,
    /// Values moved with the keys, if any.
    pub values: Option<ValueBuffers<'a>>,
}

/// Values moving with the keys in [`MergeBuffers`] and [`SetBuffers`](crate::SetBuffers): one
/// per key of A, of B and of the output,
/// with the same usages as the key buffers.
#[derive(Clone, Copy, Debug)]
pub struct ValueBuffers<'a> {
    /// Values of A.
    pub a: &'a wgpu::Buffer,
    /// Values of B.
    pub b: &'a wgpu::Buffer,
    /// Receives the merged values.
    pub out: &'a wgpu::Buffer,
    /// Bytes per value: 4 or 8.
    pub value_size: u32,
}

/// One array a resident operation binds: its name, buffer, elements, bytes each, and whether the
/// operation writes it.
pub(crate) type Array<'a> = (&'static str, &'a wgpu::Buffer, usize, u32, bool);

impl<'a> MergeBuffers<'a> {
    /// Every array, with keys of `key_size` bytes.
    pub(crate) fn arrays(&self, key_size: u32) -> Vec<Array<'a>> {
        let total = self.a_len + self.b_len;
        let mut arrays = vec![
            ("a", self.a, self.a_len, key_size, false),
            ("b", self.b, self.b_len, key_size, false),
            ("out", self.out, total, key_size, true),
        ];
        if let Some(v) = &self.values {
            arrays.extend([
                ("a values", v.a, self.a_len, v.value_size, false),
                ("b values", v.b, self.b_len, v.value_size, false),
                ("out values", v.out, total, v.value_size, true),
            ]);
        }
        arrays
    }
}

/// A merge checked against the device and ready to record.
#[derive(Clone, Debug)]
pub(crate) struct MergePlan {
    pub(crate) kernel: &'static Kernel,
    pub(crate) key: KeyType,
    pub(crate) value_size: u32,
    pub(crate) shape: Shape,
    pub(crate) order: Order,
    pub(crate) params: MergeParams,
    pub(crate) dispatch: (u32, u32),
    /// Merge path's partition pass.
    pub(crate) partition: Option<Partition>,
    /// The segments of a pass over segments the host lists (lib/tiling/table.wgsl).
    pub(crate) segment_table: Option<wgpu::Buffer>,
}

impl MergePlan {
    fn is_empty(&self) -> bool {
        self.params.a_len == 0 && self.params.b_len == 0
    }

    /// Outputs per tile.
    pub(crate) fn tile(&self) -> u32 {
        self.shape.0 * self.shape.1
    }

    /// Whether the pass runs many merges within A, bound again as B: merge sort's segments of
    /// run_len, or segments listed in a table.
    pub(crate) fn segmented(&self) -> bool {
        self.params.run_len > 0 || self.segment_table.is_some()
    }

    /// The merge kernel's specialization.
    fn specialization(&self) -> Specialization {
        specialization(
            self.kernel,
            self.shape,
            self.key,
            self.order,
            self.value_size,
            self.segmented(),
        )
    }

    /// This merge path merge of A alone, as a pass over segments of A listed in `table`
    /// (lib/tiling/table.wgsl: each segment's tiles of [`MergePlan::tile`] outputs from its
    /// start, `tiles` in all).
    pub(crate) fn over_segments(
        &self,
        gpu: &Gpu,
        table: &wgpu::Buffer,
        tiles: u32,
    ) -> Result<MergePlan, Error> {
        let kernel = &MERGE_PATH_TILES_TABLE;
        let with_values = self.value_size > 0;
        gpu.check_storage_buffers(kernel, with_values)?;
        let partition = match &self.partition {
            Some(partition) => partition.clone().with_segment_table(gpu, tiles)?,
            None => {
                return Err(Error::Validation(
                    "wgmerge: only merge path merges over segments".into(),
                ))
            }
        };
        let tiles_per_group = self.params.tiles_per_group;
        Ok(MergePlan {
            kernel,
            params: MergeParams {
                b_len: 0,
                run_len: 0,
                ..self.params
            },
            dispatch: gpu.dispatch_shape(tiles.div_ceil(tiles_per_group))?,
            partition: Some(partition),
            segment_table: Some(table.clone()),
            ..self.clone()
        })
    }
}

impl Gpu {
    /// Merges sorted `a` and `b` with the default options: upload, merge, read back.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge<K: Key>(&self, a: &[K], b: &[K]) -> Result<Vec<K>, Error> {
        self.merge_with(a, b, &MergeOptions::default())
    }

    /// Merges sorted `a` and `b` with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_with<K: Key>(
        &self,
        a: &[K],
        b: &[K],
        options: &MergeOptions,
    ) -> Result<Vec<K>, Error> {
        self.block_on(self.merge_async(a, b, options))
    }

    /// [`Gpu::merge_with`], calling `progress(merged, total)` after each piece (see
    /// [`MergeOptions::max_piece_len`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_with_progress<K: Key>(
        &self,
        a: &[K],
        b: &[K],
        options: &MergeOptions,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<Vec<K>, Error> {
        let mut keys = ResultVec::new(a.len() + b.len())?;
        let written = self.block_on(self.merge_host(
            a,
            b,
            None,
            options,
            &mut [keys.bytes()],
            &mut progress,
        ))?;
        Ok(keys.into_vec(written))
    }

    /// Merges sorted `a` and `b` with `options`, without blocking: the future completes from the
    /// GPU's callbacks (native targets poll the device from a thread of the [`Gpu`]'s own).
    ///
    /// The merge is stable: equal keys keep A's before B's. If an input is not sorted the result
    /// is unspecified, but it has `a.len() + b.len()` keys and no invocation reads or writes out
    /// of bounds.
    pub async fn merge_async<K: Key>(
        &self,
        a: &[K],
        b: &[K],
        options: &MergeOptions,
    ) -> Result<Vec<K>, Error> {
        let mut keys = ResultVec::new(a.len() + b.len())?;
        let written = self
            .merge_host(a, b, None, options, &mut [keys.bytes()], &mut |_, _| {})
            .await?;
        Ok(keys.into_vec(written))
    }

    /// Merges sorted `a` and `b` into `out`, which must hold exactly `a.len() + b.len()` keys:
    /// the readback writes straight into it, with no allocation for the result.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_into<K: Key>(
        &self,
        a: &[K],
        b: &[K],
        out: &mut [K],
        options: &MergeOptions,
    ) -> Result<(), Error> {
        self.block_on(self.merge_into_async(a, b, out, options))
    }

    /// [`Gpu::merge_into`] without blocking.
    pub async fn merge_into_async<K: Key>(
        &self,
        a: &[K],
        b: &[K],
        out: &mut [K],
        options: &MergeOptions,
    ) -> Result<(), Error> {
        check_out_len("out", out.len(), a.len() + b.len())?;
        let mut destinations = [host::as_destination(out)];
        self.merge_host(a, b, None, options, &mut destinations, &mut |_, _| {})
            .await?;
        Ok(())
    }

    /// Merges sorted keys and moves each key's value with it (stable: on equal keys A's pairs
    /// come first).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_pairs<K: Key, V: Pod>(
        &self,
        a_keys: &[K],
        a_values: &[V],
        b_keys: &[K],
        b_values: &[V],
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.merge_pairs_with(a_keys, a_values, b_keys, b_values, &MergeOptions::default())
    }

    /// [`Gpu::merge_pairs`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_pairs_with<K: Key, V: Pod>(
        &self,
        a_keys: &[K],
        a_values: &[V],
        b_keys: &[K],
        b_values: &[V],
        options: &MergeOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.block_on(self.merge_pairs_async(a_keys, a_values, b_keys, b_values, options))
    }

    /// [`Gpu::merge_pairs_with`], calling `progress(merged, total)` after each piece.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_pairs_with_progress<K: Key, V: Pod>(
        &self,
        a_keys: &[K],
        a_values: &[V],
        b_keys: &[K],
        b_values: &[V],
        options: &MergeOptions,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.block_on(self.merge_pairs_inner(
            (a_keys, a_values),
            (b_keys, b_values),
            options,
            &mut progress,
        ))
    }

    /// [`Gpu::merge_pairs`] without blocking. Values must be 4 bytes (`u32`, `i32`, `f32`, or
    /// any 4-byte `Pod`) or 8 bytes (`u64`, `f64`, `[u32; 2]`, ...); keys and values of one
    /// input must have the same length.
    pub async fn merge_pairs_async<K: Key, V: Pod>(
        &self,
        a_keys: &[K],
        a_values: &[V],
        b_keys: &[K],
        b_values: &[V],
        options: &MergeOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.merge_pairs_inner(
            (a_keys, a_values),
            (b_keys, b_values),
            options,
            &mut |_, _| {},
        )
        .await
    }

    /// Merges sorted pairs into `out_keys` and `out_values`, which must each hold exactly as
    /// many elements as both inputs together.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_pairs_into<K: Key, V: Pod>(
        &self,
        (a_keys, a_values): (&[K], &[V]),
        (b_keys, b_values): (&[K], &[V]),
        (out_keys, out_values): (&mut [K], &mut [V]),
        options: &MergeOptions,
    ) -> Result<(), Error> {
        let values = HostValues::of(a_keys, a_values, b_keys, b_values)?;
        let total = a_keys.len() + b_keys.len();
        check_out_len("out keys", out_keys.len(), total)?;
        check_out_len("out values", out_values.len(), total)?;
        let mut destinations = [
            host::as_destination(out_keys),
            host::as_destination(out_values),
        ];
        self.block_on(self.merge_host(
            a_keys,
            b_keys,
            Some(values),
            options,
            &mut destinations,
            &mut |_, _| {},
        ))?;
        Ok(())
    }

    async fn merge_pairs_inner<K: Key, V: Pod>(
        &self,
        (a_keys, a_values): (&[K], &[V]),
        (b_keys, b_values): (&[K], &[V]),
        options: &MergeOptions,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        let values = HostValues::of(a_keys, a_values, b_keys, b_values)?;
        let total = a_keys.len() + b_keys.len();
        let mut keys = ResultVec::<K>::new(total)?;
        let mut out_values = ResultVec::<V>::new(total)?;
        let written = self
            .merge_host(
                a_keys,
                b_keys,
                Some(values),
                options,
                &mut [keys.bytes(), out_values.bytes()],
                progress,
            )
            .await?;
        Ok((keys.into_vec(written), out_values.into_vec(written)))
    }

    /// Records a merge of GPU-resident buffers of `K` keys into `encoder`; nothing is read back.
    /// The merge runs when the caller submits the encoder. Inputs, output and options are
    /// checked here; see [`MergeBuffers`] for the buffers' requirements and [`Scratch`] for the
    /// scratch. The merged length must fit one storage binding of the device
    /// ([`Gpu::max_merge_len`]); the slice forms and [`Gpu::merge_resident`] split longer merges
    /// into pieces.
    pub fn encode_merge<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &MergeBuffers<'_>,
        options: &MergeOptions,
    ) -> Result<(), Error> {
        let value_size = self.check_resident_merge(buffers, options)?;
        let plan = self.plan_merge(K::TYPE, buffers.a_len, buffers.b_len, value_size, options)?;
        self.check_arrays(&buffers.arrays(K::TYPE.size()))?;
        self.record_merge(encoder, scratch, buffers, &plan)
    }

    /// What every merge of GPU-resident buffers checks before any work: the device is not lost,
    /// validation is not asked for (it reads the inputs on the host), and the value size, which it
    /// returns.
    pub(crate) fn check_resident_merge(
        &self,
        buffers: &MergeBuffers<'_>,
        options: &MergeOptions,
    ) -> Result<u32, Error> {
        self.check_lost()?;
        options.refuse_validate()?;
        check_value_size(buffers.values.map_or(0, |v| v.value_size))
    }

    /// The longest merge (in keys) one dispatch can do on this device for `key` keys with values
    /// of `value_size` bytes (0 for none): what one storage binding holds.
    pub fn max_merge_len(&self, key: KeyType, value_size: u32) -> usize {
        let widest = u64::from(key.size().max(value_size));
        let binding = usize::try_from(self.max_binding_bytes() / widest).unwrap_or(usize::MAX);
        tuning::MAX_MERGED_LEN.min(binding)
    }

    /// Checks a kernel shape against the device: invocations per workgroup and items per
    /// invocation.
    pub(crate) fn check_shape(
        &self,
        (workgroup_size, items_per_thread): Shape,
    ) -> Result<(), Error> {
        let limits = self.device.limits();
        let max_workgroup = limits
            .max_compute_invocations_per_workgroup
            .min(limits.max_compute_workgroup_size_x);
        if workgroup_size == 0 || workgroup_size > max_workgroup {
            return Err(Error::InvalidOptions(format!(
                "workgroup_size {workgroup_size} is outside 1..={max_workgroup} on this device"
            )));
        }
        let max_items = tuning::MAX_ITEMS_PER_THREAD;
        if items_per_thread == 0 || items_per_thread > max_items {
            return Err(Error::InvalidOptions(format!(
                "items_per_thread {items_per_thread} is outside 1..={max_items}"
            )));
        }
        Ok(())
    }

    /// The shape of a merge of `total` keys when the options name none (tuning.rs).
    /// Whether merge path in a shape fits the device: its invocations and workgroup memory.
    pub(crate) fn merge_path_fits(&self, key: KeyType, value_size: u32) -> impl Fn(Shape) -> bool {
        let limits = self.device.limits();
        move |shape: Shape| {
            shape.0 <= limits.max_compute_invocations_per_workgroup
                && shape.0 <= limits.max_compute_workgroup_size_x
                && workgroup_memory(&MERGE_PATH_CHUNKS, shape, key, value_size)
                    <= u64::from(limits.max_compute_workgroup_storage_size)
        }
    }

    fn merge_shape(
        &self,
        algorithm: Algorithm,
        key: KeyType,
        total: usize,
        value_size: u32,
    ) -> Shape {
        match algorithm {
            Algorithm::MergePath => tuning::merge_path_shape(
                key.size(),
                value_size,
                total,
                self.merge_path_fits(key, value_size),
            ),
            Algorithm::Basic => tuning::book_shape(false, key),
            Algorithm::Tiled | Algorithm::CircularBuffer => tuning::book_shape(true, key),
        }
    }

    /// Checks lengths and options against the device and chooses the kernel and dispatch.
    pub(crate) fn plan_merge(
        &self,
        key: KeyType,
        a_len: usize,
        b_len: usize,
        value_size: u32,
        options: &MergeOptions,
    ) -> Result<MergePlan, Error> {
        let total = a_len + b_len;
        let chosen = self.merge_shape(options.algorithm, key, total, value_size);
        let shape = (
            options.workgroup_size.unwrap_or(chosen.0),
            options.items_per_thread.unwrap_or(chosen.1),
        );
        self.check_shape(shape)?;
        let with_values = value_size > 0;
        let kernel = kernel_of(options.algorithm);
        let bytes = workgroup_memory(kernel, shape, key, value_size);
        let per_step = u64::from(shape.0) * u64::from(shape.1);
        self.check_workgroup_memory(
            bytes,
            &format!(
                "{} with {per_step} {} keys per step",
                options.algorithm.name(),
                key.name()
            ),
        )?;
        self.check_storage_buffers(kernel, with_values)?;

        let max_len = self.max_merge_len(key, value_size);
        if total > max_len {
            return Err(Error::TooLarge {
                what: "merged output",
                len: total,
                max: max_len,
            });
        }

        let tiles_per_group = match options.tiles_per_workgroup {
            Some(t) if t == 0 || t > tuning::MAX_TILES_PER_WORKGROUP => {
                return Err(Error::InvalidOptions(format!(
                    "tiles_per_workgroup {t} is outside 1..={}",
                    tuning::MAX_TILES_PER_WORKGROUP
                )))
            }
            Some(t) => t,
            None if options.algorithm == Algorithm::MergePath => {
                tuning::merge_path_tiles_per_workgroup(total, shape.1, with_values)
            }
            None => tuning::book_tiles_per_workgroup(total, per_step as u32),
        }
        .min(tuning::most_tiles_per_workgroup(shape.1));
        let kernel: &'static Kernel = match options.algorithm {
            // Keys-only merges take their tiles from a counter (run 40: 3% faster at 2^26),
            // where the device allows its fifth storage buffer; merges with values take fixed
            // runs of tiles (chunks are 9% slower for them: run 39).
            Algorithm::MergePath
                if tiles_per_group > 1
                    && !with_values
                    && self
                        .check_storage_buffers(&MERGE_PATH_CHUNKS, false)
                        .is_ok() =>
            {
                &MERGE_PATH_CHUNKS
            }
            Algorithm::MergePath if tiles_per_group > 1 => &MERGE_PATH_TILES,
            _ => kernel,
        };
        let tiles =
            u32::try_from((total as u64).div_ceil(per_step)).map_err(|_| Error::TooLarge {
                what: "workgroups in one dispatch",
                len: total,
                max: max_len,
            })?;
        // merge_path_chunks dispatches one workgroup per chunk; the tiled kernels and
        // merge_path_tiles one per run of tiles.
        let workgroups = if std::ptr::eq(kernel, &MERGE_BASIC) || std::ptr::eq(kernel, &MERGE_PATH)
        {
            tiles
        } else {
            tiles.div_ceil(tiles_per_group)
        };
        let partition = if is_merge_path(kernel) {
            let chunks = std::ptr::eq(kernel, &MERGE_PATH_CHUNKS);
            Some(Partition::plan(
                self,
                key,
                options.order,
                (a_len, b_len),
                per_step as u32,
                0,
                chunks,
            )?)
        } else {
            None
        };
        Ok(MergePlan {
            kernel,
            key,
            value_size,
            shape,
            order: options.order,
            params: MergeParams {
                a_len: a_len as u32,
                b_len: b_len as u32,
                tiles_per_group,
                run_len: 0,
            },
            dispatch: self.dispatch_shape(workgroups)?,
            partition,
            segment_table: None,
        })
    }

    /// Records a planned merge. Empty inputs and absent values are bound to the placeholder.
    /// Returns [`Error::Validation`] (recording nothing) where the caller's buffers cannot be
    /// bound.
    pub(crate) fn record_merge(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &MergeBuffers<'_>,
        plan: &MergePlan,
    ) -> Result<(), Error> {
        if plan.is_empty() {
            return Ok(());
        }
        let params = self.uniform("wgmerge merge params", bytemuck::bytes_of(&plan.params));
        let prepared = self.checked(|| self.prepare_merge(&params, scratch, buffers, plan))??;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(plan.kernel.entry),
            timestamp_writes: None,
        });
        prepared.record(&mut pass);
        Ok(())
    }

    /// The pipelines and bind groups of a planned merge: merge path's partition (if any), then
    /// the merge.
    pub(crate) fn prepare_merge(
        &self,
        params: &wgpu::Buffer,
        scratch: &Scratch,
        buffers: &MergeBuffers<'_>,
        plan: &MergePlan,
    ) -> Result<PreparedMerge, Error> {
        let total = buffers.a_len + buffers.b_len;
        // Sort's and the many-way merge's passes read both runs of each pair from A's buffer,
        // bound again as B.
        let b_len = if plan.segmented() {
            buffers.a_len
        } else {
            buffers.b_len
        };
        let placeholder = scratch.placeholder();
        let key_size = plan.key.size();
        let bind = |buffer, len, size| bind_elements(buffer, 0, len, size, placeholder);
        let splits = plan
            .partition
            .as_ref()
            .map(|p| scratch.splits(&self.device, u64::from(p.words()) * 4));
        let partition = match (&plan.partition, &splits) {
            (Some(partition), Some(splits)) => Some(partition.prepare(
                self,
                (
                    bind(buffers.a, buffers.a_len, key_size),
                    bind(buffers.b, b_len, key_size),
                ),
                splits,
                Some(&scratch.chunk_counter),
                plan.segment_table.as_ref(),
            )?),
            _ => None,
        };
        let mut entries = vec![
            whole(0, params),
            entry(1, bind(buffers.a, buffers.a_len, key_size)),
            entry(2, bind(buffers.b, b_len, key_size)),
            entry(3, bind(buffers.out, total, key_size)),
        ];
        if let Some(v) = &buffers.values {
            entries.extend([
                entry(4, bind(v.a, buffers.a_len, v.value_size)),
                entry(5, bind(v.b, b_len, v.value_size)),
                entry(6, bind(v.out, total, v.value_size)),
            ]);
        }
        if let Some(splits) = &splits {
            entries.push(whole(7, splits));
            if std::ptr::eq(plan.kernel, &MERGE_PATH_CHUNKS) {
                entries.push(whole(8, &scratch.chunk_counter));
            }
        }
        if let Some(table) = &plan.segment_table {
            entries.push(whole(9, table));
        }
        let with_values = buffers.values.is_some();
        Ok(PreparedMerge {
            partition,
            pipeline: self.pipeline(plan.kernel, &plan.specialization())?,
            bind_group: self.bind_group(plan.kernel, with_values, &entries),
            dispatch: plan.dispatch,
        })
    }

    /// Checks every array a resident operation binds: its buffer belongs to this device, has
    /// `STORAGE` and room for its elements, and no written array shares a buffer with another.
    pub(crate) fn check_arrays(&self, arrays: &[Array<'_>]) -> Result<(), Error> {
        for &(name, buffer, len, size, _) in arrays {
            check_buffer(name, buffer, len, size)?;
        }
        for (i, &(first, buffer, len, _, written)) in arrays.iter().enumerate() {
            for &(second, other, other_len, _, other_written) in &arrays[i + 1..] {
                if len > 0 && other_len > 0 && (written || other_written) && buffer == other {
                    let (first, second) = if other_written {
                        (first, second)
                    } else {
                        (second, first)
                    };
                    return Err(Error::Aliased { first, second });
                }
            }
        }
        for &(name, buffer, len, _, _) in arrays {
            if len > 0 {
                self.check_owned(name, buffer)?;
            }
        }
        Ok(())
    }
}

/// A merge's pipelines and bind groups, ready to record into a compute pass.
pub(crate) struct PreparedMerge {
    partition: Option<crate::partition::PreparedPartition>,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    dispatch: (u32, u32),
}

impl PreparedMerge {
    /// Records the partition (if any) and the merge into `pass`.
    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        if let Some(partition) = &self.partition {
            partition.record(pass);
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.dispatch.0, self.dispatch.1, 1);
    }
}

/// Checks that a caller's buffer can be bound for `len` elements of `size` bytes.
pub(crate) fn check_buffer(
    name: &'static str,
    buffer: &wgpu::Buffer,
    len: usize,
    size: u32,
) -> Result<(), Error> {
    if len == 0 {
        return Ok(());
    }
    if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
        return Err(Error::MissingUsage {
            buffer: name,
            needed: wgpu::BufferUsages::STORAGE,
        });
    }
    let needed = len as u64 * u64::from(size);
    if buffer.size() < needed {
        return Err(Error::BufferTooSmall {
            buffer: name,
            needed,
            actual: buffer.size(),
        });
    }
    Ok(())
}

/// Checks that a caller's output slice has room for exactly `len` elements.
pub(crate) fn check_out_len(what: &'static str, actual: usize, len: usize) -> Result<(), Error> {
    if actual != len {
        return Err(Error::LengthMismatch {
            what,
            left: actual,
            right: len,
        });
    }
    Ok(())
}

/// Sorted runs end to end, between `bounds` (the first 0, the last the length): keys, and value
/// bytes of `value_size` each (none where 0), borrowed or owned.
pub(crate) struct SortedRuns<'a, K: Clone> {
    pub(crate) keys: Cow<'a, [K]>,
    pub(crate) values: Cow<'a, [u8]>,
    pub(crate) value_size: usize,
    pub(crate) bounds: Vec<usize>,
}

/// A slice-form merge, piece by piece (host.rs runs it).
struct MergeWork<'a, K> {
    a: &'a [K],
    b: &'a [K],
    options: &'a MergeOptions,
    value_size: u32,
    scratch: Scratch,
}

impl<K: Key> PieceWork for MergeWork<'_, K> {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error> {
        let (a_len, b_len) = (piece.inputs[0].len(), piece.inputs[1].len());
        let plan = gpu.plan_merge(K::TYPE, a_len, b_len, self.value_size, self.options)?;
        let mut recorded = Recorded::outputs(&outputs.iter().collect::<Vec<_>>());
        if self.options.validate {
            let order = (K::TYPE, self.options.order);
            recorded.words =
                gpu.record_validate_both(encoder, order, (&inputs[0], a_len), (&inputs[1], b_len))?;
        }
        let buffers = MergeBuffers {
            a: &inputs[0],
            a_len,
            b: &inputs[1],
            b_len,
            out: &outputs[0],
            values: (self.value_size > 0).then(|| ValueBuffers {
                a: &inputs[2],
                b: &inputs[3],
                out: &outputs[1],
                value_size: self.value_size,
            }),
        };
        gpu.record_merge(encoder, &self.scratch, &buffers, &plan)?;
        Ok(recorded)
    }

    fn check(&mut self, piece: &Piece, words: &[u32]) -> Result<(), Error> {
        let (a, b) = (
            (self.a, piece.inputs[0].start),
            (self.b, piece.inputs[1].start),
        );
        unsorted_either(a, b, words, self.options.order)
    }
}

impl Gpu {
    /// Upload, merge, read back, through the host driver: the slice forms share this. Writes
    /// keys (and value bytes) into `destinations`; returns the elements written.
    ///
    /// A merge longer than one piece is cut by co-rank (on the host, a binary search per cut)
    /// into pieces whose inputs are contiguous runs of A and B.
    pub(crate) async fn merge_host<K: Key>(
        &self,
        a: &[K],
        b: &[K],
        values: Option<HostValues<'_>>,
        options: &MergeOptions,
        destinations: host::Destinations<'_, '_>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<usize, Error> {
        let value_size = values.map_or(0, |v| v.size);
        let total = a.len() + b.len();
        let most = options.piece_len(self.max_merge_len(K::TYPE, value_size))?;
        // Check the options (and that the device can run this merge at all) before any work.
        self.plan_merge(K::TYPE, 0, 0, value_size, options)?;
        if total == 0 {
            return Ok(0);
        }
        let piece_len = if options.max_piece_len.is_some() {
            most
        } else {
            tuning::host_piece_len(total, most)
        };
        let order = options.order;
        let mut pieces = Vec::new();
        let (mut i0, mut k0) = (0, 0);
        while k0 < total {
            let k1 = (k0 + piece_len).min(total);
            let j0 = k0 - i0;
            // Clamped so that unsorted input (where co-rank need not grow with rank) still
            // gives pieces that cover each input exactly once.
            let i1 = cpu::co_rank_ordered(k1, a, b, order).clamp(i0, i0 + (k1 - k0));
            let i1 = i1.min(a.len()).max(k1.saturating_sub(b.len()));
            let j1 = k1 - i1;
            if options.validate {
                // The GPU checks inside each piece; the joins between pieces are checked here.
                for (side, keys, start, end) in [(Side::A, a, i0, i1), (Side::B, b, j0, j1)] {
                    if start > 0 && start < end && keys[start].before(&keys[start - 1], order) {
                        return Err(unsorted_at(side, keys, start, order));
                    }
                }
            }
            let mut inputs = vec![i0..i1, j0..j1];
            if values.is_some() {
                inputs.extend([i0..i1, j0..j1]);
            }
            pieces.push(Piece {
                inputs,
                output: k0..k1,
            });
            (i0, k0) = (i1, k1);
        }
        let key_size = K::TYPE.size() as usize;
        let mut call = Call {
            inputs: vec![
                (bytemuck::cast_slice(a), key_size),
                (bytemuck::cast_slice(b), key_size),
            ],
            output_sizes: vec![key_size],
            input_room: vec![a.len().min(piece_len), b.len().min(piece_len)],
            output_room: total.min(piece_len),
            pieces,
        };
        if let Some(v) = values {
            let size = v.size as usize;
            call.inputs.extend([(v.a, size), (v.b, size)]);
            call.input_room
                .extend([a.len().min(piece_len), b.len().min(piece_len)]);
            call.output_sizes.push(size);
        }
        let mut work = MergeWork {
            a,
            b,
            options,
            value_size,
            scratch: self.create_scratch(),
        };
        host::run(self, &call, &mut work, destinations, progress).await
    }

    /// Merges sorted runs on the host side, two by two, level by level, each merge through
    /// [`Gpu::merge_host`] (so any length, in pieces), the last level into `destinations`; a
    /// level's last run without a partner is copied. A merge takes the earlier run's keys first
    /// where keys are equal, so the result is stable by run: a sort's sorted pieces, or the
    /// many-way merge beyond one binding. Host memory besides the result: the runs as given,
    /// and one level's copy at a time (a level replaces runs it owns). Returns the elements
    /// written.
    pub(crate) async fn merge_sorted_runs<K: Key>(
        &self,
        mut runs: SortedRuns<'_, K>,
        order: Order,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let len = runs.keys.len();
        let options = MergeOptions {
            order,
            ..Default::default()
        };
        while runs.bounds.len() > 3 {
            let mut level_keys = ResultVec::<K>::new(len)?;
            let mut level_values = ResultVec::<u8>::new(runs.values.len())?;
            let bounds = {
                let mut outputs = [level_keys.bytes(), level_values.bytes()];
                self.merge_level(&runs, &options, &mut outputs).await?
            };
            let value_bytes = runs.values.len();
            runs = SortedRuns {
                keys: Cow::Owned(level_keys.into_vec(len)),
                values: Cow::Owned(level_values.into_vec(value_bytes)),
                value_size: runs.value_size,
                bounds,
            };
        }
        self.merge_level(&runs, &options, destinations).await?;
        Ok(len)
    }

    /// One level of [`Gpu::merge_sorted_runs`]: runs 2i and 2i + 1 merged into their place in
    /// `outputs` (keys, then values where there are), a last run alone copied there. Returns
    /// the new runs' bounds.
    async fn merge_level<K: Key>(
        &self,
        runs: &SortedRuns<'_, K>,
        options: &MergeOptions,
        outputs: host::Destinations<'_, '_>,
    ) -> Result<Vec<usize>, Error> {
        let value_size = runs.value_size;
        let sizes = element_sizes(K::TYPE, value_size);
        let bounds = &runs.bounds;
        let mut next = vec![0];
        for first in (0..bounds.len().saturating_sub(1)).step_by(2) {
            let paired = first + 2 < bounds.len();
            let (start, end) = (bounds[first], bounds[(first + 2).min(bounds.len() - 1)]);
            let range = start..end;
            let mut parts = outputs_at(outputs, &sizes, &range);
            if !paired {
                host::copy_parallel(
                    &mut *parts[0],
                    bytemuck::cast_slice(&runs.keys[range.clone()]),
                );
                if let Some(part) = parts.get_mut(1) {
                    host::copy_parallel(part, &runs.values[scaled(&range, value_size)]);
                }
            } else {
                let middle = bounds[first + 1];
                let values = (value_size > 0).then(|| HostValues {
                    a: &runs.values[scaled(&(start..middle), value_size)],
                    b: &runs.values[scaled(&(middle..end), value_size)],
                    size: value_size as u32,
                });
                let (a, b) = (&runs.keys[start..middle], &runs.keys[middle..end]);
                let written = self
                    .merge_host(a, b, values, options, &mut parts, &mut |_, _| {})
                    .await?;
                expect_written(written, &range)?;
            }
            next.push(end);
        }
        Ok(next)
    }
}

/// Configurations the crate builds, for the kernel tests: each kernel's shapes for every key
/// type, order and value size, with the shapes the tests use.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    let kernels: [&'static Kernel; 7] = [
        &MERGE_BASIC,
        &MERGE_TILED,
        &MERGE_CIRCULAR,
        &MERGE_PATH,
        &MERGE_PATH_TILES,
        &MERGE_PATH_CHUNKS,
        &MERGE_PATH_TILES_TABLE,
    ];
    for kernel in kernels {
        for key in KeyType::ALL {
            let mut shapes = vec![
                tuning::book_shape(false, key),
                tuning::book_shape(true, key),
                tuning::merge_path_shape(key.size(), 0, 0, |_| true),
                tuning::merge_path_shape(key.size(), 4, 0, |_| true),
                tuning::merge_path_shape(key.size(), 0, 1 << 24, |_| true),
                tuning::merge_path_shape(key.size(), 0, 1 << 30, |_| true),
                tuning::merge_path_shape(key.size(), 4, 1 << 30, |_| true),
                (1, 1),
                (96, 3),
            ];
            if key == KeyType::U32 {
                shapes.extend([(4, 2), (256, 8), (1024, 1)]);
            }
            shapes.sort_unstable();
            shapes.dedup();
            // Merge path's passes read A and B, or A alone as sort's passes do; the table's
            // passes always read A alone.
            let one_buffer: &[bool] = match kernel {
                k if std::ptr::eq(k, &MERGE_PATH_TILES_TABLE) => &[true],
                k if is_merge_path(k) => &[false, true],
                _ => &[false],
            };
            for shape in shapes {
                for order in [Order::Ascending, Order::Descending] {
                    for value_size in [0, 4, 8] {
                        for &one_buffer in one_buffer {
                            out.push(crate::kernel_tests::Configuration {
                                kernel,
                                specialization: specialization(
                                    kernel, shape, key, order, value_size, one_buffer,
                                ),
                                workgroup_memory: workgroup_memory(kernel, shape, key, value_size),
                            });
                        }
                    }
                }
            }
        }
    }
    out
}
