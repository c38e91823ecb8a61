//! A plain WGSL copy: the bandwidth reference benchmarks compare the merge kernels with.

use crate::key::{KeyType, Order};
use crate::merge::check_buffer;
use crate::shader::{Kernel, PipelineConfig};
use crate::{Error, Gpu, Scratch};

const CONFIG: PipelineConfig = PipelineConfig {
    workgroup_size: 256,
    items_per_thread: 4,
    key: KeyType::U32,
    order: Order::Ascending,
    value_size: 0,
};

impl Gpu {
    /// Records a copy of `len` `u32` words from `source` to `destination` with `copy.wgsl`
    /// (coalesced `vec4<u32>` loads and stores). It moves the bytes a merge of `len` keys must
    /// move at least, so its bandwidth is the ceiling benchmarks report against. `len` must be a
    /// multiple of 4; both buffers need `STORAGE`.
    pub fn encode_copy(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        source: &wgpu::Buffer,
        destination: &wgpu::Buffer,
        len: usize,
    ) -> Result<(), Error> {
        self.check_lost()?;
        if !len.is_multiple_of(4) {
            return Err(Error::InvalidOptions(format!(
                "copy length {len} is not a multiple of 4"
            )));
        }
        let limits = self.device.limits();
        let max = (limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            / 4) as usize;
        if len > max {
            return Err(Error::TooLarge {
                what: "copy",
                len,
                max,
            });
        }
        check_buffer("source", source, len, 4)?;
        check_buffer("destination", destination, len, 4)?;
        if len == 0 {
            return Ok(());
        }
        let words = (len / 4) as u32;
        let per_group = CONFIG.workgroup_size * CONFIG.items_per_thread;
        let (x, y) = self.dispatch_shape(words.div_ceil(per_group))?;
        self.queue
            .write_buffer(&scratch.params, 0, bytemuck::bytes_of(&[words, 0, 0, 0]));
        let bytes = wgpu::BufferSize::new(len as u64 * 4);
        let binding = |binding, buffer| wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: 0,
                size: bytes,
            }),
        };
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wgmerge copy"),
            layout: &self.layout(Kernel::Copy.bindings(false)).bind_group,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: scratch.params.as_entire_binding(),
                },
                binding(1, source),
                binding(2, destination),
            ],
        });
        let pipeline = self.pipeline(Kernel::Copy, CONFIG);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("copy"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
        Ok(())
    }
}
