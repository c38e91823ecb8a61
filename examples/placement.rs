//! Probe: does where the driver places a buffer change merge speed? Allocates fresh input and
//! output buffers round after round in one process (keeping or freeing the earlier ones) and
//! times a copy and each merge algorithm on every set. Equal sizes, equal data: any spread
//! between rounds comes from the allocations, not the kernels (docs/benchmarks.md).
//!
//!     cargo run --release --example placement -- [--log2 26] [--rounds 4] [--repeats 5]

#[path = "common/copy.rs"]
mod copy;
#[path = "common/timing.rs"]
#[allow(dead_code)]
mod timing;

use rand::{Rng, SeedableRng};
use wgmerge::{Algorithm, Gpu, MergeBuffers, MergeOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut log2 = 26;
    let mut rounds = 4;
    let mut repeats = 5;
    let mut args = std::env::args().skip(1);
    while let (Some(flag), Some(value)) = (args.next(), args.next()) {
        match flag.as_str() {
            "--log2" => log2 = value.parse()?,
            "--rounds" => rounds = value.parse()?,
            "--repeats" => repeats = value.parse()?,
            _ => return Err(format!("unknown flag {flag}").into()),
        }
    }
    let gpu = Gpu::new()?;
    let copy_kernel = copy::CopyKernel::new(&gpu);
    println!("adapter: {}", gpu.adapter_info().name);
    let n = 1usize << log2;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut half = || {
        let mut v: Vec<u32> = (0..n / 2).map(|_| rng.random()).collect();
        v.sort_unstable();
        v
    };
    let (a, b) = (half(), half());
    println!("2^{log2} keys; GPU ms, median of {repeats} batches; copy in TB/s (read + write)");
    print!("{:>14} {:>8}", "round", "copy");
    for algorithm in Algorithm::ALL {
        print!(" {:>11}", algorithm.name());
    }
    println!();
    let mut kept = Vec::new();
    for (phase, keep) in [("kept", true), ("freed", false)] {
        for round in 0..rounds {
            let (a_buffer, b_buffer) = (
                timing::storage_buffer(&gpu, &a),
                timing::storage_buffer(&gpu, &b),
            );
            let out = timing::storage_buffer(&gpu, &vec![0; n]);
            let scratch = gpu.create_scratch();
            let copy = timing::median_gpu_time(&gpu, repeats, |encoder| {
                copy_kernel.encode(&gpu, encoder, &a_buffer, &out, n / 2)
            })?;
            print!(
                "{:>14} {:>8.2}",
                format!("{phase} {round}"),
                n as f64 * 4.0 / copy.as_secs_f64() / 1e12
            );
            let buffers = MergeBuffers {
                a: &a_buffer,
                a_len: a.len(),
                b: &b_buffer,
                b_len: b.len(),
                out: &out,
                values: None,
            };
            for algorithm in Algorithm::ALL {
                let options = MergeOptions {
                    algorithm,
                    ..Default::default()
                };
                let time = timing::median_gpu_time(&gpu, repeats, |encoder| {
                    gpu.encode_merge::<u32>(encoder, &scratch, &buffers, &options)
                })?;
                print!(" {:>11.3}", time.as_secs_f64() * 1e3);
            }
            println!();
            if keep {
                kept.push((a_buffer, b_buffer, out));
            }
        }
        kept.clear();
    }
    Ok(())
}
