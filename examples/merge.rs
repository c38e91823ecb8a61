//! The main job: merge two generated sorted arrays on the default GPU with each algorithm,
//! check every result against the CPU reference, and print sizes, times and the adapter.
//!
//!     cargo run --release --example merge -- [--log2 22,24] [--repeats 10] [--algorithms basic,tiled,circular]
//!
//! `--log2 N` is the merged length 2^N (two halves of uniform random keys). GPU time comes from
//! timestamp queries when the device has them, otherwise from wall-clock time of many merges in
//! one submission; either way it is the median of `--repeats` batches after a warm-up.

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use wgmerge::{cpu, Algorithm, Gpu, MergeBuffers, MergeOptions};

struct Args {
    log2: Vec<u32>,
    repeats: usize,
    algorithms: Vec<Algorithm>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        log2: vec![22],
        repeats: 10,
        algorithms: Algorithm::ALL.to_vec(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--log2" => {
                args.log2 = value
                    .split(',')
                    .map(|s| s.parse().map_err(|_| format!("bad size {s}")))
                    .collect::<Result<_, _>>()?;
                if args.log2.iter().any(|&n| n > 30) {
                    return Err("--log2 is at most 30".into());
                }
            }
            "--repeats" => args.repeats = value.parse().map_err(|_| "bad --repeats")?,
            "--algorithms" => {
                args.algorithms = value
                    .split(',')
                    .map(|s| match s {
                        "basic" => Ok(Algorithm::Basic),
                        "tiled" => Ok(Algorithm::Tiled),
                        "circular" => Ok(Algorithm::CircularBuffer),
                        _ => Err(format!("unknown algorithm {s}")),
                    })
                    .collect::<Result<_, _>>()?
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    args.repeats = args.repeats.max(1);
    Ok(args)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let gpu = Gpu::new()?;
    let info = gpu.adapter_info();
    println!(
        "adapter: {} ({}, {:?}, driver {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    let timer = if gpu
        .device()
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    {
        "timestamp queries"
    } else {
        "wall clock"
    };
    println!("GPU time: median of {} batches, {timer}", args.repeats);
    println!(
        "{:>11} {:>15} {:>6} {:>14} {:>10} {:>9} {:>8}",
        "keys", "algorithm", "check", "end-to-end ms", "GPU ms", "Gkeys/s", "GB/s"
    );

    let mut rng = rand::rngs::StdRng::seed_from_u64(2026);
    let mut all_correct = true;
    for &log2 in &args.log2 {
        let total = 1usize << log2;
        let mut half = || {
            let mut v: Vec<u32> = (0..total / 2).map(|_| rng.random()).collect();
            v.sort_unstable();
            v
        };
        let (a, b) = (half(), half());
        let want = cpu::merge(&a, &b);
        for &algorithm in &args.algorithms {
            let options = MergeOptions {
                algorithm,
                ..Default::default()
            };
            gpu.merge_with(&a, &b, &options)?; // warm-up: builds the pipeline
            let start = Instant::now();
            let got = gpu.merge_with(&a, &b, &options)?;
            let end_to_end = start.elapsed();
            let correct = got == want;
            all_correct &= correct;
            let gpu_time = time_on_gpu(&gpu, &a, &b, &options, args.repeats)?;
            // A merge reads both inputs and writes the output once: 8 bytes per key at least.
            let seconds = gpu_time.as_secs_f64();
            println!(
                "{total:>11} {:>15} {:>6} {:>14.3} {:>10.4} {:>9.2} {:>8.1}",
                format!("{algorithm:?}"),
                if correct { "ok" } else { "WRONG" },
                end_to_end.as_secs_f64() * 1e3,
                seconds * 1e3,
                total as f64 / seconds / 1e9,
                total as f64 * 8.0 / seconds / 1e9,
            );
        }
    }
    if !all_correct {
        return Err("a GPU merge differed from the CPU reference".into());
    }
    Ok(())
}

/// Median GPU time of one merge of resident buffers.
fn time_on_gpu(
    gpu: &Gpu,
    a: &[u32],
    b: &[u32],
    options: &MergeOptions,
    repeats: usize,
) -> Result<Duration, Box<dyn std::error::Error>> {
    use wgpu::util::DeviceExt;
    let device = gpu.device();
    let upload = |data: &[u32]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(data),
            usage: wgpu::BufferUsages::STORAGE,
        })
    };
    let (a_buffer, b_buffer) = (upload(a), upload(b));
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: ((a.len() + b.len()) * 4).max(4) as u64,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let scratch = gpu.create_scratch();
    let buffers = MergeBuffers {
        a: &a_buffer,
        a_len: a.len(),
        b: &b_buffer,
        b_len: b.len(),
        out: &out,
        values: None,
    };
    let timestamps = device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
    let queries = timestamps.then(|| {
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: None,
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let read = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        (set, resolve, read)
    });
    // Every merge in a batch has the same lengths, so one scratch serves the whole submission.
    let batch = |merges: usize| -> Result<Duration, Box<dyn std::error::Error>> {
        let mut encoder = device.create_command_encoder(&Default::default());
        if let Some((set, _, _)) = &queries {
            encoder.write_timestamp(set, 0);
        }
        for _ in 0..merges {
            gpu.encode_merge(&mut encoder, &scratch, &buffers, options)?;
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
            return Ok(wall / merges as u32);
        };
        read.map_async(wgpu::MapMode::Read, .., |r| r.expect("map timestamps"));
        device.poll(wgpu::PollType::wait_indefinitely())?;
        let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&read.get_mapped_range(..)?);
        read.unmap();
        let nanos = ticks[1].saturating_sub(ticks[0]) as f64
            * f64::from(gpu.queue().get_timestamp_period());
        Ok(Duration::from_secs_f64(nanos / 1e9 / merges as f64))
    };
    // Warm up, then size batches to about 20 ms so submission overhead stays small.
    let one = batch(1)?.max(Duration::from_micros(1));
    let merges =
        (Duration::from_millis(20).as_secs_f64() / one.as_secs_f64()).clamp(1.0, 200.0) as usize;
    let mut times = (0..repeats)
        .map(|_| batch(merges))
        .collect::<Result<Vec<_>, _>>()?;
    times.sort();
    Ok(times[times.len() / 2])
}
