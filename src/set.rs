//! Set operations on two sorted inputs, on the GPU: union, intersection, difference and
//! symmetric difference, as multisets, with the C++ library's `std::set_*` rule for repeated
//! keys. The work is cut like a merge, by the partition pass (partition.rs); `set.wgsl` merges
//! each tile and decides its elements, the public scan (scan.rs) turns the tiles' counts into
//! their places in the output, and a second pass writes the kept elements there. One
//! submission; the count comes back with the output.

use bytemuck::{Pod, Zeroable};

use crate::device::bind_elements;
use crate::host::{self, Call, Piece, PieceWork, Recorded, ResultVec};
use crate::key::{values_module, Key, KeyType, Order};
use crate::merge::{check_value_size, HostValues, ValueBuffers, VALUE_BINDINGS};
use crate::ops::{ReduceOp, ScanKind, SetOperation};
use crate::partition::Partition;
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scan::ScanOptions;
use crate::scratch::Scratch;
use crate::tuning::{self, Shape};
use crate::validate::{result_words, unsorted};
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

/// `set_count` in set.wgsl.
pub(crate) static SET_COUNT: Kernel = Kernel {
    file: "set",
    entry: "set_count",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (7, READ), (8, WRITE)],
    value_bindings: &[],
};
/// `set_write` in set.wgsl.
pub(crate) static SET_WRITE: Kernel = Kernel {
    file: "set",
    entry: "set_write",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE), (7, READ)],
    value_bindings: VALUE_BINDINGS,
};

/// `SetParams` in set.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct SetParams {
    a_len: u32,
    b_len: u32,
    ends_at: u32,
    _pad: u32,
}

/// The scratch temporaries a set operation uses (scan.rs numbers its own from 0).
const CUTS: usize = 40;
const COUNTS: usize = 41;

fn specialization(
    kernel: &Kernel,
    operation: SetOperation,
    key: KeyType,
    order: Order,
    value_size: u32,
) -> Specialization {
    let (workgroup_size, items) = tuning::SET_SHAPE;
    let with_values = value_size > 0 && std::ptr::eq(kernel, &SET_WRITE);
    Specialization {
        params: vec![
            ("key", key.module()),
            (
                "values",
                values_module(if with_values { value_size } else { 0 }),
            ),
        ],
        constants: vec![
            ("WORKGROUP_SIZE", workgroup_size),
            ("ITEMS_PER_THREAD", items),
            ("DESCENDING", u32::from(order == Order::Descending)),
            ("SET_OPERATION", u32::from(operation.index())),
        ],
        with_values,
    }
}

/// Bytes of workgroup memory of `kernel`: a tile of keys and its slots, and set_count's kept
/// count or set_write's word per invocation.
fn workgroup_memory(kernel: &Kernel, (workgroup, items): Shape, key: KeyType) -> u64 {
    let tile = u64::from(workgroup) * u64::from(items);
    let sums = if std::ptr::eq(kernel, &SET_WRITE) {
        u64::from(workgroup) * 4
    } else {
        4
    };
    tile * (u64::from(key.size()) + 4) + sums
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
        let shape = tuning::SET_SHAPE;
        self.check_shape(shape)?;
        self.check_workgroup_memory(
            workgroup_memory(&SET_WRITE, shape, key),
            &format!("a set operation on {} keys", key.name()),
        )?;
        self.check_storage_buffers(&SET_WRITE, value_size > 0)?;
        self.check_storage_buffers(&crate::scan::SCAN, false)?;
        let tile = shape.0 * shape.1;
        let tiles = len.div_ceil(tile as usize);
        Ok(SetPlan {
            operation,
            key,
            order,
            value_size,
            a_len,
            b_len,
            tiles,
            partition: Partition::plan(self, key, order, (a_len, b_len), tile, 0, false)?,
            dispatch: self.dispatch_shape(tiles as u32)?,
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
        // The boundaries, then the tiles' ends at a 256-byte offset, room for whole vec4s.
        let ends_at = (tiles as u64 + 1).next_multiple_of(64);
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let cuts = scratch.temporary(
            &self.device,
            CUTS,
            (ends_at + tiles as u64 + 4) * 4,
            storage,
        );
        let counts = scratch.temporary(&self.device, COUNTS, (tiles as u64 + 4) * 4, storage);
        let count_at = (ends_at + tiles as u64 - 1) * 4;
        if tiles == 0 {
            return Ok((cuts, 0));
        }
        let key_size = plan.key.size();
        let placeholder = scratch.placeholder();
        let bind = |buffer, len, size| bind_elements(buffer, 0, len, size, placeholder);
        let params = SetParams {
            a_len: plan.a_len as u32,
            b_len: plan.b_len as u32,
            ends_at: ends_at as u32,
            _pad: 0,
        };
        let uniform = self.uniform("wgmerge set params", bytemuck::bytes_of(&params));
        let partition = plan.partition.prepare(
            self,
            (
                bind(buffers.a, plan.a_len, key_size),
                bind(buffers.b, plan.b_len, key_size),
            ),
            &cuts,
            None,
        )?;
        let entry = |binding, resource| wgpu::BindGroupEntry { binding, resource };
        let count_group = self.bind_group(
            &SET_COUNT,
            false,
            &[
                entry(0, uniform.as_entire_binding()),
                entry(1, bind(buffers.a, plan.a_len, key_size)),
                entry(2, bind(buffers.b, plan.b_len, key_size)),
                entry(7, cuts.as_entire_binding()),
                entry(8, counts.as_entire_binding()),
            ],
        );
        let total = plan.a_len + plan.b_len;
        let mut write_entries = vec![
            entry(0, uniform.as_entire_binding()),
            entry(1, bind(buffers.a, plan.a_len, key_size)),
            entry(2, bind(buffers.b, plan.b_len, key_size)),
            entry(3, bind(buffers.out, total, key_size)),
            entry(7, cuts.as_entire_binding()),
        ];
        let with_values = buffers.values.is_some();
        if let Some((a, b, out)) = buffers.values {
            let size = plan.value_size;
            write_entries.extend([
                entry(4, bind(a, plan.a_len, size)),
                entry(5, bind(b, plan.b_len, size)),
                entry(6, bind(out, total, size)),
            ]);
        }
        let write_group = self.bind_group(&SET_WRITE, with_values, &write_entries);
        let spec = |kernel| {
            specialization(
                kernel,
                plan.operation,
                plan.key,
                plan.order,
                plan.value_size,
            )
        };
        let count_pipeline = self.pipeline(&SET_COUNT, &spec(&SET_COUNT))?;
        let write_pipeline = self.pipeline(&SET_WRITE, &spec(&SET_WRITE))?;
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("set_count"),
                timestamp_writes: None,
            });
            partition.record(&mut pass);
            pass.set_pipeline(&count_pipeline);
            pass.set_bind_group(0, &count_group, &[]);
            pass.dispatch_workgroups(plan.dispatch.0, plan.dispatch.1, 1);
        }
        // Each tile's end in the output: the inclusive scan of the counts.
        self.record_scan_into::<u32>(
            encoder,
            scratch,
            (&counts, 0),
            (&cuts, ends_at),
            tiles,
            ScanKind::Inclusive,
            ReduceOp::Sum,
            &ScanOptions::default(),
        )?;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("set_write"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&write_pipeline);
        pass.set_bind_group(0, &write_group, &[]);
        pass.dispatch_workgroups(plan.dispatch.0, plan.dispatch.1, 1);
        Ok((cuts, count_at))
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
        self.plan_set(operation, K::TYPE, (m, n), value_size, options.order)?;
        if m + n == 0 {
            return Ok(0);
        }
        let key_size = K::TYPE.size() as usize;
        let mut call = Call {
            inputs: vec![
                (bytemuck::cast_slice(a), key_size),
                (bytemuck::cast_slice(b), key_size),
            ],
            output_sizes: vec![key_size],
            pieces: vec![Piece {
                inputs: vec![0..m, 0..n],
                output: 0..m + n,
            }],
            input_room: vec![m, n],
            output_room: m + n,
        };
        if let Some(v) = values {
            let size = v.size as usize;
            call.inputs.extend([(v.a, size), (v.b, size)]);
            call.input_room.extend([m, n]);
            call.output_sizes.push(size);
            call.pieces[0].inputs.extend([0..m, 0..n]);
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

/// A set operation checked against the device.
struct SetPlan {
    operation: SetOperation,
    key: KeyType,
    order: Order,
    value_size: u32,
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
            let checks = result_words(gpu, 2);
            gpu.record_validate(encoder, (K::TYPE, order), &inputs[0], m, &checks, 0)?;
            gpu.record_validate(encoder, (K::TYPE, order), &inputs[1], n, &checks, 1)?;
            words = vec![(checks.clone(), 0), (checks, 4)];
        }
        let buffers = SetArrays {
            a: &inputs[0],
            b: &inputs[1],
            out: &outputs[0],
            values: (self.value_size > 0).then(|| (&inputs[2], &inputs[3], &outputs[1])),
        };
        let count = gpu.record_set(encoder, &self.scratch, &buffers, &plan)?;
        Ok(Recorded {
            outputs: outputs.to_vec(),
            count: Some(count),
            words,
        })
    }

    fn check(&mut self, _piece: &Piece, words: &[u32]) -> Result<(), Error> {
        let order = self.options.order;
        let a = unsorted(Side::A, self.a, 0, words[0], order);
        match a.or_else(|| unsorted(Side::B, self.b, 0, words[1], order)) {
            Some(error) => Err(error),
            None => Ok(()),
        }
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
                    for kernel in [&SET_COUNT, &SET_WRITE] {
                        out.push(crate::kernel_tests::Configuration {
                            kernel,
                            specialization: specialization(
                                kernel, operation, key, order, value_size,
                            ),
                            workgroup_memory: workgroup_memory(kernel, tuning::SET_SHAPE, key),
                        });
                    }
                }
            }
        }
    }
    out
}
