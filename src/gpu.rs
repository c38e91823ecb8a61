//! The GPU context: device and queue, the pipelines built so far, and the plumbing every
//! operation shares (error scopes, readback, dispatch shape).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::shader::{Kernel, PipelineConfig};
use crate::Error;

/// A bind group layout and the pipeline layout made of it.
#[derive(Clone, Debug)]
pub(crate) struct KernelLayout {
    pub(crate) bind_group: wgpu::BindGroupLayout,
    pub(crate) pipeline: wgpu::PipelineLayout,
}

/// A GPU that wgmerge runs on: a wgpu device and queue plus the compute pipelines built for it.
///
/// Pipelines are created on first use for each (kernel, configuration) and reused afterwards.
/// `Gpu` is `Send + Sync` on native targets; share one across threads.
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    adapter_info: wgpu::AdapterInfo,
    /// Why the device was lost, when wgmerge created the device and so owns its lost callback.
    lost: Arc<OnceLock<String>>,
    /// Layouts keyed by their bindings, built on first use.
    layouts: Mutex<HashMap<&'static [(u32, wgpu::BufferBindingType)], KernelLayout>>,
    pipelines: Mutex<HashMap<(Kernel, PipelineConfig), wgpu::ComputePipeline>>,
    /// Whether kernels are built with naga's runtime checks ([`Gpu::with_runtime_checks`]).
    runtime_checks: bool,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.adapter_info)
            .finish_non_exhaustive()
    }
}

impl Gpu {
    /// Opens the default high-performance adapter, blocking until it is ready.
    ///
    /// wgpu's environment variables choose another: `WGPU_BACKEND` (e.g. `vulkan`, `gl`),
    /// `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`. Returns [`Error::NoAdapter`] when there is none.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<Self, Error> {
        pollster::block_on(Self::new_async())
    }

    /// Opens the default high-performance adapter (see [`Gpu::new`]); for targets that cannot
    /// block, such as the web.
    pub async fn new_async() -> Result<Self, Error> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = if std::env::var_os("WGPU_ADAPTER_NAME").is_some() {
            wgpu::util::initialize_adapter_from_env(&instance, None).await
        } else {
            instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::from_env()
                        .unwrap_or(wgpu::PowerPreference::HighPerformance),
                    ..Default::default()
                })
                .await
        }
        .map_err(|e| Error::NoAdapter(e.to_string()))?;
        Self::from_adapter(&adapter).await
    }

    /// Opens a device on `adapter` (for example one picked from `Instance::enumerate_adapters`)
    /// with every limit it offers and timestamp queries where it has them.
    pub async fn from_adapter(adapter: &wgpu::Adapter) -> Result<Self, Error> {
        // Ask for every limit the adapter offers (large inputs need its real binding limits) and
        // for timestamps where it has them, so applications and benchmarks can time GPU work.
        let timestamps =
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("wgmerge"),
                required_features: adapter.features() & timestamps,
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .map_err(|e| Error::RequestDevice(e.to_string()))?;
        let gpu = Self::from_device(device, queue);
        let lost = gpu.lost.clone();
        gpu.device.set_device_lost_callback(move |reason, message| {
            let _ = lost.set(format!("{reason:?}: {message}"));
        });
        Ok(gpu)
    }

    /// Runs wgmerge on a device the application already has. wgmerge leaves the device's
    /// callbacks alone; device loss shows up as [`Error::DeviceLost`] from the next operation.
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue) -> Self {
        Self {
            adapter_info: device.adapter_info(),
            device,
            queue,
            lost: Arc::new(OnceLock::new()),
            layouts: Mutex::default(),
            pipelines: Mutex::default(),
            runtime_checks: false,
        }
    }

    /// Builds kernels with (`true`) or without (`false`, the default) naga's runtime checks:
    /// bounds checks on every array access, loop bounding and checked integer division. The
    /// kernels are written never to need them, and without them merges run about 20% faster on
    /// an H100 (docs/benchmarks.md); turn them on to rule wgmerge's shaders out when hunting a
    /// fault. Set it before the first operation: pipelines built so far are dropped.
    pub fn with_runtime_checks(mut self, on: bool) -> Self {
        self.runtime_checks = on;
        self.pipelines
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self
    }

    /// The adapter in use: name, backend, driver.
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.adapter_info
    }

    /// The wgpu device, for creating buffers to pass to the GPU-resident forms.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The wgpu queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The device's limits, which bound input lengths and configurations.
    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// The layout for `bindings` (see [`Kernel::bindings`]). Callers check the device has the
    /// storage bindings it needs first ([`Gpu::check_storage_buffers`]).
    pub(crate) fn layout(
        &self,
        bindings: &'static [(u32, wgpu::BufferBindingType)],
    ) -> KernelLayout {
        let mut layouts = self.layouts.lock().unwrap_or_else(|e| e.into_inner());
        layouts
            .entry(bindings)
            .or_insert_with(|| {
                let bind_group =
                    self.device
                        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: Some("wgmerge merge"),
                            entries: &bindings
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
                                .collect::<Vec<_>>(),
                        });
                let pipeline =
                    self.device
                        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                            label: Some("wgmerge merge"),
                            bind_group_layouts: &[Some(&bind_group)],
                            immediate_size: 0,
                        });
                KernelLayout {
                    bind_group,
                    pipeline,
                }
            })
            .clone()
    }

    /// Checks the device can bind as many storage buffers as `kernel` needs.
    pub(crate) fn check_storage_buffers(
        &self,
        kernel: Kernel,
        with_values: bool,
    ) -> Result<(), Error> {
        let needed = kernel.storage_buffers(with_values);
        let allowed = self.device.limits().max_storage_buffers_per_shader_stage;
        if allowed < needed {
            return Err(Error::Unsupported(format!(
                "{} binds {needed} storage buffers; this device allows {allowed}",
                kernel.entry_point()
            )));
        }
        Ok(())
    }

    pub(crate) fn check_lost(&self) -> Result<(), Error> {
        match self.lost.get() {
            Some(reason) => Err(Error::DeviceLost(reason.clone())),
            None => Ok(()),
        }
    }

    /// The pipeline for `kernel` in `config`, built on first use.
    pub(crate) fn pipeline(&self, kernel: Kernel, config: PipelineConfig) -> wgpu::ComputePipeline {
        let mut pipelines = self.pipelines.lock().unwrap_or_else(|e| e.into_inner());
        pipelines
            .entry((kernel, config))
            .or_insert_with(|| {
                let descriptor = wgpu::ShaderModuleDescriptor {
                    label: Some(kernel.entry_point()),
                    source: wgpu::ShaderSource::Wgsl(kernel.source(&config).into()),
                };
                let module = if self.runtime_checks {
                    self.device.create_shader_module(descriptor)
                } else {
                    // SAFETY: wgmerge's own kernels, whatever the input: every index into
                    // workgroup memory is clamped into its array by construction (co-ranks are
                    // clamped to the lengths loaded, slots to the tile), every loop runs a
                    // bounded number of times, and no division has a zero or negative divisor.
                    // Storage buffers stay bounds-checked where the backend does it itself
                    // (Vulkan's robustBufferAccess; browsers always check). The test suite runs
                    // both ways.
                    unsafe {
                        self.device.create_shader_module_trusted(
                            descriptor,
                            wgpu::ShaderRuntimeChecks::unchecked(),
                        )
                    }
                };
                let layout = self.layout(kernel.bindings(config.with_values()));
                self.device
                    .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(kernel.entry_point()),
                        layout: Some(&layout.pipeline),
                        module: &module,
                        entry_point: Some(kernel.entry_point()),
                        compilation_options: wgpu::PipelineCompilationOptions {
                            constants: &config.constants(kernel),
                            // Every kernel writes workgroup memory before reading it.
                            zero_initialize_workgroup_memory: false,
                        },
                        cache: None,
                    })
            })
            .clone()
    }

    /// Runs `work` inside error scopes and turns what they catch (out of memory, validation,
    /// internal) into an [`Error`].
    pub(crate) async fn scoped<T>(&self, work: impl FnOnce() -> T) -> Result<T, Error> {
        self.check_lost()?;
        let out_of_memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let value = work();
        // Scopes pop innermost first.
        let internal = internal.pop();
        let validation = validation.pop();
        let out_of_memory = out_of_memory.pop();
        let caught = [internal.await, validation.await, out_of_memory.await];
        if let Some(error) = caught.into_iter().flatten().next() {
            return Err(Error::from_wgpu(error));
        }
        Ok(value)
    }

    /// Runs `work`, which creates wgpu objects from the caller's resources, inside a validation
    /// error scope and returns what it catches as an [`Error`] instead of letting wgpu's
    /// uncaptured-error handler panic: a buffer of another device, say. Native backends report
    /// such errors at once, so the scope is popped without waiting. On the web it cannot be
    /// awaited here; errors there reach the device's handler, which logs them.
    pub(crate) fn checked<T>(&self, work: impl FnOnce() -> T) -> Result<T, Error> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let value = work();
            match pollster::block_on(scope.pop()) {
                Some(error) => Err(Error::from_wgpu(error)),
                None => Ok(value),
            }
        }
        #[cfg(target_arch = "wasm32")]
        Ok(work())
    }

    /// Waits for the work submitted so far (on the web: returns at once).
    pub(crate) fn wait_for_submitted(&self) -> Result<(), Error> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| Error::DeviceLost(e.to_string()))
    }

    /// Maps a `MAP_READ` buffer after its copy was submitted and hands its bytes to `read`,
    /// which copies out what it needs (no copy of the whole buffer on the way).
    pub(crate) async fn read_back<R>(
        &self,
        staging: &wgpu::Buffer,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, Error> {
        let (sender, receiver) = futures_channel::oneshot::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            let _ = sender.send(result);
        });
        // Native backends need polling to make progress; on the web this returns at once and
        // the browser runs the callback.
        self.wait_for_submitted()?;
        let mapped = receiver
            .await
            .map_err(|_| Error::DeviceLost("buffer mapping was abandoned".into()))?;
        mapped.map_err(|e| {
            self.check_lost()
                .err()
                .unwrap_or_else(|| Error::DeviceLost(e.to_string()))
        })?;
        let result = read(
            &staging
                .get_mapped_range(..)
                .map_err(|e| Error::Validation(e.to_string()))?,
        );
        staging.unmap();
        Ok(result)
    }

    /// Workgroup counts for `groups` workgroups: one dimension while the device allows, folded
    /// into two beyond that (kernels recombine them with `group_index`).
    pub(crate) fn dispatch_shape(&self, groups: u32) -> Result<(u32, u32), Error> {
        let max = self.device.limits().max_compute_workgroups_per_dimension;
        if groups <= max {
            return Ok((groups.max(1), 1));
        }
        let y = groups.div_ceil(max);
        if y > max {
            return Err(Error::TooLarge {
                what: "workgroups in one dispatch",
                len: groups as usize,
                max: max as usize * max as usize,
            });
        }
        Ok((groups.div_ceil(y), y))
    }
}

/// `len` copies of `fill` in host memory, or [`Error::OutOfMemory`] where the host cannot hold
/// them: results are as large as the inputs, and aborting the process is not an answer.
pub(crate) fn host_vec<T: Clone>(len: usize, fill: T) -> Result<Vec<T>, Error> {
    let mut vec = Vec::new();
    vec.try_reserve_exact(len).map_err(|_| {
        Error::OutOfMemory(format!(
            "no host memory for a result of {} bytes",
            len.saturating_mul(std::mem::size_of::<T>())
        ))
    })?;
    vec.resize(len, fill);
    Ok(vec)
}

/// `bytes` as a vector of `T` (any alignment), through [`host_vec`].
pub(crate) fn host_collect<T: bytemuck::Pod>(bytes: &[u8]) -> Result<Vec<T>, Error> {
    let mut vec = host_vec(bytes.len() / std::mem::size_of::<T>(), T::zeroed());
    if let Ok(vec) = &mut vec {
        bytemuck::cast_slice_mut::<T, u8>(vec).copy_from_slice(bytes);
    }
    vec
}
