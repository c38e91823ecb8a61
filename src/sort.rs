//! Merge sort built on merge path: `sort_block.wgsl` sorts each workgroup's tile, then merge
//! path's two passes (`merge_path.wgsl` with `run_len`) merge every pair of sorted runs at once,
//! doubling the run length until one run remains. All passes are recorded into one submission.

use bytemuck::Pod;

use crate::key::{Key, Order};
use crate::merge::{bind_elements, MergeBuffers, MergeParams, ValueBuffers};
use crate::shader::Kernel;
use crate::{Algorithm, Error, Gpu, MergeOptions};

/// How to sort. A plain struct: set the fields you need and take the rest from `Default`.
///
/// ```
/// use wgmerge::{Order, SortOptions};
/// let options = SortOptions { order: Order::Descending, ..Default::default() };
/// # let _ = options;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SortOptions {
    /// The order of the output. Equal keys keep their input order either way (stable).
    pub order: Order,
    /// Invocations per workgroup, for the block sort and the merge passes; `None` takes merge
    /// path's default ([`Algorithm::default_shape`]).
    pub workgroup_size: Option<u32>,
    /// Keys each invocation sorts and merges per pass; `None` takes merge path's default. A
    /// workgroup sorts `workgroup_size * items_per_thread` keys in its first pass.
    pub items_per_thread: Option<u32>,
}

/// Bytes of one slot of the uniform buffer holding every pass's parameters.
fn params_stride(gpu: &Gpu) -> u64 {
    let alignment = u64::from(gpu.limits().min_uniform_buffer_offset_alignment);
    alignment.max(std::mem::size_of::<MergeParams>() as u64)
}

impl Gpu {
    /// Sorts `keys` ascending, stably: upload, sort, read back.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sort<K: Key>(&self, keys: &[K]) -> Result<Vec<K>, Error> {
        self.sort_with(keys, &SortOptions::default())
    }

    /// [`Gpu::sort`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sort_with<K: Key>(&self, keys: &[K], options: &SortOptions) -> Result<Vec<K>, Error> {
        pollster::block_on(self.sort_async(keys, options))
    }

    /// [`Gpu::sort_with`] without blocking.
    pub async fn sort_async<K: Key>(
        &self,
        keys: &[K],
        options: &SortOptions,
    ) -> Result<Vec<K>, Error> {
        Ok(self.sort_host(keys, None, options).await?.0)
    }

    /// Sorts `keys` ascending and moves each key's value with it; stable, so equal keys keep
    /// their values' input order. Values are 4 or 8 bytes, one per key.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sort_pairs<K: Key, V: Pod>(
        &self,
        keys: &[K],
        values: &[V],
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.sort_pairs_with(keys, values, &SortOptions::default())
    }

    /// [`Gpu::sort_pairs`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sort_pairs_with<K: Key, V: Pod>(
        &self,
        keys: &[K],
        values: &[V],
        options: &SortOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        pollster::block_on(self.sort_pairs_async(keys, values, options))
    }

    /// [`Gpu::sort_pairs_with`] without blocking.
    pub async fn sort_pairs_async<K: Key, V: Pod>(
        &self,
        keys: &[K],
        values: &[V],
        options: &SortOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        let size = std::mem::size_of::<V>();
        if size != 4 && size != 8 {
            return Err(Error::InvalidOptions(format!(
                "values must be 4 or 8 bytes, not {size}"
            )));
        }
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                what: "keys and values",
                left: keys.len(),
                right: values.len(),
            });
        }
        let bytes = bytemuck::cast_slice(values);
        let (keys, values) = self
            .sort_host(keys, Some((bytes, size as u32)), options)
            .await?;
        Ok((keys, bytemuck::pod_collect_to_vec(&values)))
    }

    /// Upload, sort, read back; returns keys and value bytes. The whole input must fit one
    /// storage binding ([`Gpu::max_merge_len`]) and, keys and values together, one buffer.
    async fn sort_host<K: Key>(
        &self,
        keys: &[K],
        values: Option<(&[u8], u32)>,
        options: &SortOptions,
    ) -> Result<(Vec<K>, Vec<u8>), Error> {
        let value_size = values.map_or(0, |(_, size)| size);
        let len = keys.len();
        // One binding per array, and keys and values together in one readback buffer.
        let max = self
            .max_merge_len(K::TYPE, value_size)
            .min(self.max_readback_len(K::TYPE.size() + value_size, 0));
        if len > max {
            return Err(Error::TooLarge {
                what: "sort input",
                len,
                max,
            });
        }
        // The block sort needs more workgroup memory than merge path: stay with its default
        // shape rather than its large one.
        let (workgroup_size, items_per_thread) = Algorithm::MergePath.default_shape(K::TYPE);
        let merge_options = MergeOptions {
            algorithm: Algorithm::MergePath,
            order: options.order,
            workgroup_size: Some(options.workgroup_size.unwrap_or(workgroup_size)),
            items_per_thread: Some(options.items_per_thread.unwrap_or(items_per_thread)),
            ..Default::default()
        };
        // Checks the shape, merge path's workgroup memory and the storage buffers.
        let merge = self.plan_merge(K::TYPE, len, 0, value_size, &merge_options)?;
        let config = merge.config;
        let block_memory = Kernel::SortBlock.workgroup_memory(&config);
        let memory_limit = u64::from(self.limits().max_compute_workgroup_storage_size);
        if block_memory > memory_limit {
            return Err(Error::InvalidOptions(format!(
                "sorting {} {} keys per workgroup needs {block_memory} bytes of workgroup memory; this device has {memory_limit}",
                config.workgroup_size * config.items_per_thread,
                K::TYPE.name(),
            )));
        }
        if len == 0 {
            return Ok((Vec::new(), Vec::new()));
        }

        let tile = config.workgroup_size as usize * config.items_per_thread as usize;
        let runs = len.div_ceil(tile);
        // Merge passes: each halves the number of runs.
        let passes = runs.next_power_of_two().trailing_zeros();
        let block_dispatch = self.dispatch_shape(runs as u32)?;
        let stride = params_stride(self);
        let key_bytes = len as u64 * u64::from(K::TYPE.size());
        let value_bytes = len as u64 * u64::from(value_size);

        let storage = wgpu::BufferUsages::STORAGE;
        let copy = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let buffer = |label, size: u64, usage| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.max(8),
                usage,
                mapped_at_creation: false,
            })
        };
        let (key_buffers, value_buffers, params, splits, staging) = self
            .scoped(|| {
                (
                    [0, 1].map(|_| buffer("wgmerge sort keys", key_bytes, storage | copy)),
                    values.map(|_| {
                        [0, 1].map(|_| buffer("wgmerge sort values", value_bytes, storage | copy))
                    }),
                    buffer(
                        "wgmerge sort params",
                        stride * (1 + u64::from(passes)),
                        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    ),
                    buffer(
                        "wgmerge sort splits",
                        (u64::from(merge.groups) + 1) * 4,
                        storage,
                    ),
                    buffer(
                        "wgmerge sort readback",
                        key_bytes + value_bytes,
                        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    ),
                )
            })
            .await?;

        let staging = self
            .scoped(|| {
                // Slot 0: the block sort; slot p + 1: merge pass p, runs of tile << p.
                let mut slots = vec![0u8; (stride * (1 + u64::from(passes))) as usize];
                for pass in 0..=passes {
                    let run_len = if pass == 0 { 0 } else { tile << (pass - 1) };
                    let slot = MergeParams {
                        a_len: len as u32,
                        b_len: 0,
                        tiles_per_group: 1,
                        run_len: run_len as u32,
                    };
                    let at = (stride * u64::from(pass)) as usize;
                    slots[at..at + std::mem::size_of::<MergeParams>()]
                        .copy_from_slice(bytemuck::bytes_of(&slot));
                }
                self.queue.write_buffer(&params, 0, &slots);
                self.queue
                    .write_buffer(&key_buffers[0], 0, bytemuck::cast_slice(keys));
                if let (Some((bytes, _)), Some(buffers)) = (values, &value_buffers) {
                    self.queue.write_buffer(&buffers[0], 0, bytes);
                }
                let params_slot = |pass: u32| {
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &params,
                        offset: stride * u64::from(pass),
                        size: wgpu::BufferSize::new(std::mem::size_of::<MergeParams>() as u64),
                    })
                };
                let mut encoder = self.device.create_command_encoder(&Default::default());

                // The block sort, from buffer 0 into buffer 1.
                let key_size = K::TYPE.size();
                let mut resources = vec![
                    params_slot(0),
                    bind_elements(&key_buffers[0], len, key_size, &key_buffers[0]),
                    bind_elements(&key_buffers[0], len, key_size, &key_buffers[0]),
                    bind_elements(&key_buffers[1], len, key_size, &key_buffers[1]),
                ];
                if let Some(buffers) = &value_buffers {
                    resources.extend([
                        bind_elements(&buffers[0], len, value_size, &buffers[0]),
                        bind_elements(&buffers[0], len, value_size, &buffers[0]),
                        bind_elements(&buffers[1], len, value_size, &buffers[1]),
                    ]);
                }
                let entries: Vec<_> = resources
                    .into_iter()
                    .enumerate()
                    .map(|(binding, resource)| wgpu::BindGroupEntry {
                        binding: binding as u32,
                        resource,
                    })
                    .collect();
                let kernel = Kernel::SortBlock;
                let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(kernel.entry_point()),
                    layout: &self.layout(kernel.bindings(value_size > 0)).bind_group,
                    entries: &entries,
                });
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(kernel.entry_point()),
                        timestamp_writes: None,
                    });
                    pass.set_pipeline(&self.pipeline(kernel, config));
                    pass.set_bind_group(0, &bind_group, &[]);
                    pass.dispatch_workgroups(block_dispatch.0, block_dispatch.1, 1);
                }

                // Merge passes, back and forth between the buffers.
                let mut source = 1;
                for pass in 0..passes {
                    let target = 1 - source;
                    let buffers = MergeBuffers {
                        a: &key_buffers[source],
                        a_len: len,
                        b: &key_buffers[source],
                        b_len: 0,
                        out: &key_buffers[target],
                        values: value_buffers.as_ref().map(|v| ValueBuffers {
                            a: &v[source],
                            b: &v[source],
                            out: &v[target],
                            value_size,
                        }),
                    };
                    let mut plan_params = merge.params;
                    plan_params.run_len = (tile << pass) as u32;
                    let plan = crate::merge::MergePlan {
                        params: plan_params,
                        ..merge.clone()
                    };
                    self.record_merge_passes(
                        &mut encoder,
                        params_slot(pass + 1),
                        &key_buffers[source],
                        Some(&splits),
                        &buffers,
                        &plan,
                    );
                    source = target;
                }

                encoder.copy_buffer_to_buffer(&key_buffers[source], 0, &staging, 0, key_bytes);
                if let Some(buffers) = &value_buffers {
                    encoder.copy_buffer_to_buffer(
                        &buffers[source],
                        0,
                        &staging,
                        key_bytes,
                        value_bytes,
                    );
                }
                self.queue.submit([encoder.finish()]);
                staging
            })
            .await?;
        let bytes = self.read_back(&staging).await?;
        let (sorted_keys, rest) = bytes.split_at(key_bytes as usize);
        Ok((
            bytemuck::pod_collect_to_vec(sorted_keys),
            rest[..value_bytes as usize].to_vec(),
        ))
    }
}
