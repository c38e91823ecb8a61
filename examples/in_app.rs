//! An application that owns its wgpu device and keeps its data on the GPU: it records a merge of
//! two sorted arrays, a sort of a third and a scan of a fourth into its own command encoder, next
//! to its own work, submits once and reads everything back once.
//!
//!     cargo run --release --example in_app

use rand::{Rng, SeedableRng};
use wgmerge::wgpu::{self, util::DeviceExt};
use wgmerge::{
    cpu, Gpu, MergeBuffers, MergeOptions, ReduceOp, ScanBuffers, ScanKind, ScanOptions,
    SortBuffers, SortOptions,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The application's own device: its adapter, its limits, its features.
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))?;
    // wgmerge works on it; the application keeps its handles (they are shared).
    let gpu = Gpu::from_device(device.clone(), queue.clone());
    let scratch = gpu.create_scratch();
    println!("running on {}", gpu.adapter_info().name);

    // The application's data, already on the GPU.
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut sorted = |len| {
        let mut v: Vec<u32> = (0..len).map(|_| rng.random_range(0..1_000_000)).collect();
        v.sort_unstable();
        v
    };
    let (a, b) = (sorted(300_000), sorted(200_001));
    let unsorted: Vec<u32> = (0..250_000).map(|i| (i * 7919) % 250_007).collect();
    let counts: Vec<u32> = (0..100_000).map(|i| i % 5).collect();
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let upload = |data: &[u32]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(data),
            usage,
        })
    };
    let empty = |len: usize| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: len as u64 * 4,
            usage,
            mapped_at_creation: false,
        })
    };
    let (a_buffer, b_buffer, merged) = (upload(&a), upload(&b), empty(a.len() + b.len()));
    let (keys, temp) = (upload(&unsorted), empty(unsorted.len()));
    let (count_buffer, offsets) = (upload(&counts), empty(counts.len()));

    // One encoder: the application's own commands could go before, between and after these.
    let mut encoder = device.create_command_encoder(&Default::default());
    let merge = MergeBuffers {
        a: &a_buffer,
        a_len: a.len(),
        b: &b_buffer,
        b_len: b.len(),
        out: &merged,
        values: None,
    };
    gpu.encode_merge::<u32>(&mut encoder, &scratch, &merge, &MergeOptions::default())?;
    let sort = SortBuffers {
        keys: &keys,
        temp: &temp,
        len: unsorted.len(),
        values: None,
    };
    gpu.encode_sort::<u32>(&mut encoder, &scratch, &sort, &SortOptions::default())?;
    // Where each counted item's output starts: an exclusive prefix sum.
    let scan = ScanBuffers {
        input: &count_buffer,
        output: &offsets,
        len: counts.len(),
    };
    let (kind, op) = (ScanKind::Exclusive, ReduceOp::Sum);
    gpu.encode_scan::<u32>(
        &mut encoder,
        &scratch,
        &scan,
        kind,
        op,
        &ScanOptions::default(),
    )?;

    // One readback of all three results.
    let sections = [
        (&merged, a.len() + b.len()),
        (&keys, unsorted.len()),
        (&offsets, counts.len()),
    ];
    let total: usize = sections.iter().map(|(_, len)| len).sum();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: total as u64 * 4,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut at = 0;
    for (buffer, len) in sections {
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, at * 4, len as u64 * 4);
        at += len as u64;
    }
    queue.submit([encoder.finish()]);
    staging.map_async(wgpu::MapMode::Read, .., |result| result.expect("mapped"));
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&staging.get_mapped_range(..)?);

    let (got_merged, rest) = words.split_at(a.len() + b.len());
    let (got_sorted, got_offsets) = rest.split_at(unsorted.len());
    let mut want_sorted = unsorted.clone();
    want_sorted.sort_unstable();
    let checks = [
        ("merge", got_merged == cpu::merge(&a, &b)),
        ("sort", got_sorted == want_sorted),
        ("scan", got_offsets == cpu::scan(&counts, kind, op)),
    ];
    for (what, ok) in checks {
        println!("{what}: {}", if ok { "ok" } else { "WRONG" });
    }
    if checks.iter().any(|(_, ok)| !ok) {
        return Err("a result differed from the CPU reference".into());
    }
    Ok(())
}
