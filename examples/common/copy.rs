//! The bandwidth reference the benchmarks compare with: a plain WGSL copy of `vec4<u32>` words
//! (copy.wgsl beside this file), coalesced, every word read once and written once. It moves the
//! bytes a merge of the same number of keys must move at least, so its bandwidth is the ceiling
//! the benchmarks report against. It lives with the examples, not in the crate: no operation
//! needs it.

use wgmerge::Gpu;
use wgpu::util::DeviceExt;

const WORKGROUP_SIZE: u32 = 256;
const WORDS_PER_INVOCATION: u32 = 4;

/// The copy kernel's pipeline on one device.
pub struct CopyKernel {
    pipeline: wgpu::ComputePipeline,
}

impl CopyKernel {
    pub fn new(gpu: &Gpu) -> Self {
        let module = gpu
            .device()
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("copy"),
                source: wgpu::ShaderSource::Wgsl(include_str!("copy.wgsl").into()),
            });
        let pipeline = gpu
            .device()
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("copy"),
                layout: None,
                module: &module,
                entry_point: Some("copy"),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &[
                        ("WORKGROUP_SIZE", f64::from(WORKGROUP_SIZE)),
                        ("ITEMS_PER_THREAD", f64::from(WORDS_PER_INVOCATION)),
                    ],
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            });
        CopyKernel { pipeline }
    }

    /// Records a copy of `len` u32 words (a multiple of 4, in one dispatch's reach) from
    /// `source` to `destination`.
    pub fn encode(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        source: &wgpu::Buffer,
        destination: &wgpu::Buffer,
        len: usize,
    ) -> Result<(), wgmerge::Error> {
        assert!(len.is_multiple_of(4), "the copy moves whole vec4s");
        if len == 0 {
            return Ok(());
        }
        let max = (gpu.limits().max_storage_buffer_binding_size / 4) as usize;
        if len > max {
            return Err(wgmerge::Error::TooLarge {
                what: "copy",
                len,
                max,
            });
        }
        let words = (len / 4) as u32;
        let groups = words.div_ceil(WORKGROUP_SIZE * WORDS_PER_INVOCATION);
        let max = gpu.limits().max_compute_workgroups_per_dimension;
        let (x, y) = if groups <= max {
            (groups, 1)
        } else {
            let y = groups.div_ceil(max);
            (groups.div_ceil(y), y)
        };
        let params = gpu
            .device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("copy params"),
                contents: bytemuck::bytes_of(&[words, 0, 0, 0]),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let bytes = wgpu::BufferSize::new(len as u64 * 4);
        let binding = |binding, buffer| wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: 0,
                size: bytes,
            }),
        };
        let bind_group = gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("copy"),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                binding(1, source),
                binding(2, destination),
            ],
        });
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
        Ok(())
    }
}
