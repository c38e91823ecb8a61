//! GPU timing shared by the examples: the median time of one recorded operation, after half a
//! second of warm-up, from batches of back-to-back repetitions in one submission (about 20 ms each, so
//! submission overhead stays small). Timestamp queries time the batch where the device has them
//! (`TIMESTAMP_QUERY_INSIDE_ENCODERS`), otherwise the wall clock does.

use std::time::{Duration, Instant};

use wgmerge::{Error, Gpu};

/// What times the batches on this device.
pub fn timer_name(gpu: &Gpu) -> &'static str {
    if has_timestamps(gpu) {
        "timestamp queries"
    } else {
        "wall clock"
    }
}

fn has_timestamps(gpu: &Gpu) -> bool {
    gpu.device()
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
}

/// Median GPU time of one `record`ed operation over `repeats` batches.
pub fn median_gpu_time(
    gpu: &Gpu,
    repeats: usize,
    record: impl Fn(&mut wgpu::CommandEncoder) -> Result<(), Error>,
) -> Result<Duration, Box<dyn std::error::Error>> {
    let device = gpu.device();
    let queries = has_timestamps(gpu).then(|| {
        let buffer = |usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        (
            device.create_query_set(&wgpu::QuerySetDescriptor {
                label: None,
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC),
            buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
        )
    });
    let batch = |count: usize| -> Result<Duration, Box<dyn std::error::Error>> {
        let mut encoder = device.create_command_encoder(&Default::default());
        if let Some((set, _, _)) = &queries {
            encoder.write_timestamp(set, 0);
        }
        for _ in 0..count {
            record(&mut encoder)?;
        }
        if let Some((set, resolve, read)) = &queries {
            encoder.write_timestamp(set, 1);
            encoder.resolve_query_set(set, 0..2, resolve, 0);
            encoder.copy_buffer_to_buffer(resolve, 0, read, 0, 16);
        }
        let start = Instant::now();
        gpu.queue().submit([encoder.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely())?;
        let wall = start.elapsed();
        let Some((_, _, read)) = &queries else {
            return Ok(wall / count as u32);
        };
        read.map_async(wgpu::MapMode::Read, .., |r| r.expect("map timestamps"));
        device.poll(wgpu::PollType::wait_indefinitely())?;
        let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&read.get_mapped_range(..)?);
        read.unmap();
        let nanos = ticks[1].saturating_sub(ticks[0]) as f64
            * f64::from(gpu.queue().get_timestamp_period());
        Ok(Duration::from_secs_f64(nanos / 1e9 / count as f64))
    };
    let one = batch(1)?.max(Duration::from_micros(1));
    let count = (0.020 / one.as_secs_f64()).clamp(1.0, 200.0) as usize;
    // A GPU that has idled (during uploads, readbacks or CPU work) runs its first few hundred
    // milliseconds of work several times slower (measured on an H100: docs/benchmarks.md), so
    // keep it busy for half a second before timing.
    let warm_up = Instant::now();
    while warm_up.elapsed() < Duration::from_millis(500) {
        batch(count)?;
    }
    let mut times = (0..repeats.max(1))
        .map(|_| batch(count))
        .collect::<Result<Vec<_>, _>>()?;
    times.sort();
    Ok(times[times.len() / 2])
}

/// Median wall-clock time of `work` over `repeats` runs, after one warm-up run. Only `work` is
/// timed: the result of the run before is dropped after the clock stops.
pub fn median_wall_time<T>(repeats: usize, mut work: impl FnMut() -> T) -> (Duration, T) {
    let mut last = work();
    let mut times = Vec::new();
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        let value = work();
        times.push(start.elapsed());
        last = value;
    }
    times.sort();
    (times[times.len() / 2], last)
}

/// Uploads `data` into a `STORAGE` buffer.
pub fn storage_buffer(gpu: &Gpu, data: &[u32]) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    gpu.device()
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(if data.is_empty() { &[0] } else { data }),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        })
}

/// The first `len` words of a `COPY_SRC` buffer.
pub fn read_words(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    len: usize,
) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    let bytes = (len * 4) as u64;
    // A length read back from the GPU (a count of kept keys) is checked here, so that a kernel
    // that counts wrong fails its row instead of the whole sweep (wgpu panics on the copy).
    if bytes > buffer.size() {
        return Err(format!("{len} words asked of a buffer of {} bytes", buffer.size()).into());
    }
    let staging = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    if bytes > 0 {
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
    }
    gpu.queue().submit([encoder.finish()]);
    staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("mapped"));
    gpu.device().poll(wgpu::PollType::wait_indefinitely())?;
    let words = bytemuck::pod_collect_to_vec(&staging.get_mapped_range(..)?[..bytes as usize]);
    Ok(words)
}
