//! Merging two sorted `u32` arrays on the GPU, optionally moving a 4-byte value with each key.

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use crate::shader::{Kernel, PipelineConfig};
use crate::{Error, Gpu};

/// Largest `items_per_thread` accepted: beyond it an invocation's sequential merge only adds
/// latency.
pub const MAX_ITEMS_PER_THREAD: u32 = 64;
/// Largest `tiles_per_workgroup` accepted.
pub const MAX_TILES_PER_WORKGROUP: u32 = 4096;
/// Largest merged length (keys) on any device; a device's binding limits may allow fewer.
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

    /// Default (workgroup size, items per thread). They fit WebGPU's default limits: the tiled
    /// kernels keep 2 x 1024 keys (8 KiB) in workgroup memory, merge path 768 keys and their
    /// order (6 KiB).
    pub fn default_shape(self) -> (u32, u32) {
        match self {
            Algorithm::Basic => (256, 8),
            Algorithm::Tiled | Algorithm::CircularBuffer => (128, 8),
            // Measured best of the shapes tried on an H100 (docs/benchmarks.md); fits WebGPU's
            // default limits.
            Algorithm::MergePath => (256, 3),
        }
    }
}

/// How to merge. A plain struct: set the fields you need and take the rest from `Default`.
///
/// ```
/// use wgmerge::{Algorithm, MergeOptions};
/// let options = MergeOptions { algorithm: Algorithm::CircularBuffer, ..Default::default() };
/// # let _ = options;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeOptions {
    /// The kernel.
    pub algorithm: Algorithm,
    /// Invocations per workgroup; `None` takes [`Algorithm::default_shape`].
    pub workgroup_size: Option<u32>,
    /// Outputs each invocation merges per step (1..=[`MAX_ITEMS_PER_THREAD`]); the tiled kernels'
    /// tile holds `workgroup_size * items_per_thread` keys of each input.
    pub items_per_thread: Option<u32>,
    /// Tiled kernels: output tiles each workgroup merges (1..=[`MAX_TILES_PER_WORKGROUP`]);
    /// `None` chooses from the input size.
    pub tiles_per_workgroup: Option<u32>,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct MergeParams {
    a_len: u32,
    b_len: u32,
    tiles_per_group: u32,
    _pad: u32,
}

/// What the `encode_*` methods need besides their inputs and outputs: a small uniform buffer of
/// lengths and a placeholder bound where an input is empty. Create it once with
/// [`Gpu::create_scratch`] and reuse it.
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
}

impl Scratch {
    /// A storage buffer of at least `bytes` for merge path's splits, reallocated when too small.
    /// Commands already recorded keep the old buffer alive.
    fn splits(&self, device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
        let mut splits = self.splits.lock().unwrap_or_else(|e| e.into_inner());
        match &*splits {
            Some(buffer) if buffer.size() >= bytes => buffer.clone(),
            _ => {
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgmerge merge path splits"),
                    size: bytes.next_power_of_two().max(256),
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                });
                *splits = Some(buffer.clone());
                buffer
            }
        }
    }
}

/// The caller's GPU buffers for [`Gpu::encode_merge`]. Keys are `u32`, tightly packed from
/// offset 0.
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

/// 4-byte values moving with the keys in [`MergeBuffers`]: one per key of A, of B and of the
/// output, with the same usages as the key buffers.
#[derive(Clone, Copy, Debug)]
pub struct ValueBuffers<'a> {
    /// Values of A.
    pub a: &'a wgpu::Buffer,
    /// Values of B.
    pub b: &'a wgpu::Buffer,
    /// Receives the merged values.
    pub out: &'a wgpu::Buffer,
}

/// A merge checked against the device and ready to record.
#[derive(Debug)]
struct MergePlan {
    kernel: Kernel,
    config: PipelineConfig,
    params: MergeParams,
    /// Workgroups of the merge dispatch, before folding.
    groups: u32,
    dispatch: (u32, u32),
    /// Merge path's partition pass: workgroups, folded.
    partition_dispatch: Option<(u32, u32)>,
}

impl MergePlan {
    fn is_empty(&self) -> bool {
        self.params.a_len == 0 && self.params.b_len == 0
    }
}

impl Gpu {
    /// Merges sorted `a` and `b` with the default options: upload, merge, read back.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge(&self, a: &[u32], b: &[u32]) -> Result<Vec<u32>, Error> {
        self.merge_with(a, b, &MergeOptions::default())
    }

    /// Merges sorted `a` and `b` with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_with(
        &self,
        a: &[u32],
        b: &[u32],
        options: &MergeOptions,
    ) -> Result<Vec<u32>, Error> {
        pollster::block_on(self.merge_async(a, b, options))
    }

    /// Merges sorted `a` and `b` with `options`, without blocking.
    ///
    /// The merge is stable: equal keys keep A's before B's. If an input is not sorted the result
    /// is unspecified, but it has `a.len() + b.len()` keys and no invocation reads or writes out
    /// of bounds.
    pub async fn merge_async(
        &self,
        a: &[u32],
        b: &[u32],
        options: &MergeOptions,
    ) -> Result<Vec<u32>, Error> {
        let (keys, _) = self.merge_host(a, b, None, options).await?;
        Ok(keys)
    }

    /// Merges sorted keys and moves each key's 4-byte value with it (stable: on equal keys A's
    /// pairs come first).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_pairs<V: Pod>(
        &self,
        a_keys: &[u32],
        a_values: &[V],
        b_keys: &[u32],
        b_values: &[V],
    ) -> Result<(Vec<u32>, Vec<V>), Error> {
        self.merge_pairs_with(a_keys, a_values, b_keys, b_values, &MergeOptions::default())
    }

    /// [`Gpu::merge_pairs`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_pairs_with<V: Pod>(
        &self,
        a_keys: &[u32],
        a_values: &[V],
        b_keys: &[u32],
        b_values: &[V],
        options: &MergeOptions,
    ) -> Result<(Vec<u32>, Vec<V>), Error> {
        pollster::block_on(self.merge_pairs_async(a_keys, a_values, b_keys, b_values, options))
    }

    /// [`Gpu::merge_pairs`] without blocking. Values must be 4 bytes (`u32`, `i32`, `f32`, or
    /// any 4-byte `Pod`); keys and values of one input must have the same length.
    pub async fn merge_pairs_async<V: Pod>(
        &self,
        a_keys: &[u32],
        a_values: &[V],
        b_keys: &[u32],
        b_values: &[V],
        options: &MergeOptions,
    ) -> Result<(Vec<u32>, Vec<V>), Error> {
        if std::mem::size_of::<V>() != 4 {
            return Err(Error::InvalidOptions(format!(
                "values must be 4 bytes, not {}",
                std::mem::size_of::<V>()
            )));
        }
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
        let values = (
            bytemuck::cast_slice(a_values),
            bytemuck::cast_slice(b_values),
        );
        let (keys, values) = self
            .merge_host(a_keys, b_keys, Some(values), options)
            .await?;
        Ok((keys, bytemuck::pod_collect_to_vec(&values)))
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
                size: 4,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            splits: Default::default(),
        }
    }

    /// Records a merge of GPU-resident buffers into `encoder`; nothing is read back. The merge
    /// runs when the caller submits the encoder. Inputs, output and options are checked here;
    /// see [`MergeBuffers`] for the buffers' requirements and [`Scratch`] for the scratch.
    pub fn encode_merge(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &MergeBuffers<'_>,
        options: &MergeOptions,
    ) -> Result<(), Error> {
        self.check_lost()?;
        let plan = self.plan_merge(
            buffers.a_len,
            buffers.b_len,
            buffers.values.is_some(),
            options,
        )?;
        let total = buffers.a_len + buffers.b_len;
        check_buffer("a", buffers.a, buffers.a_len)?;
        check_buffer("b", buffers.b, buffers.b_len)?;
        check_buffer("out", buffers.out, total)?;
        if let Some(values) = &buffers.values {
            check_buffer("a values", values.a, buffers.a_len)?;
            check_buffer("b values", values.b, buffers.b_len)?;
            check_buffer("out values", values.out, total)?;
        }
        self.record_merge(encoder, scratch, buffers, &plan);
        Ok(())
    }

    /// Checks lengths and options against the device and chooses the dispatch.
    fn plan_merge(
        &self,
        a_len: usize,
        b_len: usize,
        with_values: bool,
        options: &MergeOptions,
    ) -> Result<MergePlan, Error> {
        let limits = self.device.limits();
        let kernel = options.algorithm.kernel();
        let (default_workgroup, default_items) = options.algorithm.default_shape();
        let workgroup_size = options.workgroup_size.unwrap_or(default_workgroup);
        let items_per_thread = options.items_per_thread.unwrap_or(default_items);
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
        let per_step = u64::from(workgroup_size) * u64::from(items_per_thread);
        if kernel.uses_tiles() {
            // Two tiles of keys plus the two co-rank results shared by the workgroup.
            let bytes = per_step * 8 + 8;
            let max = u64::from(limits.max_compute_workgroup_storage_size);
            if bytes > max {
                return Err(Error::InvalidOptions(format!(
                    "tiles of {per_step} keys need {bytes} bytes of workgroup memory; this device has {max}"
                )));
            }
        }

        self.check_storage_buffers(kernel, with_values)?;

        let total = a_len + b_len;
        let binding_max = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            / 4;
        let max_len = MAX_MERGED_LEN.min(usize::try_from(binding_max).unwrap_or(usize::MAX));
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
            // Enough tiles per workgroup to amortise its co-rank, while keeping about 4096
            // workgroups to fill a large GPU.
            None => (total as u64)
                .div_ceil(per_step)
                .div_ceil(4096)
                .clamp(1, 16) as u32,
        };
        // Only the tiled kernels step through several tiles per workgroup.
        let steps_through_tiles = matches!(kernel, Kernel::MergeTiled | Kernel::MergeCircular);
        let per_group = if steps_through_tiles {
            per_step * u64::from(tiles_per_group)
        } else {
            per_step
        };
        let groups =
            u32::try_from((total as u64).div_ceil(per_group)).map_err(|_| Error::TooLarge {
                what: "workgroups in one dispatch",
                len: total,
                max: max_len,
            })?;
        Ok(MergePlan {
            kernel,
            config: PipelineConfig {
                workgroup_size,
                items_per_thread,
                with_values,
            },
            params: MergeParams {
                a_len: a_len as u32,
                b_len: b_len as u32,
                tiles_per_group,
                _pad: 0,
            },
            groups,
            dispatch: self.dispatch_shape(groups)?,
            // One invocation per workgroup boundary, the last one included.
            partition_dispatch: match kernel {
                Kernel::MergePath => {
                    Some(self.dispatch_shape((groups + 1).div_ceil(workgroup_size))?)
                }
                _ => None,
            },
        })
    }

    /// Records a planned merge. Empty inputs and absent values are bound to the placeholder.
    fn record_merge(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &MergeBuffers<'_>,
        plan: &MergePlan,
    ) {
        if plan.is_empty() {
            return;
        }
        self.queue
            .write_buffer(&scratch.params, 0, bytemuck::bytes_of(&plan.params));
        let total = buffers.a_len + buffers.b_len;
        let binding = |buffer, len| bind_keys(buffer, len, &scratch.placeholder);
        let mut resources = vec![
            scratch.params.as_entire_binding(),
            binding(buffers.a, buffers.a_len),
            binding(buffers.b, buffers.b_len),
            binding(buffers.out, total),
        ];
        if let Some(v) = &buffers.values {
            resources.extend([
                binding(v.a, buffers.a_len),
                binding(v.b, buffers.b_len),
                binding(v.out, total),
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
        let splits = plan
            .partition_dispatch
            .map(|_| scratch.splits(&self.device, (u64::from(plan.groups) + 1) * 4));
        if let Some(splits) = &splits {
            entries.push(wgpu::BindGroupEntry {
                binding: 7,
                resource: splits.as_entire_binding(),
            });
        }
        let bind_group = |kernel: Kernel, entries: &[wgpu::BindGroupEntry<'_>]| {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(kernel.entry_point()),
                layout: &self
                    .layout(kernel.bindings(plan.config.with_values))
                    .bind_group,
                entries,
            })
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(plan.kernel.entry_point()),
            timestamp_writes: None,
        });
        if let Some(dispatch) = plan.partition_dispatch {
            // Params, A, B and the splits.
            let wanted = [0, 1, 2, 7];
            let partition_entries: Vec<_> = entries
                .iter()
                .filter(|e| wanted.contains(&e.binding))
                .cloned()
                .collect();
            let kernel = Kernel::MergePathPartition;
            pass.set_pipeline(&self.pipeline(
                kernel,
                PipelineConfig {
                    with_values: false,
                    ..plan.config
                },
            ));
            pass.set_bind_group(0, &bind_group(kernel, &partition_entries), &[]);
            pass.dispatch_workgroups(dispatch.0, dispatch.1, 1);
        }
        pass.set_pipeline(&self.pipeline(plan.kernel, plan.config));
        pass.set_bind_group(0, &bind_group(plan.kernel, &entries), &[]);
        pass.dispatch_workgroups(plan.dispatch.0, plan.dispatch.1, 1);
    }

    /// Upload, merge, read back: the slice forms share this. Returns keys and value bytes.
    async fn merge_host(
        &self,
        a: &[u32],
        b: &[u32],
        values: Option<(&[u8], &[u8])>,
        options: &MergeOptions,
    ) -> Result<(Vec<u32>, Vec<u8>), Error> {
        let plan = self.plan_merge(a.len(), b.len(), values.is_some(), options)?;
        if plan.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let key_bytes = (a.len() + b.len()) as u64 * 4;
        let value_bytes = if values.is_some() { key_bytes } else { 0 };
        let staging = self
            .scoped(|| {
                let scratch = self.create_scratch();
                let upload = |data: &[u8]| {
                    // An empty input is bound to the placeholder; give it a valid buffer anyway.
                    self.device
                        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                            label: Some("wgmerge input"),
                            contents: if data.is_empty() { &[0; 4] } else { data },
                            usage: wgpu::BufferUsages::STORAGE,
                        })
                };
                let output = |size: u64| {
                    self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("wgmerge output"),
                        size: size.max(4),
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    })
                };
                let (a_buffer, b_buffer, out) = (
                    upload(bytemuck::cast_slice(a)),
                    upload(bytemuck::cast_slice(b)),
                    output(key_bytes),
                );
                let value_buffers = values.map(|(a_values, b_values)| {
                    (upload(a_values), upload(b_values), output(value_bytes))
                });
                let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgmerge readback"),
                    size: key_bytes + value_bytes,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                let mut encoder = self.device.create_command_encoder(&Default::default());
                let buffers = MergeBuffers {
                    a: &a_buffer,
                    a_len: a.len(),
                    b: &b_buffer,
                    b_len: b.len(),
                    out: &out,
                    values: value_buffers
                        .as_ref()
                        .map(|(a, b, out)| ValueBuffers { a, b, out }),
                };
                self.record_merge(&mut encoder, &scratch, &buffers, &plan);
                encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, key_bytes);
                if let Some((_, _, out_values)) = &value_buffers {
                    encoder.copy_buffer_to_buffer(out_values, 0, &staging, key_bytes, value_bytes);
                }
                self.queue.submit([encoder.finish()]);
                staging
            })
            .await?;
        let mut bytes = self.read_back(&staging).await?;
        let value_bytes = bytes.split_off(key_bytes as usize);
        Ok((bytemuck::pod_collect_to_vec(&bytes), value_bytes))
    }
}

/// Binds the first `len` 4-byte elements of `buffer`, or the placeholder when there are none.
fn bind_keys<'a>(
    buffer: &'a wgpu::Buffer,
    len: usize,
    placeholder: &'a wgpu::Buffer,
) -> wgpu::BindingResource<'a> {
    if len == 0 {
        return placeholder.as_entire_binding();
    }
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset: 0,
        size: wgpu::BufferSize::new(len as u64 * 4),
    })
}

/// Checks that a caller's buffer can be bound for `len` keys or values.
pub(crate) fn check_buffer(
    name: &'static str,
    buffer: &wgpu::Buffer,
    len: usize,
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
    let needed = len as u64 * 4;
    if buffer.size() < needed {
        return Err(Error::BufferTooSmall {
            buffer: name,
            needed,
            actual: buffer.size(),
        });
    }
    Ok(())
}
