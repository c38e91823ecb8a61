//! Merging data that already lives on the GPU, longer than one storage binding allows:
//! `Gpu::merge_resident` cuts the merge into pieces of one binding (here forced smaller with
//! `max_piece_len`), and the result is the same as one dispatch's. Prints the wall time of both
//! ways, from submission to finished work, median of the repeats.
//!
//!     cargo run --release --example resident -- [--log2 24] [--pieces 4] [--repeats 5]

use std::time::Instant;

use rand::{Rng, SeedableRng};
use wgmerge::{Gpu, MergeBuffers, MergeOptions};
use wgpu::util::DeviceExt;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut log2, mut pieces, mut repeats) = (24u32, 4usize, 5usize);
    let mut args = std::env::args().skip(1);
    while let (Some(flag), Some(value)) = (args.next(), args.next()) {
        match flag.as_str() {
            "--log2" => log2 = value.parse()?,
            "--pieces" => pieces = value.parse()?,
            "--repeats" => repeats = value.parse()?,
            _ => return Err(format!("unknown flag {flag}").into()),
        }
    }
    let gpu = Gpu::new()?;
    println!("adapter: {}", gpu.adapter_info().name);

    // Two sorted halves of uniform random keys, uploaded once.
    let half = 1usize << (log2 - 1);
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut sorted_half = || {
        let mut keys: Vec<u32> = (0..half).map(|_| rng.random()).collect();
        keys.sort_unstable();
        keys
    };
    let (a, b) = (sorted_half(), sorted_half());
    // Pieces copy from the inputs and into the output: COPY_SRC and COPY_DST besides STORAGE.
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let upload = |keys: &[u32]| {
        gpu.device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(keys),
                usage,
            })
    };
    let (a_buffer, b_buffer) = (upload(&a), upload(&b));
    let outs = [upload(&vec![0; 2 * half]), upload(&vec![0; 2 * half])];
    let buffers = |out| MergeBuffers {
        a: &a_buffer,
        a_len: half,
        b: &b_buffer,
        b_len: half,
        out,
        values: None,
    };

    let whole = MergeOptions::default();
    let in_pieces = MergeOptions {
        max_piece_len: Some((2 * half).div_ceil(pieces)),
        ..Default::default()
    };
    for (name, options, out) in [
        ("one dispatch", &whole, &outs[0]),
        ("in pieces", &in_pieces, &outs[1]),
    ] {
        let mut times = Vec::new();
        // The first run builds the pipelines.
        for _ in 0..=repeats {
            let start = Instant::now();
            gpu.merge_resident::<u32>(&buffers(out), options)?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        times.remove(0);
        times.sort_by(f64::total_cmp);
        println!(
            "2^{log2} u32 keys {name:>12}: {:.3} ms",
            times[times.len() / 2]
        );
    }

    // Both outputs are the merge: read them back and compare.
    let read = |buffer: &wgpu::Buffer| -> Vec<u32> {
        let staging = gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: buffer.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
        gpu.queue().submit([encoder.finish()]);
        staging.map_async(wgpu::MapMode::Read, .., |result| result.unwrap());
        gpu.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        let bytes = staging.get_mapped_range(..).unwrap();
        bytemuck::pod_collect_to_vec(&bytes)
    };
    let want = wgmerge::cpu::merge(&a, &b);
    for (name, out) in [("one dispatch", &outs[0]), ("in pieces", &outs[1])] {
        let ok = read(out) == want;
        println!("{name}: {}", if ok { "matches the CPU" } else { "WRONG" });
        if !ok {
            return Err(format!("{name} differs from the CPU's merge").into());
        }
    }
    Ok(())
}
