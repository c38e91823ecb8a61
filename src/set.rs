//! Set operations on two sorted inputs, on the GPU: union, intersection, difference and
//! symmetric difference, as multisets, with the C++ library's `std::set_*` rule for repeated
//! keys. `set_ops.wgsl` decides every element at once (its rank among equal keys in its own
//! input against the copies of its key in the other), a scan ranks the kept ones, and each is
//! written where the stable merge of the kept elements puts it. Four dispatches, one submission,
//! one readback.

use bytemuck::Pod;

use crate::gpu::{host_collect, host_vec};
use crate::key::{Key, KeyType, Order};
use crate::merge::{HostValues, Validation};
use crate::shader::{Kernel, PipelineConfig};
use crate::{Error, Gpu, Side};

/// A set operation on two sorted inputs, each a multiset. For a key found `m` times in A and `n`
/// times in B the result holds:
///
/// | operation | copies | taken from |
/// |---|---|---|
/// | `Union` | max(m, n) | A's m, then B's last n - m |
/// | `Intersection` | min(m, n) | A's first min(m, n) |
/// | `Difference` (A - B) | m - n if m > n | A's last m - n |
/// | `SymmetricDifference` | \|m - n\| | A's last m - n or B's last n - m |
///
/// the rule of C++'s `std::set_union` and its siblings. The result is sorted in the inputs'
/// order, and stable: where A and B both contribute copies of a key, A's come first, and values
/// travel with their keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetOperation {
    /// Every key of either input.
    Union,
    /// The keys in both.
    Intersection,
    /// The keys of A that are not in B.
    Difference,
    /// The keys in one input but not the other.
    SymmetricDifference,
}

impl SetOperation {
    /// Every operation.
    pub const ALL: [SetOperation; 4] = [
        SetOperation::Union,
        SetOperation::Intersection,
        SetOperation::Difference,
        SetOperation::SymmetricDifference,
    ];

    /// Lower-case name, as benchmarks and the demo print it.
    pub fn name(self) -> &'static str {
        match self {
            SetOperation::Union => "union",
            SetOperation::Intersection => "intersection",
            SetOperation::Difference => "difference",
            SetOperation::SymmetricDifference => "symmetric_difference",
        }
    }

    /// The operation called `name` (see [`SetOperation::name`]).
    pub fn from_name(name: &str) -> Option<SetOperation> {
        SetOperation::ALL.into_iter().find(|op| op.name() == name)
    }

    /// `SET_OPERATION` in `set_ops.wgsl`.
    pub(crate) fn index(self) -> u8 {
        self as u8
    }
}

/// How to run a set operation. A plain struct: set the fields you need and take the rest from
/// `Default`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetOptions {
    /// The order both inputs are sorted in, and the output's.
    pub order: Order,
    /// Invocations per workgroup; `None` takes 256.
    pub workgroup_size: Option<u32>,
    /// Elements each invocation decides per pass (1..=[`MAX_ITEMS_PER_THREAD`](crate::MAX_ITEMS_PER_THREAD)); `None` takes 4.
    pub items_per_thread: Option<u32>,
    /// Check on the GPU that both inputs are sorted in `order`, returning [`Error::Unsorted`]
    /// with the first out-of-order index if not (as [`crate::MergeOptions::validate`]). Costs one
    /// extra read of the inputs.
    pub validate: bool,
}

/// The shape the set operation's passes run in unless the options name another.
const DEFAULT_SHAPE: (u32, u32) = (256, 4);

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
        pollster::block_on(self.set_operation_async(operation, a, b, options))
    }

    /// [`Gpu::set_operation_with`] without blocking, for targets that cannot block.
    pub async fn set_operation_async<K: Key>(
        &self,
        operation: SetOperation,
        a: &[K],
        b: &[K],
        options: &SetOptions,
    ) -> Result<Vec<K>, Error> {
        Ok(self.set_host(operation, a, b, None, options).await?.0)
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
        pollster::block_on(
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
        let (keys, values) = self
            .set_host(operation, a_keys, b_keys, Some(values), options)
            .await?;
        Ok((keys, host_collect(&values)?))
    }

    /// The longest pair of inputs (`a.len() + b.len()`) a set operation takes on this device for
    /// `key` keys with values of `value_size` bytes (0 for none): the inputs, the output and a
    /// work buffer of two words per element each fit one storage binding.
    /// In the default shape; a smaller tile (more blocks) takes a little less.
    pub fn max_set_len(&self, key: KeyType, value_size: u32) -> usize {
        let tile = DEFAULT_SHAPE.0 * DEFAULT_SHAPE.1;
        self.max_set_len_in(key, value_size, u64::from(tile))
    }

    fn max_set_len_in(&self, key: KeyType, value_size: u32, tile: u64) -> usize {
        let limits = self.limits();
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        // Two lengths, two words per element, one per block of `tile`, and the total.
        let words = binding / 4;
        let work = words.saturating_sub(3) * tile / (2 * tile + 1);
        let work = usize::try_from(work).unwrap_or(usize::MAX);
        let readback = self.max_readback_len(key.size() + value_size, 4);
        self.max_merge_len(key, value_size).min(work).min(readback)
    }

    /// Checks a set operation's options and length against the device: the pipeline shape.
    fn plan_set(
        &self,
        key: KeyType,
        len: usize,
        value_size: u32,
        options: &SetOptions,
    ) -> Result<PipelineConfig, Error> {
        let workgroup_size = options.workgroup_size.unwrap_or(DEFAULT_SHAPE.0);
        let items_per_thread = options.items_per_thread.unwrap_or(DEFAULT_SHAPE.1);
        self.check_shape(workgroup_size, items_per_thread)?;
        let tile = u64::from(workgroup_size) * u64::from(items_per_thread);
        let max = self.max_set_len_in(key, value_size, tile);
        if len > max {
            return Err(Error::TooLarge {
                what: "set operation input",
                len,
                max,
            });
        }
        let config = PipelineConfig {
            workgroup_size,
            items_per_thread,
            key,
            order: options.order,
            value_size,
        };
        self.check_storage_buffers(Kernel::SetScatter, value_size > 0)?;
        Ok(config)
    }

    /// Upload, run the four passes, read back the kept elements; returns keys and value bytes.
    async fn set_host<K: Key>(
        &self,
        operation: SetOperation,
        a: &[K],
        b: &[K],
        values: Option<HostValues<'_>>,
        options: &SetOptions,
    ) -> Result<(Vec<K>, Vec<u8>), Error> {
        let value_size = values.map_or(0, |v| v.size);
        let len = a.len() + b.len();
        let config = self.plan_set(K::TYPE, len, value_size, options)?;
        if len == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let tile = config.workgroup_size as usize * config.items_per_thread as usize;
        let blocks = len.div_ceil(tile);
        let dispatch = self.dispatch_shape(blocks as u32)?;
        let key_size = u64::from(K::TYPE.size());
        let value_size = u64::from(value_size);
        let out_bytes = len as u64 * key_size;
        let out_value_bytes = len as u64 * value_size;
        // The work buffer: two lengths, two words per element, one per block, the total.
        let total_at = (2 + 2 * len + blocks) as u64 * 4;

        let staging = self
            .scoped(|| {
                let buffer = |label, size, usage| self.buffer_at_least_8(label, size, usage);
                let input = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
                let output = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
                let upload = |label, bytes: &[u8]| {
                    let buffer = buffer(label, bytes.len() as u64, input);
                    self.queue.write_buffer(&buffer, 0, bytes);
                    buffer
                };
                let mut buffers = vec![
                    upload("wgmerge set a", bytemuck::cast_slice(a)),
                    upload("wgmerge set b", bytemuck::cast_slice(b)),
                    buffer("wgmerge set out", out_bytes, output),
                ];
                if let Some(values) = values {
                    buffers.extend([
                        upload("wgmerge set a values", values.a),
                        upload("wgmerge set b values", values.b),
                        buffer("wgmerge set out values", out_value_bytes, output),
                    ]);
                }
                // The lengths head the work buffer (see set_ops.wgsl).
                let work = buffer("wgmerge set work", total_at + 4, output | input);
                let lengths = [a.len() as u32, b.len() as u32];
                self.queue
                    .write_buffer(&work, 0, bytemuck::cast_slice(&lengths));
                // The kept elements, their count, and the first unsorted index of A and of B.
                let staging = buffer(
                    "wgmerge set readback",
                    out_bytes + out_value_bytes + 12,
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                );

                let kernels = [
                    Kernel::SetMark(operation),
                    Kernel::SetScanBlocks,
                    Kernel::SetScanLocal,
                    Kernel::SetScatter,
                ];
                let layout = self.layout(kernels[0].bindings(values.is_some()));
                let entries: Vec<_> = buffers
                    .iter()
                    .zip(1..)
                    .map(|(buffer, binding)| (binding, buffer))
                    .chain([(7, &work)])
                    .map(|(binding, buffer)| wgpu::BindGroupEntry {
                        binding,
                        resource: buffer.as_entire_binding(),
                    })
                    .collect();
                let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("wgmerge set operation"),
                    layout: &layout.bind_group,
                    entries: &entries,
                });
                let mut encoder = self.device.create_command_encoder(&Default::default());
                let validation = options.validate.then(|| {
                    let checks = [Validation::new(&self.device), Validation::new(&self.device)];
                    for (check, keys, len) in [
                        (&checks[0], &buffers[0], a.len()),
                        (&checks[1], &buffers[1], b.len()),
                    ] {
                        self.record_validate(&mut encoder, check, keys, len, &config);
                    }
                    checks
                });
                for kernel in kernels {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(kernel.entry_point()),
                        timestamp_writes: None,
                    });
                    pass.set_pipeline(&self.pipeline(kernel, config));
                    pass.set_bind_group(0, &bind_group, &[]);
                    let (x, y) = match kernel {
                        Kernel::SetScanBlocks => (1, 1),
                        _ => dispatch,
                    };
                    pass.dispatch_workgroups(x, y, 1);
                }
                encoder.copy_buffer_to_buffer(&buffers[2], 0, &staging, 0, out_bytes);
                if values.is_some() {
                    encoder.copy_buffer_to_buffer(
                        &buffers[5],
                        0,
                        &staging,
                        out_bytes,
                        out_value_bytes,
                    );
                }
                encoder.copy_buffer_to_buffer(
                    &work,
                    total_at,
                    &staging,
                    out_bytes + out_value_bytes,
                    4,
                );
                if let Some(checks) = &validation {
                    for (check, at) in checks.iter().zip([4, 8]) {
                        let offset = out_bytes + out_value_bytes + at;
                        encoder.copy_buffer_to_buffer(
                            &check.first_unsorted,
                            0,
                            &staging,
                            offset,
                            4,
                        );
                    }
                }
                self.queue.submit([encoder.finish()]);
                staging
            })
            .await?;

        self.read_back(&staging, |bytes| {
            let at = (out_bytes + out_value_bytes) as usize;
            if options.validate {
                let unsorted = Validation::error(Side::A, 0, &bytes[at + 4..at + 8])
                    .or_else(|| Validation::error(Side::B, 0, &bytes[at + 8..at + 12]));
                if let Some(error) = unsorted {
                    return Err(error);
                }
            }
            let kept = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
            // The count comes from the GPU: never trust it beyond the buffer.
            let kept = kept.min(len);
            let keys = host_collect(&bytes[..kept * key_size as usize])?;
            let value_start = out_bytes as usize;
            let value_end = value_start + kept * value_size as usize;
            let mut values = host_vec(value_end - value_start, 0u8)?;
            values.copy_from_slice(&bytes[value_start..value_end]);
            Ok((keys, values))
        })
        .await?
    }
}
