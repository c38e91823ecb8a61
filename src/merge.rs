//! Merging two sorted arrays on the GPU, in either order, optionally moving a 4- or 8-byte value
//! with each key.

use bytemuck::{Pod, Zeroable};

use crate::gpu::{host_collect, host_vec};
use crate::key::{Key, KeyType, Order};
use crate::shader::{Kernel, PipelineConfig};
use crate::{cpu, Error, Gpu, Side};

/// Largest `items_per_thread` accepted: beyond it an invocation's sequential merge only adds
/// latency.
pub const MAX_ITEMS_PER_THREAD: u32 = 64;
/// Largest `tiles_per_workgroup` accepted.
pub const MAX_TILES_PER_WORKGROUP: u32 = 4096;

/// Most tiles one workgroup merges with `items_per_thread` outputs per invocation and tile
/// (`MOST_TILES` in `merge_path.wgsl`): [`MergeOptions::tiles_per_workgroup`] is clamped to it.
/// llvmpipe (lavapipe) stops an invocation's loops after about 65,535 iterations in all and
/// silently leaves the rest of its work undone (docs/benchmarks.md, run 33); a tile costs the
/// kernels at most about `8 * items_per_thread + 32` iterations, and this keeps a workgroup
/// within a quarter of that limit. GPUs have no such limit, and no default comes near it.
pub fn most_tiles_per_workgroup(items_per_thread: u32) -> u32 {
    (16384 / (8 * items_per_thread + 32)).max(1)
}
/// Largest merged length (keys) one dispatch handles on any device; a device's binding limits
/// may allow fewer. The slice forms merge longer inputs piece by piece.
pub const MAX_MERGED_LEN: usize = 1 << 30;

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

    /// The kernel that implements it.
    pub fn kernel(self) -> Kernel {
        match self {
            Algorithm::Basic => Kernel::MergeBasic,
            Algorithm::Tiled => Kernel::MergeTiled,
            Algorithm::CircularBuffer => Kernel::MergeCircular,
            Algorithm::MergePath => Kernel::MergePath,
        }
    }

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

    /// Default (workgroup size, items per thread) for `key`, keys only or `with_values`. Every
    /// default fits WebGPU's default limits (16 KiB of workgroup memory, 256 invocations): the
    /// tiled kernels keep two tiles of 1024 32-bit keys (8 KiB) or 512 64-bit keys; merge path
    /// keeps one tile, of 1792 keys (7 KiB, 14 KiB for 64-bit keys), or of 768 keys and each
    /// one's slot when values move with them (6 KiB, 9 KiB for 64-bit keys).
    pub fn default_shape(self, key: KeyType, with_values: bool) -> (u32, u32) {
        let wide = key.size() == 8;
        match self {
            Algorithm::Basic => (256, 8),
            Algorithm::Tiled | Algorithm::CircularBuffer if wide => (128, 4),
            Algorithm::Tiled | Algorithm::CircularBuffer => (128, 8),
            // Measured best of the shapes tried on an H100 (docs/benchmarks.md, run 17): pairs
            // gather their values from global memory per output, which more items per
            // invocation slow down.
            Algorithm::MergePath if with_values => (256, 3),
            Algorithm::MergePath => (256, 7),
        }
    }

    /// Shapes used instead of [`Algorithm::default_shape`] for merges of at least
    /// [`LARGE_MERGE_LEN`] keys, best first: the first the device has room for (invocations per
    /// workgroup and workgroup memory) is taken. On an H100 (docs/benchmarks.md, runs 22-23),
    /// merge path's keys run 512 x 11 (22 KiB of workgroup memory for 32-bit keys), or 256 x 15
    /// (15 KiB, within WebGPU's default limits) at 1-3% less; pairs run 512 x 3, 7-11% faster
    /// than 256 x 3. Larger tiles mean fewer co-ranks in the partition pass, but beyond these
    /// the merge itself slows (256 x 17 and 512 x 15 by 15-30%), and both are slower at 2^20.
    pub fn large_shapes(self, with_values: bool) -> &'static [(u32, u32)] {
        match self {
            Algorithm::MergePath if with_values => &[(512, 3)],
            Algorithm::MergePath => &[(512, 11), (256, 15)],
            _ => &[],
        }
    }
}

/// Tiles each merge-path workgroup merges, one after another, loading each while it merges the
/// one before, when [`MergeOptions::tiles_per_workgroup`] is `None`: one for merges shorter than
/// [`LARGE_MERGE_LEN`] keys, 4 from there, and from 2^27 keys 6 for keys-only merges and 8 with
/// values. Keys-only merges take their tiles in chunks of this many from a counter, so a
/// workgroup goes on to further chunks while any are left. Measured on an H100
/// (docs/benchmarks.md, runs 19-23 and 39): long merges gain 5-10% from 4 tiles and another 1-2%
/// from 6 or 8 at 2^28, while short ones need every workgroup they can get to fill the GPU.
pub fn merge_path_tiles_per_workgroup(total: usize, with_values: bool) -> u32 {
    match total {
        t if t >= 1 << 27 && with_values => 8,
        t if t >= 1 << 27 => 6,
        t if t >= LARGE_MERGE_LEN => 4,
        _ => 1,
    }
}

/// Invocations per workgroup of merge path's partition pass (`PARTITION_WORKGROUP_SIZE` in
/// `merge_path.wgsl`): small workgroups spread the searches over every compute unit.
pub(crate) const PARTITION_WORKGROUP_SIZE: u32 = 64;
/// Invocations that search each boundary together in merge path's partition pass, for a merge
/// of `tiles` tiles (`PARTITION_LANES` in `merge_path.wgsl`). Each step of a search cuts
/// its interval by this plus one, so a search waits on fewer loads one after another, but it
/// issues more of them. Up to a few thousand boundaries the GPU runs every search at once and
/// waits on the latency of one: there the lanes pay (H100, run 27: 32 lanes take a 2^20 merge
/// from 18.6 to 16.4 us, 8 lanes a 2^24 one from 84.7 to 82.3 us). Beyond that the loads are
/// the limit, and one invocation per boundary, searching alone, is fastest.
pub(crate) fn partition_lanes(tiles: u32) -> u32 {
    let boundaries = tiles.saturating_add(1);
    if boundaries > 4096 {
        return 1;
    }
    // The most, a power of two up to 32, that keeps about 2^15 invocations searching.
    let lanes = (32768 / boundaries).max(1);
    (1 << lanes.ilog2()).min(MAX_PARTITION_LANES)
}

/// Most `partition_lanes`: a partition workgroup holds PARTITION_WORKGROUP_SIZE / lanes
/// searches together (at least 2; `SEARCH_SLOTS` in `merge_path.wgsl` holds them).
pub(crate) const MAX_PARTITION_LANES: u32 = 32;

/// Workgroups of merge path's partition pass for `tiles` tiles.
pub(crate) fn partition_workgroups(tiles: u32) -> u32 {
    (tiles + 1).div_ceil(PARTITION_WORKGROUP_SIZE / partition_lanes(tiles))
}

/// Merges at least this long use [`Algorithm::large_shapes`] where the device allows one.
pub const LARGE_MERGE_LEN: usize = 1 << 24;

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
    /// Invocations per workgroup; `None` takes [`Algorithm::default_shape`] (or one of
    /// [`Algorithm::large_shapes`] for long merges, where the device allows it).
    pub workgroup_size: Option<u32>,
    /// Outputs each invocation merges per step (1..=[`MAX_ITEMS_PER_THREAD`]); the tiled kernels'
    /// tile holds `workgroup_size * items_per_thread` keys of each input.
    pub items_per_thread: Option<u32>,
    /// Tiled kernels and merge path: output tiles each workgroup merges
    /// (1..=[`MAX_TILES_PER_WORKGROUP`]); `None` chooses from the input size (merge path:
    /// [`merge_path_tiles_per_workgroup`]), at most [`most_tiles_per_workgroup`]. Merge path's
    /// keys-only merges take tiles in chunks of this many, and a workgroup takes another chunk
    /// while any is left, up to that most.
    pub tiles_per_workgroup: Option<u32>,
    /// Slice forms: the most merged keys one piece may hold. Inputs whose merge is longer are
    /// split by co-rank into pieces that are uploaded, merged and read back one after another,
    /// so GPU memory use stays bounded. `None` makes pieces as large as the device's storage
    /// bindings allow.
    pub max_piece_len: Option<usize>,
    /// Slice forms: check on the GPU that both inputs are sorted in `order` before trusting the
    /// merge, returning [`Error::Unsorted`] with the first out-of-order index if not. Costs one
    /// extra read of the inputs. The resident form cannot report it without a readback and
    /// returns [`Error::InvalidOptions`] when this is set.
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
        match self.max_piece_len {
            Some(0) => Err(Error::InvalidOptions(
                "max_piece_len must be positive".into(),
            )),
            Some(len) => Ok(len.min(device_max)),
            None => Ok(device_max),
        }
    }
}

/// `MergeParams` in `merge_io.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct MergeParams {
    pub(crate) a_len: u32,
    pub(crate) b_len: u32,
    pub(crate) tiles_per_group: u32,
    pub(crate) run_len: u32,
}

/// What the `encode_*` methods need besides their inputs and outputs: a small uniform buffer of
/// lengths, a placeholder bound where an input is empty, and merge path's boundaries. Create it
/// once with [`Gpu::create_scratch`] and reuse it.
///
/// Its lengths are written with `Queue::write_buffer`, which takes effect at the next
/// `Queue::submit`: every operation recorded into one submission needs its own scratch, unless
/// they all have the same lengths.
#[derive(Debug)]
pub struct Scratch {
    pub(crate) params: wgpu::Buffer,
    placeholder: wgpu::Buffer,
    /// Merge path's workgroup boundaries, grown on demand.
    splits: std::sync::Mutex<Option<wgpu::Buffer>>,
    /// A sort's parameters, one aligned slot per pass, grown on demand.
    sort_params: std::sync::Mutex<Option<wgpu::Buffer>>,
    /// `merge_path_chunks`' counter of the chunks taken.
    pub(crate) chunk_counter: wgpu::Buffer,
}

impl Scratch {
    /// A storage buffer of at least `bytes` for merge path's splits, reallocated when too small.
    /// Commands already recorded keep the old buffer alive.
    pub(crate) fn splits(&self, device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
        grown(
            &self.splits,
            device,
            bytes,
            "wgmerge merge path splits",
            wgpu::BufferUsages::STORAGE,
        )
    }

    /// A uniform buffer of at least `bytes` for a sort's per-pass parameters.
    pub(crate) fn sort_params(&self, device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
        grown(
            &self.sort_params,
            device,
            bytes,
            "wgmerge sort params",
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )
    }
}

/// The buffer in `slot` if it holds `bytes`, else a new one (a power of two, at least 256
/// bytes) that replaces it.
fn grown(
    slot: &std::sync::Mutex<Option<wgpu::Buffer>>,
    device: &wgpu::Device,
    bytes: u64,
    label: &'static str,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
    match &*slot {
        Some(buffer) if buffer.size() >= bytes => buffer.clone(),
        _ => {
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.next_power_of_two().max(256),
                usage,
                mapped_at_creation: false,
            });
            *slot = Some(buffer.clone());
            buffer
        }
    }
}

/// The caller's GPU buffers for [`Gpu::encode_merge`]. Keys are of the [`Key`] type the call
/// names, tightly packed from offset 0.
///
/// Required usages: `STORAGE` on every buffer (plus whatever the caller needs to fill or read
/// them, such as `COPY_DST` or `COPY_SRC`). `out` must hold `a_len + b_len` keys. A buffer whose
/// length is 0 is never bound and may be of any size.
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

impl<'a> MergeBuffers<'a> {
    /// Every array, with keys of `key_size` bytes: name, buffer, elements, bytes each, and
    /// whether it is an input.
    pub(crate) fn arrays(
        &self,
        key_size: u32,
    ) -> Vec<(&'static str, &'a wgpu::Buffer, usize, u32, bool)> {
        let total = self.a_len + self.b_len;
        let mut arrays = vec![
            ("a", self.a, self.a_len, key_size, true),
            ("b", self.b, self.b_len, key_size, true),
            ("out", self.out, total, key_size, false),
        ];
        if let Some(v) = &self.values {
            arrays.extend([
                ("a values", v.a, self.a_len, v.value_size, true),
                ("b values", v.b, self.b_len, v.value_size, true),
                ("out values", v.out, total, v.value_size, false),
            ]);
        }
        arrays
    }

    /// Checks that every array can be bound for its length.
    pub(crate) fn check(&self, key_size: u32) -> Result<(), Error> {
        for (name, buffer, len, size, _) in self.arrays(key_size) {
            check_buffer(name, buffer, len, size)?;
        }
        Ok(())
    }
}

/// Values moving with the keys in [`MergeBuffers`]: one per key of A, of B and of the output,
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

/// A merge checked against the device and ready to record.
#[derive(Clone, Debug)]
pub(crate) struct MergePlan {
    pub(crate) kernel: Kernel,
    pub(crate) config: PipelineConfig,
    pub(crate) params: MergeParams,
    /// Output tiles of `workgroup_size * items_per_thread` keys (merge path co-ranks the
    /// boundary of each).
    pub(crate) tiles: u32,
    pub(crate) dispatch: (u32, u32),
    /// Merge path's partition pass: workgroups, folded.
    pub(crate) partition_dispatch: Option<(u32, u32)>,
}

impl MergePlan {
    fn is_empty(&self) -> bool {
        self.params.a_len == 0 && self.params.b_len == 0
    }
}

/// Value bytes of both inputs of a slice-form merge or set operation, with their size.
#[derive(Clone, Copy)]
pub(crate) struct HostValues<'a> {
    pub(crate) a: &'a [u8],
    pub(crate) b: &'a [u8],
    pub(crate) size: u32,
}

/// Checks bytes per value of resident buffers: 4 or 8, or 0 for none.
pub(crate) fn check_value_size(size: u32) -> Result<u32, Error> {
    match size {
        0 | 4 | 8 => Ok(size),
        _ => Err(Error::InvalidOptions(format!(
            "values must be 4 or 8 bytes, not {size}"
        ))),
    }
}

/// The size of value type `V`, which must be 4 or 8 bytes.
pub(crate) fn value_size<V>() -> Result<u32, Error> {
    match std::mem::size_of::<V>() {
        size @ (4 | 8) => Ok(size as u32),
        size => Err(Error::InvalidOptions(format!(
            "values must be 4 or 8 bytes, not {size}"
        ))),
    }
}

impl<'a> HostValues<'a> {
    /// The values of two inputs of pairs, after checking the value type's size and that each
    /// input has as many values as keys.
    pub(crate) fn of<K, V: Pod>(
        a_keys: &[K],
        a_values: &'a [V],
        b_keys: &[K],
        b_values: &'a [V],
    ) -> Result<Self, Error> {
        let size = check_pairs(a_keys, a_values, b_keys, b_values)?;
        Ok(HostValues {
            a: bytemuck::cast_slice(a_values),
            b: bytemuck::cast_slice(b_values),
            size,
        })
    }
}

/// Checks a value type's size and the key and value lengths of both inputs.
fn check_pairs<K, V>(
    a_keys: &[K],
    a_values: &[V],
    b_keys: &[K],
    b_values: &[V],
) -> Result<u32, Error> {
    let size = value_size::<V>()?;
    for (what, keys, values) in [
        ("A keys and values", a_keys.len(), a_values.len()),
        ("B keys and values", b_keys.len(), b_values.len()),
    ] {
        if keys != values {
            return Err(Error::LengthMismatch {
                what,
                left: keys,
                right: values,
            });
        }
    }
    Ok(size)
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
        pollster::block_on(self.merge_async(a, b, options))
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
        let (keys, _) = pollster::block_on(self.merge_host(a, b, None, options, &mut progress))?;
        Ok(keys)
    }

    /// Merges sorted `a` and `b` with `options`, without blocking.
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
        let (keys, _) = self.merge_host(a, b, None, options, &mut |_, _| {}).await?;
        Ok(keys)
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
        pollster::block_on(self.merge_pairs_async(a_keys, a_values, b_keys, b_values, options))
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
        pollster::block_on(self.merge_pairs_inner(
            a_keys,
            a_values,
            b_keys,
            b_values,
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
        self.merge_pairs_inner(a_keys, a_values, b_keys, b_values, options, &mut |_, _| {})
            .await
    }

    async fn merge_pairs_inner<K: Key, V: Pod>(
        &self,
        a_keys: &[K],
        a_values: &[V],
        b_keys: &[K],
        b_values: &[V],
        options: &MergeOptions,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        let values = HostValues::of(a_keys, a_values, b_keys, b_values)?;
        let (keys, values) = self
            .merge_host(a_keys, b_keys, Some(values), options, progress)
            .await?;
        Ok((keys, host_collect(&values)?))
    }

    /// Creates the reusable scratch for [`Gpu::encode_merge`].
    pub fn create_scratch(&self) -> Scratch {
        Scratch {
            params: self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgmerge merge params"),
                size: std::mem::size_of::<MergeParams>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            placeholder: self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgmerge placeholder"),
                size: 8,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            splits: Default::default(),
            sort_params: Default::default(),
            chunk_counter: self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgmerge chunk counter"),
                size: 4,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
        }
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
        buffers.check(K::TYPE.size())?;
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
        let limits = self.device.limits();
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let widest = u64::from(key.size().max(value_size));
        MAX_MERGED_LEN.min(usize::try_from(binding / widest).unwrap_or(usize::MAX))
    }

    /// The shape of a merge of `total` keys when the options name none: the algorithm's large
    /// shape for long merges where the device has room for it, its default otherwise.
    fn default_shape(
        &self,
        algorithm: Algorithm,
        key: KeyType,
        total: usize,
        value_size: u32,
    ) -> (u32, u32) {
        let limits = self.device.limits();
        let fits = |(workgroup_size, items_per_thread): (u32, u32)| {
            let config = PipelineConfig {
                workgroup_size,
                items_per_thread,
                key,
                order: Order::Ascending,
                value_size,
            };
            workgroup_size <= limits.max_compute_invocations_per_workgroup
                && workgroup_size <= limits.max_compute_workgroup_size_x
                && algorithm.kernel().workgroup_memory(&config)
                    <= u64::from(limits.max_compute_workgroup_storage_size)
        };
        let with_values = value_size > 0;
        let large = algorithm.large_shapes(with_values).iter().copied();
        large
            .filter(|_| total >= LARGE_MERGE_LEN)
            .find(|&shape| fits(shape))
            .unwrap_or_else(|| algorithm.default_shape(key, with_values))
    }

    /// Checks a kernel shape against the device: invocations per workgroup and items per
    /// invocation.
    pub(crate) fn check_shape(
        &self,
        workgroup_size: u32,
        items_per_thread: u32,
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
        if items_per_thread == 0 || items_per_thread > MAX_ITEMS_PER_THREAD {
            return Err(Error::InvalidOptions(format!(
                "items_per_thread {items_per_thread} is outside 1..={MAX_ITEMS_PER_THREAD}"
            )));
        }
        Ok(())
    }

    /// A buffer of at least 8 bytes (an empty input is still bound, so it needs a valid buffer).
    pub(crate) fn buffer_at_least_8(
        &self,
        label: &'static str,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: size.max(8),
            usage,
            mapped_at_creation: false,
        })
    }

    /// The most elements of `size` bytes one buffer holds after `extra` bytes.
    pub(crate) fn max_readback_len(&self, size: u32, extra: u64) -> usize {
        let bytes = self.device.limits().max_buffer_size.saturating_sub(extra);
        usize::try_from(bytes / u64::from(size)).unwrap_or(usize::MAX)
    }

    /// Checks lengths and options against the device and chooses the dispatch.
    pub(crate) fn plan_merge(
        &self,
        key: KeyType,
        a_len: usize,
        b_len: usize,
        value_size: u32,
        options: &MergeOptions,
    ) -> Result<MergePlan, Error> {
        let limits = self.device.limits();
        let kernel = options.algorithm.kernel();
        let (default_workgroup, default_items) =
            self.default_shape(options.algorithm, key, a_len + b_len, value_size);
        let workgroup_size = options.workgroup_size.unwrap_or(default_workgroup);
        let items_per_thread = options.items_per_thread.unwrap_or(default_items);
        self.check_shape(workgroup_size, items_per_thread)?;
        let config = PipelineConfig {
            workgroup_size,
            items_per_thread,
            key,
            order: options.order,
            value_size,
        };
        let per_step = u64::from(workgroup_size) * u64::from(items_per_thread);
        let bytes = kernel.workgroup_memory(&config);
        let max = u64::from(limits.max_compute_workgroup_storage_size);
        if bytes > max {
            return Err(Error::InvalidOptions(format!(
                "{} with {per_step} {} keys per step needs {bytes} bytes of workgroup memory; this device has {max}",
                options.algorithm.name(),
                key.name(),
            )));
        }

        self.check_storage_buffers(kernel, value_size > 0)?;

        let total = a_len + b_len;
        let max_len = self.max_merge_len(key, value_size);
        if total > max_len {
            return Err(Error::TooLarge {
                what: "merged output",
                len: total,
                max: max_len,
            });
        }

        let tiles_per_group = match options.tiles_per_workgroup {
            Some(t) if t == 0 || t > MAX_TILES_PER_WORKGROUP => {
                return Err(Error::InvalidOptions(format!(
                    "tiles_per_workgroup {t} is outside 1..={MAX_TILES_PER_WORKGROUP}"
                )))
            }
            Some(t) => t,
            None if kernel == Kernel::MergePath => {
                merge_path_tiles_per_workgroup(total, value_size > 0)
            }
            // Enough tiles per workgroup to amortise its co-rank, while keeping about 4096
            // workgroups to fill a large GPU.
            None => (total as u64)
                .div_ceil(per_step)
                .div_ceil(4096)
                .clamp(1, 16) as u32,
        }
        .min(most_tiles_per_workgroup(items_per_thread));
        let kernel = match kernel {
            // Keys-only merges take their tiles from a counter (3% faster at 2^26 on an H100),
            // where the device allows its fifth storage buffer; merges with values take fixed
            // runs of tiles (chunks are 9% slower for them: docs/benchmarks.md, run 39).
            Kernel::MergePath
                if tiles_per_group > 1
                    && value_size == 0
                    && self
                        .check_storage_buffers(Kernel::MergePathChunks, false)
                        .is_ok() =>
            {
                Kernel::MergePathChunks
            }
            Kernel::MergePath if tiles_per_group > 1 => Kernel::MergePathTiles,
            _ => kernel,
        };
        let tiles =
            u32::try_from((total as u64).div_ceil(per_step)).map_err(|_| Error::TooLarge {
                what: "workgroups in one dispatch",
                len: total,
                max: max_len,
            })?;
        // Only the tiled kernels, merge_path_tiles and merge_path_chunks step through several
        // tiles per workgroup (merge_path_chunks: the dispatch has one workgroup per chunk).
        let workgroups = match kernel {
            Kernel::MergeTiled
            | Kernel::MergeCircular
            | Kernel::MergePathTiles
            | Kernel::MergePathChunks => tiles.div_ceil(tiles_per_group),
            _ => tiles,
        };
        Ok(MergePlan {
            kernel,
            config,
            params: MergeParams {
                a_len: a_len as u32,
                b_len: b_len as u32,
                tiles_per_group,
                run_len: 0,
            },
            tiles,
            dispatch: self.dispatch_shape(workgroups)?,
            // partition_lanes invocations per tile boundary, the last one included.
            partition_dispatch: if kernel.is_merge_path() {
                Some(self.dispatch_shape(partition_workgroups(tiles))?)
            } else {
                None
            },
        })
    }

    /// Records a planned merge. Empty inputs and absent values are bound to the placeholder.
    /// Returns [`Error::Validation`] (recording nothing) where the caller's buffers cannot be
    /// bound, such as buffers of another device.
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
        let splits = plan
            .partition_dispatch
            .map(|_| scratch.splits(&self.device, (u64::from(plan.tiles) + 1) * 4));
        let bind_groups = self.checked(|| {
            self.merge_bind_groups(
                scratch.params.as_entire_binding(),
                &scratch.placeholder,
                splits.as_ref().map(|s| (s, &scratch.chunk_counter)),
                buffers,
                plan,
            )
        })?;
        self.queue
            .write_buffer(&scratch.params, 0, bytemuck::bytes_of(&plan.params));
        self.record_merge_dispatches(encoder, plan, &bind_groups);
        Ok(())
    }

    /// The bind groups of a planned merge: merge path's partition pass (if any), then the merge.
    pub(crate) fn merge_bind_groups(
        &self,
        params: wgpu::BindingResource<'_>,
        placeholder: &wgpu::Buffer,
        splits: Option<(&wgpu::Buffer, &wgpu::Buffer)>,
        buffers: &MergeBuffers<'_>,
        plan: &MergePlan,
    ) -> (Option<wgpu::BindGroup>, wgpu::BindGroup) {
        let total = buffers.a_len + buffers.b_len;
        // Sort's merge passes read both runs of each pair from A's buffer, bound again as B.
        let b_len = if plan.params.run_len > 0 {
            buffers.a_len
        } else {
            buffers.b_len
        };
        let key_size = plan.config.key.size();
        let binding = |buffer, len, size| bind_elements(buffer, len, size, placeholder);
        let mut resources = vec![
            params,
            binding(buffers.a, buffers.a_len, key_size),
            binding(buffers.b, b_len, key_size),
            binding(buffers.out, total, key_size),
        ];
        if let Some(v) = &buffers.values {
            resources.extend([
                binding(v.a, buffers.a_len, v.value_size),
                binding(v.b, b_len, v.value_size),
                binding(v.out, total, v.value_size),
            ]);
        }
        let mut entries: Vec<wgpu::BindGroupEntry<'_>> = resources
            .into_iter()
            .enumerate()
            .map(|(binding, resource)| wgpu::BindGroupEntry {
                binding: binding as u32,
                resource,
            })
            .collect();
        // Merge path's splits, and merge_path_chunks' chunk counter.
        let chunks = plan.kernel == Kernel::MergePathChunks;
        if let Some((splits, counter)) = splits {
            entries.push(wgpu::BindGroupEntry {
                binding: 7,
                resource: splits.as_entire_binding(),
            });
            if chunks {
                entries.push(wgpu::BindGroupEntry {
                    binding: 8,
                    resource: counter.as_entire_binding(),
                });
            }
        }
        let bind_group = |kernel: Kernel, entries: &[wgpu::BindGroupEntry<'_>]| {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(kernel.entry_point()),
                layout: &self
                    .layout(kernel.bindings(plan.config.with_values()))
                    .bind_group,
                entries,
            })
        };
        let partition = plan.partition_dispatch.map(|_| {
            // Params, A, B, the splits and the chunk counter.
            let wanted = [0, 1, 2, 7, 8];
            let partition_entries: Vec<_> = entries
                .iter()
                .filter(|e| wanted.contains(&e.binding))
                .cloned()
                .collect();
            let kernel = Kernel::MergePathPartition { lanes: 1, chunks };
            bind_group(kernel, &partition_entries)
        });
        (partition, bind_group(plan.kernel, &entries))
    }

    /// Records a planned merge's dispatches with its bind groups.
    pub(crate) fn record_merge_dispatches(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        plan: &MergePlan,
        (partition, merge): &(Option<wgpu::BindGroup>, wgpu::BindGroup),
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(plan.kernel.entry_point()),
            timestamp_writes: None,
        });
        if let (Some(dispatch), Some(bind_group)) = (plan.partition_dispatch, partition) {
            let kernel = Kernel::MergePathPartition {
                lanes: partition_lanes(plan.tiles),
                chunks: plan.kernel == Kernel::MergePathChunks,
            };
            pass.set_pipeline(&self.pipeline(
                kernel,
                PipelineConfig {
                    value_size: 0,
                    ..plan.config
                },
            ));
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(dispatch.0, dispatch.1, 1);
        }
        pass.set_pipeline(&self.pipeline(plan.kernel, plan.config));
        pass.set_bind_group(0, merge, &[]);
        pass.dispatch_workgroups(plan.dispatch.0, plan.dispatch.1, 1);
    }

    /// Upload, merge, read back: the slice forms share this. Returns keys and value bytes.
    ///
    /// A merge longer than one piece is cut by co-rank (on the CPU, a binary search per cut)
    /// into pieces whose inputs are contiguous runs of A and B; each piece is uploaded into the
    /// same GPU buffers, merged, and read back into its place in the output.
    async fn merge_host<K: Key>(
        &self,
        a: &[K],
        b: &[K],
        values: Option<HostValues<'_>>,
        options: &MergeOptions,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(Vec<K>, Vec<u8>), Error> {
        let value_size = values.map_or(0, |v| v.size);
        let total = a.len() + b.len();
        // A piece fits one binding per array, and its keys and values (plus the two validation
        // words) fit one readback buffer.
        let device_max = self
            .max_merge_len(K::TYPE, value_size)
            .min(self.max_readback_len(K::TYPE.size() + value_size, 8));
        let piece_len = options.piece_len(device_max)?;
        // Check the options (and that the device can run this merge at all) before any work.
        self.plan_merge(K::TYPE, 0, 0, value_size, options)?;
        if total == 0 {
            return Ok((Vec::new(), Vec::new()));
        }

        let key_size = K::TYPE.size() as usize;
        let value_size = value_size as usize;
        let pieces = total.div_ceil(piece_len);
        // A piece never holds more of an input than the input has.
        let a_room = a.len().min(piece_len);
        let b_room = b.len().min(piece_len);
        let out_room = total.min(piece_len);

        let mut keys = host_vec(total, K::zeroed())?;
        let mut out_values = host_vec(total * value_size, 0u8)?;
        let storage = wgpu::BufferUsages::STORAGE;
        let buffers = self
            .scoped(|| {
                let buffer = |label, len: usize, size: usize, usage| {
                    self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(label),
                        // An empty input is bound to the placeholder; give it a valid buffer.
                        size: (len * size).max(8) as u64,
                        usage,
                        mapped_at_creation: false,
                    })
                };
                let input = storage | wgpu::BufferUsages::COPY_DST;
                let output = storage | wgpu::BufferUsages::COPY_SRC;
                let key_buffers = [
                    buffer("wgmerge a", a_room, key_size, input),
                    buffer("wgmerge b", b_room, key_size, input),
                    buffer("wgmerge out", out_room, key_size, output),
                ];
                let value_buffers = values.map(|_| {
                    [
                        buffer("wgmerge a values", a_room, value_size, input),
                        buffer("wgmerge b values", b_room, value_size, input),
                        buffer("wgmerge out values", out_room, value_size, output),
                    ]
                });
                let validation = options
                    .validate
                    .then(|| [0, 1].map(|_| Validation::new(&self.device)));
                let staging = buffer(
                    "wgmerge readback",
                    out_room * (key_size + value_size) + 8,
                    1,
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                );
                (
                    key_buffers,
                    value_buffers,
                    staging,
                    self.create_scratch(),
                    validation,
                )
            })
            .await?;
        let (key_buffers, value_buffers, staging, scratch, validation) = &buffers;

        let order = options.order;
        let (mut i0, mut k0) = (0, 0);
        for piece in 0..pieces {
            let k1 = if piece + 1 == pieces {
                total
            } else {
                k0 + piece_len
            };
            let j0 = k0 - i0;
            // Clamped so that unsorted input (where co-rank need not grow with rank) still
            // gives pieces that cover each input exactly once.
            let i1 = cpu::co_rank_ordered(k1, a, b, order).clamp(i0, i0 + (k1 - k0));
            let j1 = k1 - i1;
            let (a_len, b_len, len) = (i1 - i0, j1 - j0, k1 - k0);
            if options.validate {
                // The GPU checks inside each piece; the joins between pieces are checked here.
                for (side, keys, start, end) in [(Side::A, a, i0, i1), (Side::B, b, j0, j1)] {
                    if start > 0 && start < end && keys[start].before(&keys[start - 1], order) {
                        return Err(Error::Unsorted { side, index: start });
                    }
                }
            }
            let plan = self.plan_merge(K::TYPE, a_len, b_len, value_size as u32, options)?;
            let staging = self
                .scoped(|| {
                    let write = |buffer: &wgpu::Buffer, bytes: &[u8]| {
                        if !bytes.is_empty() {
                            self.queue.write_buffer(buffer, 0, bytes);
                        }
                    };
                    write(&key_buffers[0], bytemuck::cast_slice(&a[i0..i1]));
                    write(&key_buffers[1], bytemuck::cast_slice(&b[j0..j1]));
                    if let (Some(v), Some(buffers)) = (values, value_buffers) {
                        write(&buffers[0], &v.a[i0 * value_size..i1 * value_size]);
                        write(&buffers[1], &v.b[j0 * value_size..j1 * value_size]);
                    }
                    let mut encoder = self.device.create_command_encoder(&Default::default());
                    let merge_buffers = MergeBuffers {
                        a: &key_buffers[0],
                        a_len,
                        b: &key_buffers[1],
                        b_len,
                        out: &key_buffers[2],
                        values: value_buffers.as_ref().map(|[a, b, out]| ValueBuffers {
                            a,
                            b,
                            out,
                            value_size: value_size as u32,
                        }),
                    };
                    if let Some(validation) = validation {
                        for (check, keys, len) in [
                            (&validation[0], &key_buffers[0], a_len),
                            (&validation[1], &key_buffers[1], b_len),
                        ] {
                            self.record_validate(&mut encoder, check, keys, len, &plan.config);
                        }
                    }
                    self.record_merge(&mut encoder, scratch, &merge_buffers, &plan)?;
                    let key_bytes = (len * key_size) as u64;
                    encoder.copy_buffer_to_buffer(&key_buffers[2], 0, staging, 0, key_bytes);
                    if let Some([_, _, out]) = value_buffers {
                        let bytes = (len * value_size) as u64;
                        encoder.copy_buffer_to_buffer(out, 0, staging, key_bytes, bytes);
                    }
                    if let Some([a_check, b_check]) = validation {
                        let end = staging.size() - 8;
                        encoder.copy_buffer_to_buffer(&a_check.first_unsorted, 0, staging, end, 4);
                        encoder.copy_buffer_to_buffer(
                            &b_check.first_unsorted,
                            0,
                            staging,
                            end + 4,
                            4,
                        );
                    }
                    self.queue.submit([encoder.finish()]);
                    Ok::<_, Error>(staging)
                })
                .await??;
            let unsorted = self
                .read_back(staging, |bytes| {
                    let (key_bytes, value_bytes) = bytes.split_at(len * key_size);
                    bytemuck::cast_slice_mut::<K, u8>(&mut keys[k0..k1]).copy_from_slice(key_bytes);
                    out_values[k0 * value_size..k1 * value_size]
                        .copy_from_slice(&value_bytes[..len * value_size]);
                    let tail = &bytes[bytes.len() - 8..];
                    Validation::error(Side::A, i0, &tail[..4])
                        .or_else(|| Validation::error(Side::B, j0, &tail[4..]))
                })
                .await?;
            if let (true, Some(error)) = (options.validate, unsorted) {
                return Err(error);
            }
            progress(k1, total);
            (i0, k0) = (i1, k1);
        }
        Ok((keys, out_values))
    }
}

/// One input's sortedness check: its length and the first out-of-order index found.
pub(crate) struct Validation {
    params: wgpu::Buffer,
    pub(crate) first_unsorted: wgpu::Buffer,
}

impl Validation {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 16,
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        Validation {
            params: buffer("wgmerge validate params", wgpu::BufferUsages::UNIFORM),
            first_unsorted: buffer(
                "wgmerge first unsorted",
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            ),
        }
    }

    /// The error a readback of `first_unsorted` (the word, for `side` starting at `start` of its
    /// input) reports, if any.
    pub(crate) fn error(side: Side, start: usize, word: &[u8]) -> Option<Error> {
        let first = u32::from_le_bytes(word.try_into().expect("4 bytes"));
        (first != u32::MAX).then_some(Error::Unsorted {
            side,
            index: start + first as usize,
        })
    }
}

impl Gpu {
    /// Records `validate.wgsl` over the first `len` keys of `keys`, after resetting its result.
    pub(crate) fn record_validate(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        validation: &Validation,
        keys: &wgpu::Buffer,
        len: usize,
        merge: &PipelineConfig,
    ) {
        // Written before the submit, so they reach the GPU before this encoder's commands.
        self.queue.write_buffer(
            &validation.params,
            0,
            bytemuck::bytes_of(&[len as u32, 0, 0, 0]),
        );
        self.queue
            .write_buffer(&validation.first_unsorted, 0, &u32::MAX.to_le_bytes());
        if len < 2 {
            return;
        }
        let config = PipelineConfig {
            workgroup_size: 256,
            items_per_thread: 1,
            value_size: 0,
            ..*merge
        };
        let groups = (len as u32 - 1).div_ceil(config.workgroup_size);
        // The merge of the same input fits one binding, so its dispatch folds; this one has
        // fewer workgroups than a merge of 256 x 1 would.
        let Ok((x, y)) = self.dispatch_shape(groups) else {
            return;
        };
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wgmerge validate"),
            layout: &self.layout(Kernel::Validate.bindings(false)).bind_group,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: validation.params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: bind_elements(keys, len, merge.key.size(), keys),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: validation.first_unsorted.as_entire_binding(),
                },
            ],
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("find_unsorted"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline(Kernel::Validate, config));
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
}

/// Binds the first `len` elements of `size` bytes of `buffer`, or the placeholder when there are
/// none.
pub(crate) fn bind_elements<'a>(
    buffer: &'a wgpu::Buffer,
    len: usize,
    size: u32,
    placeholder: &'a wgpu::Buffer,
) -> wgpu::BindingResource<'a> {
    if len == 0 {
        return placeholder.as_entire_binding();
    }
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset: 0,
        size: wgpu::BufferSize::new(len as u64 * u64::from(size)),
    })
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
