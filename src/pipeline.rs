//! Kernels as the operations describe them, and the bind group layouts and compute pipelines
//! built from them, cached per device. This layer knows no operation: each operation module
//! describes its own kernels ([`Kernel`]) and specialises them ([`Specialization`]); the crate's
//! tests check every description against naga's reflection of the WGSL (src/kernel_tests.rs).

use std::collections::HashMap;
use std::sync::Mutex;

use wgpu::BufferBindingType;

use crate::shader;
use crate::Error;

/// One buffer a kernel binds: its binding number in group 0 and how it is bound.
pub(crate) type Binding = (u32, BufferBindingType);

/// A uniform buffer.
pub(crate) const UNIFORM: BufferBindingType = BufferBindingType::Uniform;
/// A read-only storage buffer.
pub(crate) const READ: BufferBindingType = BufferBindingType::Storage { read_only: true };
/// A read-write storage buffer.
pub(crate) const WRITE: BufferBindingType = BufferBindingType::Storage { read_only: false };

/// A compute kernel: an entry point of a WGSL entry file under `shaders/`, and the buffers it
/// binds.
#[derive(Debug)]
pub(crate) struct Kernel {
    /// The entry file, as `shader::compose` names it (`merge_path` for `shaders/merge_path.wgsl`).
    pub(crate) file: &'static str,
    /// The entry point.
    pub(crate) entry: &'static str,
    /// The buffers it binds when no values move with the keys.
    pub(crate) bindings: &'static [Binding],
    /// The buffers it binds besides, when values move with the keys.
    pub(crate) value_bindings: &'static [Binding],
}

impl Kernel {
    /// Every binding, values' included when `with_values`, in binding order.
    pub(crate) fn bindings(&self, with_values: bool) -> Vec<Binding> {
        let mut bindings = self.bindings.to_vec();
        if with_values {
            bindings.extend_from_slice(self.value_bindings);
        }
        bindings.sort_by_key(|&(binding, _)| binding);
        bindings
    }

    /// Storage buffers the kernel binds per shader stage.
    pub(crate) fn storage_buffers(&self, with_values: bool) -> u32 {
        let bindings = self.bindings(with_values);
        let storage = bindings
            .iter()
            .filter(|(_, ty)| matches!(ty, BufferBindingType::Storage { .. }));
        storage.count() as u32
    }
}

/// What one pipeline of a kernel is built for: the modules bound to the WGSL file's import
/// parameters, the values of its override constants, and whether values move with the keys.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Specialization {
    /// Import parameters: `("key", "lib/keys/u32")`, ...
    pub(crate) params: Vec<(&'static str, &'static str)>,
    /// Override constants, booleans as 0 or 1.
    pub(crate) constants: Vec<(&'static str, u32)>,
    /// Whether the kernel binds its value buffers.
    pub(crate) with_values: bool,
}

impl Specialization {
    /// The composed WGSL of `kernel`.
    pub(crate) fn source(&self, kernel: &Kernel) -> Result<String, String> {
        shader::compose(kernel.file, &self.params)
    }

    /// The override constants as wgpu and naga take them.
    pub(crate) fn constants(&self) -> Vec<(&'static str, f64)> {
        let constants = self.constants.iter();
        constants
            .map(|&(name, value)| (name, f64::from(value)))
            .collect()
    }
}

/// A bind group layout and the pipeline layout made of it.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub(crate) bind_group: wgpu::BindGroupLayout,
    pub(crate) pipeline: wgpu::PipelineLayout,
}

/// Layouts and pipelines built so far on one device.
#[derive(Default)]
pub(crate) struct Pipelines {
    layouts: Mutex<HashMap<Vec<Binding>, Layout>>,
    #[allow(clippy::type_complexity)]
    pipelines: Mutex<HashMap<(&'static str, &'static str, Specialization), wgpu::ComputePipeline>>,
}

impl Pipelines {
    /// The layout of `bindings`, built on first use.
    pub(crate) fn layout(&self, device: &wgpu::Device, bindings: &[Binding]) -> Layout {
        let mut layouts = self.layouts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(layout) = layouts.get(bindings) {
            return layout.clone();
        }
        let entries: Vec<_> = bindings
            .iter()
            .map(|&(binding, ty)| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let bind_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("wgmerge"),
            entries: &entries,
        });
        let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("wgmerge"),
            bind_group_layouts: &[Some(&bind_group)],
            immediate_size: 0,
        });
        let layout = Layout {
            bind_group,
            pipeline,
        };
        layouts.insert(bindings.to_vec(), layout.clone());
        layout
    }

    /// The pipeline of `kernel` in `specialization`, built on first use, with or without naga's
    /// runtime checks.
    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
        kernel: &'static Kernel,
        specialization: &Specialization,
        runtime_checks: bool,
    ) -> Result<wgpu::ComputePipeline, Error> {
        let key = (kernel.file, kernel.entry, specialization.clone());
        let mut pipelines = self.pipelines.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pipeline) = pipelines.get(&key) {
            return Ok(pipeline.clone());
        }
        let source = specialization
            .source(kernel)
            .map_err(|e| Error::Validation(format!("wgmerge's WGSL: {e}")))?;
        let descriptor = wgpu::ShaderModuleDescriptor {
            label: Some(kernel.entry),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        };
        let module = if runtime_checks {
            device.create_shader_module(descriptor)
        } else {
            // SAFETY: wgmerge's own kernels, whatever the input: every index into workgroup
            // memory is clamped into its array by construction (co-ranks are clamped to the
            // lengths loaded, slots to the tile), every loop runs a bounded number of times, and
            // no division has a zero or negative divisor. Storage buffers stay bounds-checked
            // where the backend does it itself (Vulkan's robustBufferAccess; browsers always
            // check). The test suite runs both ways.
            unsafe {
                device.create_shader_module_trusted(
                    descriptor,
                    wgpu::ShaderRuntimeChecks::unchecked(),
                )
            }
        };
        let layout = self.layout(device, &kernel.bindings(specialization.with_values));
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(kernel.entry),
            layout: Some(&layout.pipeline),
            module: &module,
            entry_point: Some(kernel.entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &specialization.constants(),
                // Every kernel writes workgroup memory before reading it.
                zero_initialize_workgroup_memory: false,
            },
            cache: None,
        });
        log::debug!("pipeline {} built", kernel.entry);
        pipelines.insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// Drops every pipeline built so far (layouts stay: they do not depend on the checks).
    pub(crate) fn clear(&mut self) {
        self.pipelines
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}
