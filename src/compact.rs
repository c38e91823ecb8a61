//! Compaction (`compact.wgsl`, CUB's `DeviceSelect::Flagged`): an operation's kernel flags the
//! elements to keep, the crate's scan turns the flags into places, and `compact` writes the kept
//! keys (and values) there in input order with their number. Dedup and the key filters select
//! with it.

use bytemuck::{Pod, Zeroable};

use crate::device::{bind_elements, dispatch};
use crate::host::{self, Call, Piece, PieceWork, Recorded};
use crate::key::{move_values_module, Key, KeyType};
use crate::ops::{ReduceOp, ScanKind};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scan::ScanOptions;
use crate::scratch::Scratch;
use crate::{Error, Gpu};

/// `compact` in compact.wgsl.
pub(crate) static COMPACT: Kernel = Kernel {
    file: "compact",
    entry: "compact",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (2, WRITE),
        (3, READ),
        (6, READ),
        (7, WRITE),
    ],
    value_bindings: &[(4, READ), (5, WRITE)],
};

/// `WORKGROUP_SIZE` of compact.wgsl, and of the kernels that flag for it.
pub(crate) const WORKGROUP_SIZE: usize = 256;

/// The scratch temporaries compaction uses (scan.rs numbers its own from 0, set.rs from 40,
/// radix_sort.rs from 42).
const FLAGS: usize = 44;
const PLACES: usize = 45;
/// The slice forms' count.
const COUNT: usize = 46;

/// Records an operation's flags: given the key arrays it reads (the keys selected first, then
/// any other input, each with its length), writes one `u32` per selected key into the flags
/// buffer, 1 to keep. Called only when there are keys.
pub(crate) type Mark<'a> = dyn FnMut(
        &mut wgpu::CommandEncoder,
        &Scratch,
        &[(&wgpu::Buffer, usize)],
        &wgpu::Buffer,
    ) -> Result<(), Error>
    + 'a;

/// Values of [`DedupBuffers`](crate::DedupBuffers) and [`FilterBuffers`](crate::FilterBuffers):
/// one per key, 4 or 8 bytes each; the kept keys' values go to `out`.
#[derive(Clone, Copy, Debug)]
pub struct KeptValueBuffers<'a> {
    /// The values.
    pub values: &'a wgpu::Buffer,
    /// Receives the kept keys' values.
    pub out: &'a wgpu::Buffer,
    /// Bytes per value: 4 or 8.
    pub value_size: u32,
}

/// `CompactParams` in compact.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct CompactParams {
    len: u32,
    count_at: u32,
}

fn specialization(key: KeyType, value_size: u32) -> Specialization {
    let (values, constants) = move_values_module(value_size);
    Specialization {
        params: vec![("key", key.module()), ("move_values", values)],
        constants,
        with_values: value_size > 0,
    }
}

impl Gpu {
    /// Records a selection: `mark`'s flags over `inputs` (the selected keys `keys[0]` first,
    /// then any other key input), then the compaction of `keys[0]` (and `values[0]`) into
    /// `keys[1]` (and `values[1]`), the number kept into the first word of `count`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record_select(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        inputs: &[(&wgpu::Buffer, usize)],
        out: &wgpu::Buffer,
        values: Option<[&wgpu::Buffer; 2]>,
        count: &wgpu::Buffer,
        (key, value_size): (KeyType, u32),
        mark: &mut Mark<'_>,
    ) -> Result<(), Error> {
        let (keys, len) = inputs[0];
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        // Room for whole vec4s, as the scan reads them.
        let flags = scratch.temporary(&self.device, FLAGS, (len as u64 + 4) * 4, usage);
        if len > 0 {
            mark(encoder, scratch, inputs, &flags)?;
        }
        self.record_compact(
            encoder,
            scratch,
            &flags,
            [keys, out],
            values,
            count,
            (len, key, value_size),
        )
    }

    /// A selection's slice form, through the host driver in one piece: `keys` (and `other`, a
    /// second key input `mark` reads, and `values`) go up, the kept keys (and values) come back,
    /// their number first, from the GPU.
    pub(crate) async fn select_host<K: Key>(
        &self,
        keys: &[K],
        other: Option<&[K]>,
        values: Option<(&[u8], u32)>,
        destinations: host::Destinations<'_, '_>,
        mark: &mut Mark<'_>,
    ) -> Result<usize, Error> {
        let len = keys.len();
        if len == 0 {
            return Ok(0);
        }
        let key_size = K::TYPE.size() as usize;
        let mut call = Call {
            inputs: vec![(bytemuck::cast_slice(keys), key_size)],
            output_sizes: vec![key_size],
            pieces: vec![Piece {
                inputs: std::iter::once(0..len).collect(),
                output: 0..len,
            }],
            input_room: vec![len],
            output_room: len,
        };
        if let Some(other) = other {
            call.inputs.push((bytemuck::cast_slice(other), key_size));
            call.input_room.push(other.len());
            call.pieces[0].inputs.push(0..other.len());
        }
        let value_size = values.map_or(0, |(_, size)| size);
        if let Some((bytes, size)) = values {
            call.inputs.push((bytes, size as usize));
            call.input_room.push(len);
            call.output_sizes.push(size as usize);
            call.pieces[0].inputs.push(0..len);
        }
        let mut work = SelectWork {
            key: K::TYPE,
            value_size,
            key_inputs: 1 + usize::from(other.is_some()),
            scratch: self.create_scratch(),
            mark,
        };
        host::run(self, &call, &mut work, destinations, &mut |_, _| {}).await
    }

    /// Records the scan of `flags` and the compaction of `keys[0]` (and `values[0]`) into
    /// `keys[1]` (and `values[1]`), the number kept into the first word of `count`.
    #[allow(clippy::too_many_arguments)]
    fn record_compact(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        flags: &wgpu::Buffer,
        keys: [&wgpu::Buffer; 2],
        values: Option<[&wgpu::Buffer; 2]>,
        count: &wgpu::Buffer,
        (len, key, value_size): (usize, KeyType, u32),
    ) -> Result<(), Error> {
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let places = scratch.temporary(&self.device, PLACES, (len as u64 + 4) * 4, usage);
        if len > 0 {
            self.record_scan_into::<u32>(
                encoder,
                scratch,
                (flags, 0),
                (&places, 0),
                len,
                ScanKind::Exclusive,
                ReduceOp::Sum,
                &ScanOptions::default(),
            )?;
        }
        let placeholder = scratch.placeholder();
        let key_size = key.size();
        let params = self.uniform(
            "wgmerge compact params",
            bytemuck::bytes_of(&CompactParams {
                len: len as u32,
                count_at: 0,
            }),
        );
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: bind_elements(keys[0], 0, len, key_size, placeholder),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: written(len, keys[1], key_size, flags, placeholder),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: bind_elements(flags, 0, len, 4, placeholder),
            },
            wgpu::BindGroupEntry {
                binding: 6,
                resource: bind_elements(&places, 0, len, 4, placeholder),
            },
            wgpu::BindGroupEntry {
                binding: 7,
                resource: bind_elements(count, 0, 1, 4, placeholder),
            },
        ];
        if let Some(values) = values {
            entries.extend([
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: bind_elements(values[0], 0, len, value_size, placeholder),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: written(len, values[1], value_size, &places, placeholder),
                },
            ]);
        }
        let bind_group = self.bind_group(&COMPACT, values.is_some(), &entries);
        let pipeline = self.pipeline(&COMPACT, &specialization(key, value_size))?;
        let groups = self.dispatch_shape(len.div_ceil(WORKGROUP_SIZE) as u32)?;
        dispatch(encoder, "compact", &pipeline, &bind_group, groups);
        Ok(())
    }
}

/// A selection's slice form in one piece: the slot's inputs are the key inputs, then the values;
/// its outputs receive the kept keys and values.
struct SelectWork<'a, 'm> {
    key: KeyType,
    value_size: u32,
    /// Key inputs: the selected keys, and any other input the flags read.
    key_inputs: usize,
    scratch: Scratch,
    mark: &'a mut Mark<'m>,
}

impl PieceWork for SelectWork<'_, '_> {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error> {
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let count = self.scratch.temporary(&gpu.device, COUNT, 4, usage);
        let key_inputs: Vec<(&wgpu::Buffer, usize)> = (0..self.key_inputs)
            .map(|i| (&inputs[i], piece.inputs[i].len()))
            .collect();
        let values = (self.value_size > 0).then(|| [&inputs[self.key_inputs], &outputs[1]]);
        gpu.record_select(
            encoder,
            &self.scratch,
            &key_inputs,
            &outputs[0],
            values,
            &count,
            (self.key, self.value_size),
            self.mark,
        )?;
        let mut recorded = Recorded::outputs(&outputs.iter().collect::<Vec<_>>());
        recorded.count = Some((count, 0));
        Ok(recorded)
    }
}

/// A written array of `len` elements of `size` bytes. With nothing to keep only the count is
/// written, but a written binding still needs a buffer of its own: `spare` (the flags or the
/// places, which are not read then).
fn written<'a>(
    len: usize,
    buffer: &'a wgpu::Buffer,
    size: u32,
    spare: &'a wgpu::Buffer,
    placeholder: &'a wgpu::Buffer,
) -> wgpu::BindingResource<'a> {
    if len == 0 {
        spare.as_entire_binding()
    } else {
        bind_elements(buffer, 0, len, size, placeholder)
    }
}

/// Every configuration of the compaction kernel, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for key in KeyType::ALL {
        for value_size in [0, 4, 8] {
            out.push(crate::kernel_tests::Configuration {
                kernel: &COMPACT,
                specialization: specialization(key, value_size),
                workgroup_memory: 0,
            });
        }
    }
    out
}
