//! Buffers for the crate's own GPU unit tests: words up, words back.

use wgpu::util::DeviceExt;

use crate::Gpu;

/// A storage buffer holding `words`, which copies may read and write.
pub(crate) fn upload(gpu: &Gpu, words: &[u32]) -> wgpu::Buffer {
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(words),
            usage,
        })
}

/// Records `encoder`'s work with copies of `parts` (buffer, byte offset, words), submits it and
/// reads the parts back, one after another.
pub(crate) fn submit_and_read(
    gpu: &Gpu,
    mut encoder: wgpu::CommandEncoder,
    parts: &[(&wgpu::Buffer, u64, usize)],
) -> Vec<u32> {
    let bytes: u64 = parts.iter().map(|&(_, _, words)| words as u64 * 4).sum();
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut at = 0;
    for &(buffer, offset, words) in parts {
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, at, words as u64 * 4);
        at += words as u64 * 4;
    }
    gpu.submit(encoder.finish());
    gpu.block_on(gpu.read_back(&staging, bytes, bytemuck::pod_collect_to_vec))
        .expect("read back")
}
