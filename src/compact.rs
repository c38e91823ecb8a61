//! Compaction (`compact.wgsl`, CUB's `DeviceSelect::Flagged`): an operation's kernel flags the
//! elements to keep, the crate's scan turns the flags into places, and `compact` writes the kept
//! keys (and values) there in input order with their number. Dedup and the key filters select
//! with it.

use bytemuck::{Pod, Zeroable};

use crate::device::{bind_elements, dispatch};
use crate::key::KeyType;
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
    let (values, constants) = if value_size > 0 {
        (
            "lib/move_values/words",
            vec![("VALUE_WORDS", value_size / 4)],
        )
    } else {
        ("lib/move_values/none", vec![])
    };
    Specialization {
        params: vec![("key", key.module()), ("move_values", values)],
        constants,
        with_values: value_size > 0,
    }
}

impl Gpu {
    /// The flags of `len` elements, from the scratch, for an operation's kernel to write (one
    /// `u32` each, 1 to keep) before [`Gpu::record_compact`].
    pub(crate) fn compact_flags(&self, scratch: &Scratch, len: usize) -> wgpu::Buffer {
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        // Room for whole vec4s, as the scan reads them.
        scratch.temporary(&self.device, FLAGS, (len as u64 + 4) * 4, usage)
    }

    /// Records the scan of `flags` and the compaction of `keys[0]` (and `values[0]`) into
    /// `keys[1]` (and `values[1]`), the number kept into the first word of `count`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record_compact(
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
