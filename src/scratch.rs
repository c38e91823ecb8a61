//! Reusable temporary storage for the `encode_*` methods ([`Scratch`]).

use std::sync::Mutex;

use crate::Gpu;

/// Reusable temporary storage for the `encode_*` methods: merge path's tile boundaries and chunk
/// counter, a scan's look-back state and running totals, and a placeholder bound where an input
/// is empty. Create it once with [`Gpu::create_scratch`] and reuse it. Every recorded operation
/// writes its temporaries before it reads them, and the GPU runs recorded operations in order, so
/// any number of operations, in one submission or several, may share one scratch; each
/// operation's parameters live in a buffer of its own.
#[derive(Debug)]
pub struct Scratch {
    placeholder: wgpu::Buffer,
    /// merge_path_chunks' counter of the chunks taken.
    pub(crate) chunk_counter: wgpu::Buffer,
    /// Temporaries by slot (merge path's boundaries are slot 0), grown on demand.
    temporaries: Mutex<Vec<Option<wgpu::Buffer>>>,
}

/// The temporaries' slots.
const SPLITS: usize = 0;
/// The first slot free for other operations' temporaries.
const OTHERS: usize = 1;

impl Scratch {
    /// What is bound where an array is empty.
    pub(crate) fn placeholder(&self) -> &wgpu::Buffer {
        &self.placeholder
    }

    /// A storage buffer of at least `bytes` for merge path's splits.
    pub(crate) fn splits(&self, device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        self.slot(device, SPLITS, bytes, usage)
    }

    /// Temporary number `index` of an operation (each operation numbers its own from 0), at least
    /// `bytes` with `usage`: the buffer kept from before if large enough, else a new one (a power
    /// of two, at least 256 bytes) that replaces it. Commands already recorded keep the old buffer
    /// alive.
    pub(crate) fn temporary(
        &self,
        device: &wgpu::Device,
        index: usize,
        bytes: u64,
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        self.slot(device, OTHERS + index, bytes, usage)
    }

    fn slot(
        &self,
        device: &wgpu::Device,
        slot: usize,
        bytes: u64,
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let mut slots = self.temporaries.lock().unwrap_or_else(|e| e.into_inner());
        if slots.len() <= slot {
            slots.resize(slot + 1, None);
        }
        match &slots[slot] {
            Some(buffer) if buffer.size() >= bytes && buffer.usage() == usage => buffer.clone(),
            _ => {
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgmerge scratch"),
                    size: bytes.next_power_of_two().max(256),
                    usage,
                    mapped_at_creation: false,
                });
                slots[slot] = Some(buffer.clone());
                buffer
            }
        }
    }
}

impl Gpu {
    /// Creates reusable temporary storage for the `encode_*` methods.
    pub fn create_scratch(&self) -> Scratch {
        let buffer = |label, usage| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        Scratch {
            placeholder: buffer("wgmerge placeholder", wgpu::BufferUsages::STORAGE),
            chunk_counter: buffer("wgmerge chunk counter", wgpu::BufferUsages::STORAGE),
            temporaries: Mutex::default(),
        }
    }
}
