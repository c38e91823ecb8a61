//! The GPU context: adapter and device, the pipelines built so far, the pool of reusable buffers,
//! and the plumbing every operation shares (error scopes, futures that complete from wgpu's
//! callbacks, dispatch shape, checks of the caller's buffers). It knows no operation.

use std::future::Future;
use std::sync::{Arc, OnceLock};

use crate::pipeline::{Kernel, Pipelines, Specialization};
use crate::pool::Pool;
use crate::Error;

/// A GPU that wgmerge runs on: a wgpu device and queue, the compute pipelines built for it, and a
/// bounded pool of buffers that the slice forms reuse from call to call.
///
/// Pipelines are created on first use and reused afterwards. `Gpu` is `Send + Sync` on native
/// targets; share one across threads. On native targets a `Gpu` polls its device from a thread of
/// its own while any of its futures waits on the GPU, so the `_async` forms return `Pending`
/// instead of blocking the caller's thread, and run under any executor.
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    adapter_info: wgpu::AdapterInfo,
    /// Why the device was lost, when wgmerge created the device and so owns its lost callback.
    lost: Arc<OnceLock<String>>,
    pipelines: Pipelines,
    pub(crate) pool: Pool,
    /// Whether kernels are built with naga's runtime checks ([`Gpu::with_runtime_checks`]).
    runtime_checks: bool,
    /// wgmerge's submissions on the device not yet waited for, and its waits (`wait_next`).
    #[cfg(not(target_arch = "wasm32"))]
    waits: poller::Waits,
    #[cfg(not(target_arch = "wasm32"))]
    poller: poller::Poller,
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
    /// `WGPU_ADAPTER_NAME` (a part of the adapter's name, any case), `WGPU_POWER_PREF`. Returns
    /// [`Error::NoAdapter`] when none matches.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<Self, Error> {
        pollster::block_on(Self::new_async())
    }

    /// Opens the default high-performance adapter (see [`Gpu::new`]); for targets that cannot
    /// block, such as the web.
    pub async fn new_async() -> Result<Self, Error> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = match std::env::var("WGPU_ADAPTER_NAME") {
            Ok(wanted) => {
                let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
                let adapters = instance.enumerate_adapters(backends).await;
                let wanted_lower = wanted.to_lowercase();
                let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
                adapters
                    .into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&wanted_lower))
                    .ok_or_else(|| {
                        Error::NoAdapter(format!(
                            "WGPU_ADAPTER_NAME={wanted:?} matches none of {names:?}"
                        ))
                    })?
            }
            Err(_) => instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::from_env()
                        .unwrap_or(wgpu::PowerPreference::HighPerformance),
                    ..Default::default()
                })
                .await
                .map_err(|e| Error::NoAdapter(e.to_string()))?,
        };
        Self::from_adapter(&adapter).await
    }

    /// Opens a device on `adapter` (for example one picked from `Instance::enumerate_adapters`)
    /// with every limit it offers, and timestamp queries and subgroup operations where it has
    /// them.
    pub async fn from_adapter(adapter: &wgpu::Adapter) -> Result<Self, Error> {
        // Every limit the adapter offers (large inputs need its real binding limits); timestamps
        // so that applications and benchmarks can time GPU work; subgroups for scan and reduce.
        let wanted = wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
            | wgpu::Features::SUBGROUP;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("wgmerge"),
                required_features: adapter.features() & wanted,
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
    ///
    /// wgmerge waits for its own submissions without timeout. With wgpu 30.0.1, an application
    /// that polls the same device from other threads should do the same (`PollType::Poll`, or
    /// a wait without timeout): a wait that times out while another thread submits can panic
    /// inside wgpu-core (gfx-rs/wgpu#9958).
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        let waits = poller::Waits::default();
        Self {
            adapter_info: device.adapter_info(),
            #[cfg(not(target_arch = "wasm32"))]
            poller: poller::Poller::start(device.clone(), waits.clone()),
            #[cfg(not(target_arch = "wasm32"))]
            waits,
            device,
            queue,
            lost: Arc::new(OnceLock::new()),
            pipelines: Pipelines::default(),
            pool: Pool::default(),
            runtime_checks: false,
        }
    }

    /// Builds kernels with (`true`) or without (`false`, the default) naga's runtime checks:
    /// bounds checks on every array access, loop bounding and checked integer division. The
    /// kernels are written never to need them, and without them merges run about 20% faster on
    /// an H100 (docs/tuning-log.md); turn them on to rule wgmerge's shaders out when hunting a
    /// fault. Set it before the first operation: pipelines built so far are dropped.
    pub fn with_runtime_checks(mut self, on: bool) -> Self {
        self.runtime_checks = on;
        self.pipelines.clear();
        self
    }

    /// The most bytes of idle buffers the pool keeps between calls, GPU buffers and host staging
    /// buffers each (default: [`Pool::DEFAULT_LIMIT`](crate::Gpu::pool_limit)); beyond it,
    /// buffers are freed as soon as a call ends. 0 keeps none.
    pub fn with_pool_limit(self, bytes: u64) -> Self {
        self.pool.set_limit(bytes);
        self
    }

    /// The most bytes of idle buffers the pool keeps between calls, GPU and staging each.
    pub fn pool_limit(&self) -> u64 {
        self.pool.limit()
    }

    /// Frees every idle buffer the pool keeps (GPU memory and the host memory of staging
    /// buffers). Later calls allocate again.
    pub fn release_buffers(&self) {
        self.pool.release();
    }

    /// Bytes of idle buffers the pool keeps now: GPU buffers, and host staging buffers.
    pub fn pooled_bytes(&self) -> (u64, u64) {
        self.pool.idle_bytes()
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

    /// Whether the device runs subgroup operations (`Features::SUBGROUP`). Not on the web: the
    /// browser compiles the WGSL there and wants `enable subgroups;`, which naga, compiling it
    /// everywhere else, does not take yet (lib/workgroup_scan/subgroups.wgsl).
    pub(crate) fn has_subgroups(&self) -> bool {
        cfg!(not(target_arch = "wasm32"))
            && self.device.features().contains(wgpu::Features::SUBGROUP)
    }

    /// Whether the adapter is known to give workgroups forward progress: a workgroup waiting on
    /// another that started before it is never starved. WebGPU promises nothing of the kind, and
    /// Apple, ARM and software rasterisers do not give it; NVIDIA's drivers through Vulkan and
    /// DX12 do (CUB's single-pass scan relies on the same hardware).
    pub(crate) fn has_forward_progress(&self) -> bool {
        const NVIDIA: u32 = 0x10de;
        let info = &self.adapter_info;
        info.vendor == NVIDIA
            && matches!(info.backend, wgpu::Backend::Vulkan | wgpu::Backend::Dx12)
            && matches!(
                info.device_type,
                wgpu::DeviceType::DiscreteGpu | wgpu::DeviceType::IntegratedGpu
            )
    }

    /// The pipeline of `kernel` in `specialization`, built on first use.
    pub(crate) fn pipeline(
        &self,
        kernel: &'static Kernel,
        specialization: &Specialization,
    ) -> Result<wgpu::ComputePipeline, Error> {
        self.pipelines
            .pipeline(&self.device, kernel, specialization, self.runtime_checks)
    }

    /// A bind group of `kernel` (with its value buffers when `with_values`) over `entries`.
    pub(crate) fn bind_group(
        &self,
        kernel: &Kernel,
        with_values: bool,
        entries: &[wgpu::BindGroupEntry<'_>],
    ) -> wgpu::BindGroup {
        let layout = self
            .pipelines
            .layout(&self.device, &kernel.bindings(with_values));
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(kernel.entry),
            layout: &layout.bind_group,
            entries,
        })
    }

    /// Checks the device can bind as many storage buffers as `kernel` needs.
    pub(crate) fn check_storage_buffers(
        &self,
        kernel: &Kernel,
        with_values: bool,
    ) -> Result<(), Error> {
        let needed = kernel.storage_buffers(with_values);
        let allowed = self.device.limits().max_storage_buffers_per_shader_stage;
        if allowed < needed {
            return Err(Error::Unsupported(format!(
                "{} binds {needed} storage buffers; this device allows {allowed}",
                kernel.entry
            )));
        }
        Ok(())
    }

    /// Checks a kernel's workgroup memory against the device; `what` describes the shape.
    pub(crate) fn check_workgroup_memory(&self, bytes: u64, what: &str) -> Result<(), Error> {
        let max = u64::from(self.device.limits().max_compute_workgroup_storage_size);
        if bytes > max {
            return Err(Error::InvalidOptions(format!(
                "{what} needs {bytes} bytes of workgroup memory; this device has {max}"
            )));
        }
        Ok(())
    }

    /// [`Error::DeviceLost`] once the device is lost.
    pub(crate) fn check_lost(&self) -> Result<(), Error> {
        match self.lost.get() {
            Some(reason) => Err(Error::DeviceLost(reason.clone())),
            None => Ok(()),
        }
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
        // A device lost inside `work` (wgpu's GL backend loses it when the driver refuses a
        // buffer) reaches no scope, only the lost callback; the objects made are invalid.
        self.check_lost()?;
        Ok(value)
    }

    /// Runs `work`, which creates wgpu objects from the caller's resources, inside a validation
    /// error scope and returns what it catches as an [`Error`] instead of letting wgpu's
    /// uncaptured-error handler panic. Native backends report such errors at once, so the scope
    /// is popped without waiting. On the web it cannot be awaited here; errors there reach the
    /// device's handler, which logs them.
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

    /// Checks that a caller's buffer belongs to this device. wgpu resolves a buffer by an id that
    /// is only unique within its own `Instance`, so a buffer of another instance would bind
    /// whatever buffer of ours has the same id, or panic inside wgpu. This asks the buffer itself
    /// for a mapping it cannot have: wgpu reports that error to the buffer's own device, which is
    /// ours exactly when our error scope catches it. (Another device's handler may panic on it,
    /// the default does, and that is caught too.) A buffer with both map usages cannot be asked,
    /// and is taken as ours.
    pub(crate) fn check_owned(
        &self,
        name: &'static str,
        buffer: &wgpu::Buffer,
    ) -> Result<(), Error> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            use wgpu::BufferUsages as U;
            let usage = buffer.usage();
            let mode = if !usage.contains(U::MAP_READ) {
                wgpu::MapMode::Read
            } else if !usage.contains(U::MAP_WRITE) {
                wgpu::MapMode::Write
            } else {
                return Ok(());
            };
            if buffer.size() == 0 {
                return Ok(());
            }
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let asked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                buffer.map_async(mode, .., |_| {});
            }));
            // Forget the mapping wgpu recorded for the failed request.
            let reset = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| buffer.unmap()));
            let caught = pollster::block_on(scope.pop());
            if asked.is_ok() && reset.is_ok() && caught.is_some() {
                return Ok(());
            }
            Err(Error::Validation(format!(
                "buffer {name} belongs to another device or wgpu instance"
            )))
        }
        #[cfg(target_arch = "wasm32")]
        {
            // Browsers check ownership themselves, and report it as a validation error.
            let _ = (name, buffer);
            Ok(())
        }
    }

    /// Waits until the GPU has finished the work submitted so far, without blocking the thread:
    /// the future completes from wgpu's callback.
    pub(crate) async fn submitted_work_done(&self) -> Result<(), Error> {
        let (sender, receiver) = futures_channel::oneshot::channel();
        let guard = self.expect_callback();
        self.queue.on_submitted_work_done(move || {
            let _ = sender.send(());
            drop(guard);
        });
        receiver
            .await
            .map_err(|_| self.lost_or("the GPU's work-done callback was dropped"))?;
        self.check_lost()
    }

    /// Maps `slice` of a buffer whose last use was submitted, completing from wgpu's callback.
    pub(crate) async fn map(
        &self,
        slice: wgpu::BufferSlice<'_>,
        mode: wgpu::MapMode,
    ) -> Result<(), Error> {
        let (sender, receiver) = futures_channel::oneshot::channel();
        let guard = self.expect_callback();
        slice.map_async(mode, move |result| {
            let _ = sender.send(result);
            drop(guard);
        });
        let mapped = receiver
            .await
            .map_err(|_| self.lost_or("buffer mapping was abandoned"))?;
        mapped.map_err(|e| self.lost_or(&e.to_string()))
    }

    /// Asks for the first `bytes` of `buffer` (whose last use was submitted) to be mapped, and
    /// returns a future of it that borrows nothing, so that callers can keep several in flight.
    pub(crate) fn map_later(
        &self,
        buffer: &wgpu::Buffer,
        bytes: u64,
        mode: wgpu::MapMode,
    ) -> impl Future<Output = Result<(), Error>> + 'static {
        let (sender, receiver) = futures_channel::oneshot::channel();
        let guard = self.expect_callback();
        buffer.slice(..bytes).map_async(mode, move |result| {
            let _ = sender.send(result);
            drop(guard);
        });
        let lost = self.lost.clone();
        async move {
            let why =
                |otherwise: String| Error::DeviceLost(lost.get().cloned().unwrap_or(otherwise));
            match receiver.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(why(e.to_string())),
                Err(_) => Err(why("buffer mapping was abandoned".into())),
            }
        }
    }

    /// [`Error::DeviceLost`] with the device's reason if it was lost, or with `otherwise`.
    fn lost_or(&self, otherwise: &str) -> Error {
        self.check_lost()
            .err()
            .unwrap_or_else(|| Error::DeviceLost(otherwise.to_string()))
    }

    /// Submits `commands`, queued for wgmerge's waits (native): every submission of wgmerge's
    /// own goes through here.
    pub(crate) fn submit(&self, commands: wgpu::CommandBuffer) {
        #[cfg(not(target_arch = "wasm32"))]
        {
            // Held across the submission, so that the queue keeps submission order.
            let mut pending = self.waits.pending.lock().unwrap_or_else(|e| e.into_inner());
            pending.push_back(self.queue.submit([commands]));
        }
        #[cfg(target_arch = "wasm32")]
        self.queue.submit([commands]);
    }

    /// Tells the poller (native) that a callback is awaited until the guard drops, unless this
    /// thread drives the device itself ([`Gpu::block_on`]).
    fn expect_callback(&self) -> impl Send + 'static {
        #[cfg(not(target_arch = "wasm32"))]
        return (!poller::DRIVING.with(|driving| driving.get())).then(|| self.poller.expect());
        #[cfg(target_arch = "wasm32")]
        ()
    }

    /// Maps a `MAP_READ` buffer after its copy was submitted and hands its first `len` bytes to
    /// `read`, which copies out what it needs.
    pub(crate) async fn read_back<R>(
        &self,
        staging: &wgpu::Buffer,
        len: u64,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, Error> {
        if len == 0 {
            return Ok(read(&[]));
        }
        let slice = staging.slice(..len);
        self.map(slice, wgpu::MapMode::Read).await?;
        let result = read(
            &slice
                .get_mapped_range()
                .map_err(|e| Error::Validation(e.to_string()))?,
        );
        staging.unmap();
        Ok(result)
    }

    /// Runs a future to completion on this thread: the one place the blocking forms wait for the
    /// async ones. The thread drives the device itself while it waits (as an async caller's
    /// poller thread would), which saves two thread hand-offs per wait.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        poller::DRIVING.with(|driving| driving.set(true));
        let waker = std::task::Waker::noop();
        let mut context = std::task::Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        let output = loop {
            if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut context) {
                break output;
            }
            // Wait for the next submission and run the callbacks that became ready; a future
            // waiting on nothing the GPU runs (none of ours) would spin here, not hang.
            wait_next(&self.device, &self.waits);
        };
        poller::DRIVING.with(|driving| driving.set(false));
        output
    }

    /// Workgroup counts for `groups` workgroups: one dimension while the device allows, folded
    /// into two beyond that (kernels recombine them with `group_index`, lib/dispatch.wgsl).
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

    /// The most bytes one storage binding of this device holds.
    pub(crate) fn max_binding_bytes(&self) -> u64 {
        let limits = self.device.limits();
        limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
    }

    /// A uniform buffer holding `bytes`, written at creation: each recorded operation gets its
    /// own, so that operations recorded into one submission never share parameters.
    pub(crate) fn uniform(&self, label: &'static str, bytes: &[u8]) -> wgpu::Buffer {
        self.buffer_init(label, bytes, wgpu::BufferUsages::UNIFORM)
    }

    /// A read-only storage buffer holding `bytes`, written at creation, as [`Gpu::uniform`]: for
    /// parameters larger than a uniform binding allows (the many-way merge's segment tables).
    pub(crate) fn storage_init(&self, label: &'static str, bytes: &[u8]) -> wgpu::Buffer {
        self.buffer_init(label, bytes, wgpu::BufferUsages::STORAGE)
    }

    fn buffer_init(
        &self,
        label: &'static str,
        bytes: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        use wgpu::util::DeviceExt;
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage,
            })
    }
}

/// Binding `binding` to all of `buffer`.
pub(crate) fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    entry(binding, buffer.as_entire_binding())
}

/// Binding `binding` to `resource`.
pub(crate) fn entry(binding: u32, resource: wgpu::BindingResource<'_>) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry { binding, resource }
}

/// Records one dispatch of `pipeline` with `bind_group` in a compute pass of its own.
pub(crate) fn dispatch(
    encoder: &mut wgpu::CommandEncoder,
    label: &str,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    (x, y): (u32, u32),
) {
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: None,
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(x, y, 1);
}

/// Binds the first `len` elements of `size` bytes of `buffer`, from element `offset`, or the
/// whole of `placeholder` when there are none (WGSL cannot bind nothing).
pub(crate) fn bind_elements<'a>(
    buffer: &'a wgpu::Buffer,
    offset: usize,
    len: usize,
    size: u32,
    placeholder: &'a wgpu::Buffer,
) -> wgpu::BindingResource<'a> {
    if len == 0 {
        return placeholder.as_entire_binding();
    }
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset: offset as u64 * u64::from(size),
        size: wgpu::BufferSize::new(len as u64 * u64::from(size)),
    })
}

/// Bytes of `len` 4-byte elements bound as whole vec4s: the length rounded up to a multiple of 4
/// (scan_io/vec4.wgsl, select_io/vec4.wgsl).
pub(crate) fn whole_vec4_bytes(len: usize) -> u64 {
    (len as u64).div_ceil(4) * 16
}

/// Waits for wgmerge's oldest submission not yet waited for and runs every callback whose work
/// is done, so that each callback runs as soon as its own submission is done. Waiting for all
/// submitted work instead (main before run 189) holds back a callback of early work (a staging
/// buffer the next chunk needs) until the latest finished, and on OpenGL holds the context's lock
/// throughout, so that another thread's call gives up after 6 s ("Could not lock adapter
/// context"). The waits have no timeout: in wgpu-core 30.0.1 a wait that times out panics in
/// its queue-empty assertion when another thread's submission finishes the work meanwhile
/// (fixed upstream in gfx-rs/wgpu#9958); waits in slices of 200 us did, in the threads test.
/// wgmerge's waits take turns, so that each submission is waited for once.
#[cfg(not(target_arch = "wasm32"))]
fn wait_next(device: &wgpu::Device, waits: &poller::Waits) {
    let _turn = match waits.polling.try_lock() {
        Ok(turn) => turn,
        Err(std::sync::TryLockError::Poisoned(turn)) => turn.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => {
            // Another thread waits, and runs the callbacks that become ready (perhaps the one
            // this caller awaits): let its wait end, then the caller looks at its future again
            // rather than wait for the next submission, which may be another thread's.
            drop(waits.polling.lock().unwrap_or_else(|e| e.into_inner()));
            return;
        }
    };
    let oldest = waits
        .pending
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .pop_front();
    let Some(submission_index) = oldest else {
        // Nothing of wgmerge's in flight: run what is ready, and let the GPU's own threads
        // (a software driver's) run rather than spin.
        let _ = device.poll(wgpu::PollType::Poll);
        std::thread::sleep(std::time::Duration::from_micros(50));
        return;
    };
    let wait = wgpu::PollType::Wait {
        submission_index: Some(submission_index),
        timeout: None,
    };
    match device.poll(wait) {
        Ok(_) => {}
        // A lost device: its callbacks fail and the futures report it; do not spin.
        Err(_) => std::thread::sleep(std::time::Duration::from_millis(1)),
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod poller {
    //! A thread that polls the device while any future waits on one of its callbacks, so that
    //! futures complete from wgpu's callbacks and never block their caller.

    use std::cell::Cell;
    use std::sync::{Arc, Condvar, Mutex};

    /// wgmerge's submissions on a device not yet waited for, oldest first (`Gpu::submit`), and
    /// the turn of its waits; shared by the `Gpu` and its poller thread.
    pub(crate) type Waits = Arc<WaitState>;

    #[derive(Default)]
    pub(crate) struct WaitState {
        pub(crate) pending: Mutex<std::collections::VecDeque<wgpu::SubmissionIndex>>,
        pub(crate) polling: Mutex<()>,
    }

    thread_local! {
        /// Whether this thread polls the device itself while it waits (Gpu::block_on).
        pub(super) static DRIVING: Cell<bool> = const { Cell::new(false) };
    }

    #[derive(Default)]
    struct State {
        /// Callbacks awaited.
        waiting: usize,
        shutdown: bool,
    }

    #[derive(Default)]
    struct Shared {
        state: Mutex<State>,
        wake: Condvar,
    }

    pub(super) struct Poller {
        shared: Arc<Shared>,
        thread: Option<std::thread::JoinHandle<()>>,
    }

    /// Held while a callback is awaited.
    pub(super) struct Expected(Arc<Shared>);

    impl Drop for Expected {
        fn drop(&mut self) {
            let mut state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
            state.waiting = state.waiting.saturating_sub(1);
        }
    }

    impl Poller {
        pub(super) fn start(device: wgpu::Device, waits: Waits) -> Self {
            let shared = Arc::new(Shared::default());
            let thread_shared = shared.clone();
            let thread = std::thread::Builder::new()
                .name("wgmerge poller".into())
                .spawn(move || run(&device, &waits, &thread_shared))
                .ok();
            Poller { shared, thread }
        }

        pub(super) fn expect(&self) -> Expected {
            let mut state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
            state.waiting += 1;
            self.shared.wake.notify_one();
            Expected(self.shared.clone())
        }
    }

    impl Drop for Poller {
        fn drop(&mut self) {
            self.shared
                .state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .shutdown = true;
            self.shared.wake.notify_one();
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
    }

    fn run(device: &wgpu::Device, waits: &Waits, shared: &Shared) {
        loop {
            {
                let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
                while state.waiting == 0 && !state.shutdown {
                    state = shared.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                }
                if state.shutdown {
                    return;
                }
            }
            super::wait_next(device, waits);
        }
    }
}
