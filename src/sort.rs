//! Merge sort built on merge path: `sort_block.wgsl` sorts each workgroup's tile, then merge
//! path's two passes (`merge_path.wgsl` with `run_len`) merge every pair of sorted runs at once,
//! doubling the run length until one run remains. All passes are recorded into one submission.

use bytemuck::Pod;

use crate::gpu::{host_collect, host_vec};
use crate::key::{Key, KeyType, Order};
use crate::merge::{
    bind_elements, check_buffer, check_value_size, value_size, MergeBuffers, MergeParams,
    MergePlan, Scratch, ValueBuffers,
};
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
    /// Invocations per workgroup, for the block sort and the merge passes; `None` takes
    /// [`SORT_SHAPE`]'s.
    pub workgroup_size: Option<u32>,
    /// Keys each invocation sorts and merges per pass; `None` takes [`SORT_SHAPE`]'s. A
    /// workgroup sorts `workgroup_size * items_per_thread` keys in its first pass.
    pub items_per_thread: Option<u32>,
}

/// The default (workgroup size, items per thread) of a sort. The block sort keeps a tile of keys
/// and two permutations of it in workgroup memory, so it cannot take merge path's larger
/// default; 768 keys need 9 KiB (12 KiB for 64-bit keys), within WebGPU's default 16 KiB.
pub const SORT_SHAPE: (u32, u32) = (256, 3);

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
        let size = value_size::<V>()?;
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                what: "keys and values",
                left: keys.len(),
                right: values.len(),
            });
        }
        let bytes = bytemuck::cast_slice(values);
        let (keys, values) = self.sort_host(keys, Some((bytes, size)), options).await?;
        Ok((keys, host_collect(&values)?))
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
        // Keys and values together in one readback buffer.
        let max = self.max_readback_len(K::TYPE.size() + value_size, 0);
        if len > max {
            return Err(Error::TooLarge {
                what: "sort input",
                len,
                max,
            });
        }
        let plan = self.plan_sort(K::TYPE, len, value_size, options)?;
        if len == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let key_bytes = len as u64 * u64::from(K::TYPE.size());
        let value_bytes = len as u64 * u64::from(value_size);
        let storage = wgpu::BufferUsages::STORAGE;
        let copy = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let buffer = |label, size, usage| self.buffer_at_least_8(label, size, usage);
        let (key_buffers, value_buffers, staging, scratch) = self
            .scoped(|| {
                (
                    [0, 1].map(|_| buffer("wgmerge sort keys", key_bytes, storage | copy)),
                    values.map(|_| {
                        [0, 1].map(|_| buffer("wgmerge sort values", value_bytes, storage | copy))
                    }),
                    buffer(
                        "wgmerge sort readback",
                        key_bytes + value_bytes,
                        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    ),
                    self.create_scratch(),
                )
            })
            .await?;

        let staging = self
            .scoped(|| {
                self.queue
                    .write_buffer(&key_buffers[0], 0, bytemuck::cast_slice(keys));
                if let (Some((bytes, _)), Some(buffers)) = (values, &value_buffers) {
                    self.queue.write_buffer(&buffers[0], 0, bytes);
                }
                let buffers = SortBuffers {
                    keys: &key_buffers[0],
                    temp: &key_buffers[1],
                    len,
                    values: value_buffers
                        .as_ref()
                        .map(|[values, temp]| SortValueBuffers {
                            values,
                            temp,
                            value_size,
                        }),
                };
                let mut encoder = self.device.create_command_encoder(&Default::default());
                // Here the result may stay in the temporary buffers: no extra pass.
                let groups = self.sort_bind_groups(&scratch, &buffers, &plan, false);
                let result = self.record_sort(&mut encoder, &plan, &groups);
                encoder.copy_buffer_to_buffer(&key_buffers[result], 0, &staging, 0, key_bytes);
                if let Some(buffers) = &value_buffers {
                    encoder.copy_buffer_to_buffer(
                        &buffers[result],
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
        self.read_back(&staging, |bytes| {
            let (sorted_keys, rest) = bytes.split_at(key_bytes as usize);
            Ok((
                host_collect(sorted_keys)?,
                host_vec(value_bytes as usize, 0u8).map(|mut values| {
                    values.copy_from_slice(&rest[..value_bytes as usize]);
                    values
                })?,
            ))
        })
        .await?
    }

    /// Records a sort of GPU-resident buffers of `K` keys into `encoder`; nothing is read back.
    /// The sorted keys (and values) end in `buffers.keys` (and `values`); the temporary buffers
    /// are overwritten. The input must fit one storage binding ([`Gpu::max_merge_len`]). The
    /// scratch's lengths are written at the next submit, as for [`Gpu::encode_merge`].
    pub fn encode_sort<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &SortBuffers<'_>,
        options: &SortOptions,
    ) -> Result<(), Error> {
        self.check_lost()?;
        let value_size = check_value_size(buffers.values.map_or(0, |v| v.value_size))?;
        let plan = self.plan_sort(K::TYPE, buffers.len, value_size, options)?;
        let key_size = K::TYPE.size();
        check_buffer("keys", buffers.keys, buffers.len, key_size)?;
        check_buffer("temp", buffers.temp, buffers.len, key_size)?;
        if let Some(values) = &buffers.values {
            check_buffer("values", values.values, buffers.len, value_size)?;
            check_buffer("values temp", values.temp, buffers.len, value_size)?;
        }
        if buffers.len == 0 {
            return Ok(());
        }
        let groups = self.checked(|| self.sort_bind_groups(scratch, buffers, &plan, true))?;
        let result = self.record_sort(encoder, &plan, &groups);
        debug_assert_eq!(result, 0, "the resident sort ends in the caller's buffers");
        Ok(())
    }

    /// Checks a sort's options, length and shape against the device and plans its passes.
    fn plan_sort(
        &self,
        key: KeyType,
        len: usize,
        value_size: u32,
        options: &SortOptions,
    ) -> Result<SortPlan, Error> {
        let max = self.max_merge_len(key, value_size);
        if len > max {
            return Err(Error::TooLarge {
                what: "sort input",
                len,
                max,
            });
        }
        let (workgroup_size, items_per_thread) = SORT_SHAPE;
        let merge_options = MergeOptions {
            algorithm: Algorithm::MergePath,
            order: options.order,
            workgroup_size: Some(options.workgroup_size.unwrap_or(workgroup_size)),
            items_per_thread: Some(options.items_per_thread.unwrap_or(items_per_thread)),
            // Each pass's parameters are the sort's own, with one tile per workgroup.
            tiles_per_workgroup: Some(1),
            ..Default::default()
        };
        // Checks the shape, merge path's workgroup memory and the storage buffers.
        let merge = self.plan_merge(key, len, 0, value_size, &merge_options)?;
        let config = merge.config;
        let block_memory = Kernel::SortBlock.workgroup_memory(&config);
        let memory_limit = u64::from(self.limits().max_compute_workgroup_storage_size);
        if block_memory > memory_limit {
            return Err(Error::InvalidOptions(format!(
                "sorting {} {} keys per workgroup needs {block_memory} bytes of workgroup memory; this device has {memory_limit}",
                config.workgroup_size * config.items_per_thread,
                key.name(),
            )));
        }
        let tile = config.workgroup_size as usize * config.items_per_thread as usize;
        let runs = len.div_ceil(tile).max(1);
        Ok(SortPlan {
            len,
            tile,
            // Merge passes: each halves the number of runs.
            passes: runs.next_power_of_two().trailing_zeros(),
            block_dispatch: self.dispatch_shape(runs as u32)?,
            merge,
        })
    }

    /// The bind groups of every pass, after writing every pass's parameters into the scratch.
    /// With `end_in_place`, a last pass copies the result back when it would otherwise end in
    /// the temporary buffers.
    fn sort_bind_groups(
        &self,
        scratch: &Scratch,
        buffers: &SortBuffers<'_>,
        plan: &SortPlan,
        end_in_place: bool,
    ) -> SortBindGroups {
        // Pass p of the merge passes reads buffer 1 - p % 2 (the block sort writes buffer 1);
        // an even number of them ends in buffer 1, the temporary one.
        let extra = end_in_place && plan.passes.is_multiple_of(2);
        let merge_passes = plan.passes + u32::from(extra);
        let stride = params_stride(self);
        let mut slots = vec![0u8; (stride * (1 + u64::from(merge_passes))) as usize];
        for pass in 0..=merge_passes {
            let run_len = match pass {
                0 => 0,
                // The extra pass merges one run, all of it, with nothing: a copy.
                p if p > plan.passes => plan.len,
                p => plan.tile << (p - 1),
            };
            let slot = MergeParams {
                a_len: plan.len as u32,
                b_len: 0,
                tiles_per_group: 1,
                run_len: run_len as u32,
            };
            let at = (stride * u64::from(pass)) as usize;
            slots[at..at + std::mem::size_of::<MergeParams>()]
                .copy_from_slice(bytemuck::bytes_of(&slot));
        }
        let params = scratch.sort_params(&self.device, slots.len() as u64);
        self.queue.write_buffer(&params, 0, &slots);
        let splits = scratch.splits(&self.device, (u64::from(plan.merge.tiles) + 1) * 4);
        let params_slot = |pass: u32| {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &params,
                offset: stride * u64::from(pass),
                size: wgpu::BufferSize::new(std::mem::size_of::<MergeParams>() as u64),
            })
        };

        let len = plan.len;
        let key_size = plan.merge.config.key.size();
        let keys = [buffers.keys, buffers.temp];
        let values = buffers.values.map(|v| [v.values, v.temp]);
        let value_size = buffers.values.map_or(0, |v| v.value_size);
        let mut resources = vec![
            params_slot(0),
            bind_elements(keys[0], len, key_size, keys[0]),
            bind_elements(keys[0], len, key_size, keys[0]),
            bind_elements(keys[1], len, key_size, keys[1]),
        ];
        if let Some(values) = values {
            resources.extend([
                bind_elements(values[0], len, value_size, values[0]),
                bind_elements(values[0], len, value_size, values[0]),
                bind_elements(values[1], len, value_size, values[1]),
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
        let block = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(kernel.entry_point()),
            layout: &self.layout(kernel.bindings(value_size > 0)).bind_group,
            entries: &entries,
        });

        let merges = (0..merge_passes)
            .map(|pass| {
                let source = 1 - (pass % 2) as usize;
                let target = 1 - source;
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
                        value_size,
                    }),
                };
                let mut merge = plan.merge.clone();
                merge.params.run_len = if pass < plan.passes {
                    (plan.tile << pass) as u32
                } else {
                    len as u32
                };
                let groups = self.merge_bind_groups(
                    params_slot(pass + 1),
                    keys[source],
                    Some((&splits, &scratch.chunk_counter)),
                    &buffers,
                    &merge,
                );
                (merge, groups)
            })
            .collect();
        SortBindGroups { block, merges }
    }

    /// Records a planned sort's passes; returns which buffer holds the result (0: the keys,
    /// 1: the temporary one).
    fn record_sort(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        plan: &SortPlan,
        groups: &SortBindGroups,
    ) -> usize {
        {
            let kernel = Kernel::SortBlock;
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(kernel.entry_point()),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline(kernel, plan.merge.config));
            pass.set_bind_group(0, &groups.block, &[]);
            pass.dispatch_workgroups(plan.block_dispatch.0, plan.block_dispatch.1, 1);
        }
        for (merge, bind_groups) in &groups.merges {
            self.record_merge_dispatches(encoder, merge, bind_groups);
        }
        1 - groups.merges.len() % 2
    }
}

/// A sort checked against the device: its length, tile and passes.
struct SortPlan {
    len: usize,
    /// Keys each workgroup of the block sort sorts; runs after it are this long.
    tile: usize,
    /// Merge passes needed to leave one run.
    passes: u32,
    block_dispatch: (u32, u32),
    /// Merge path over the whole input, in the sort's shape; each pass sets its run length.
    merge: MergePlan,
}

/// Bind groups of a sort: the block sort, then each merge pass with its plan.
struct SortBindGroups {
    block: wgpu::BindGroup,
    merges: Vec<(MergePlan, (Option<wgpu::BindGroup>, wgpu::BindGroup))>,
}

/// The caller's GPU buffers for [`Gpu::encode_sort`]. Keys are of the [`Key`] type the call
/// names, tightly packed from offset 0; every buffer needs `STORAGE` and room for `len`
/// elements.
#[derive(Clone, Copy, Debug)]
pub struct SortBuffers<'a> {
    /// The keys to sort; receives the sorted keys.
    pub keys: &'a wgpu::Buffer,
    /// Scratch of the same size: the passes go back and forth between the two.
    pub temp: &'a wgpu::Buffer,
    /// Keys to sort.
    pub len: usize,
    /// Values moved with the keys, if any.
    pub values: Option<SortValueBuffers<'a>>,
}

/// Values moving with the keys in [`SortBuffers`].
#[derive(Clone, Copy, Debug)]
pub struct SortValueBuffers<'a> {
    /// One value per key; receives the values in sorted order.
    pub values: &'a wgpu::Buffer,
    /// Scratch of the same size.
    pub temp: &'a wgpu::Buffer,
    /// Bytes per value: 4 or 8.
    pub value_size: u32,
}
