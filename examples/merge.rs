//! The main job: merge two generated sorted arrays on the default GPU with each algorithm,
//! check every result against the CPU reference, and print sizes, times and the adapter.
//!
//!     cargo run --release --example merge -- [--log2 22,24] [--repeats 10] [--algorithms basic,tiled,circular,merge-path]
//!
//! `--log2 N` is the merged length 2^N (two halves of uniform random keys). GPU time comes from
//! timestamp queries when the device has them, otherwise from wall-clock time of many merges in
//! one submission; either way it is the median of `--repeats` batches after a warm-up.

#[path = "common/timing.rs"]
#[allow(dead_code)] // shared with the bench, which uses all of it
mod timing;

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
                    .map(|s| Algorithm::from_name(s).ok_or(format!("unknown algorithm {s}")))
                    .collect::<Result<_, _>>()?
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    args.repeats = args.repeats.max(1);
    Ok(args)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    env_logger::init();
    let args = parse_args()?;
    let gpu = Gpu::new()?;
    let info = gpu.adapter_info();
    println!(
        "adapter: {} ({}, {:?}, driver {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    println!(
        "GPU time: median of {} batches, {}",
        args.repeats,
        timing::timer_name(&gpu)
    );
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
    let (a_buffer, b_buffer) = (
        timing::storage_buffer(gpu, a),
        timing::storage_buffer(gpu, b),
    );
    let out = timing::storage_buffer(gpu, &vec![0; a.len() + b.len()]);
    // Every merge in a batch has the same lengths, so one scratch serves the whole submission.
    let scratch = gpu.create_scratch();
    let buffers = MergeBuffers {
        a: &a_buffer,
        a_len: a.len(),
        b: &b_buffer,
        b_len: b.len(),
        out: &out,
        values: None,
    };
    timing::median_gpu_time(gpu, repeats, |encoder| {
        gpu.encode_merge::<u32>(encoder, &scratch, &buffers, options)
    })
}
