//! Soak: thousands of operations of random sizes, kinds and options on one `Gpu`, every slice-form
//! result checked, while wgpu's live object counts and the process's memory must stay flat with
//! the buffer pool in use, and the pool within its bounds.

mod common;

use common::*;
use rand::seq::SliceRandom;
use rand::Rng;
use wgmerge::{
    cpu, Algorithm, Gpu, MergeBuffers, MergeOptions, Order, SetOperation, SetOptions, SortOptions,
};

/// Resident set size in bytes (Linux), or 0 where it cannot be read.
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// wgpu-hal's live buffers, bind groups, compute pipelines and bytes of buffer memory (the
/// `counters` feature, enabled for tests).
fn live_objects(gpu: &Gpu) -> [isize; 4] {
    let hal = gpu.device().get_internal_counters().hal;
    [
        hal.buffers.read(),
        hal.bind_groups.read(),
        hal.compute_pipelines.read(),
        hal.buffer_memory.read(),
    ]
}

#[test]
fn thousands_of_operations_leak_nothing() {
    let mut rng = rng("soak");
    let gpu = gpu();
    let mut most_buffers_seen = 0;

    let operations = 3000;
    let mut baseline = None;
    for op in 0..operations {
        if op == 500 {
            // Every pipeline the loop uses exists by now; caches are warm. The pool is emptied
            // for the count: it may keep up to 48 idle buffers of each kind, so what it holds
            // varies from run to run; leaks are what is alive with the pool empty.
            gpu.release_buffers();
            baseline = Some((live_objects(gpu), resident_bytes()));
        }
        let order = if rng.random() {
            Order::Ascending
        } else {
            Order::Descending
        };
        let options = MergeOptions {
            algorithm: Algorithm::ALL[rng.random_range(0..4)],
            order,
            max_piece_len: rng.random_bool(0.2).then(|| rng.random_range(1..5000)),
            validate: rng.random_bool(0.2),
            ..Default::default()
        };
        let (m, n) = (rng.random_range(0..6000), rng.random_range(0..6000));
        let shape = Shape::ALL[rng.random_range(0..Shape::ALL.len())];
        let context = format!("soak op {op}: {options:?} {shape:?} m={m} n={n}");
        match op % 7 {
            0 => {
                let (a, b) = shape.keys::<u32>(&mut rng, m, n, order);
                check_merge_on(gpu, &a, &b, &options, &context);
            }
            1 => {
                let (a, b) = shape.keys::<f32>(&mut rng, m, n, order);
                check_stable_pairs_on::<f32, u32>(gpu, &a, &b, &options, &context);
            }
            2 => {
                let (a, b) = shape.keys::<i64>(&mut rng, m, n, order);
                check_stable_pairs_on::<i64, u64>(gpu, &a, &b, &options, &context);
            }
            3 => {
                // Merge sort of the two inputs one after the other, shuffled, with each key's
                // index as its value.
                let (a, b) = shape.keys::<u32>(&mut rng, m, n, order);
                let mut keys: Vec<u32> = a.into_iter().chain(b).collect();
                keys.shuffle(&mut rng);
                let values: Vec<u32> = (0..keys.len() as u32).collect();
                let options = SortOptions {
                    order,
                    ..Default::default()
                };
                let got = gpu
                    .sort_pairs_with(&keys, &values, &options)
                    .unwrap_or_else(|e| panic!("{context}: {e}"));
                let want = cpu::sort_pairs_ordered(&keys, &values, order);
                assert!(got == want, "{context}: sort differs from the CPU's");
            }
            4 => {
                // A set operation on pairs whose values are their provenance.
                let operation = SetOperation::ALL[rng.random_range(0..4)];
                let (a, b) = shape.keys::<u32>(&mut rng, m, n, order);
                let a_values: Vec<u32> = (0..m).map(|i| provenance(false, i)).collect();
                let b_values: Vec<u32> = (0..n).map(|i| provenance(true, i)).collect();
                let options = SetOptions {
                    order,
                    ..Default::default()
                };
                let got = gpu
                    .set_operation_pairs_with(operation, &a, &a_values, &b, &b_values, &options)
                    .unwrap_or_else(|e| panic!("{context}: {e}"));
                let want = cpu::set_operation_pairs_ordered(
                    operation, &a, &a_values, &b, &b_values, order,
                );
                assert!(
                    got == want,
                    "{context}: {operation:?} differs from the CPU's"
                );
            }
            5 => {
                // A scan or reduction, with pieces now and then.
                let xs: Vec<u32> = (0..m).map(|_| rng.random_range(0..1000)).collect();
                let options = wgmerge::ScanOptions {
                    max_piece_len: rng.random_bool(0.2).then(|| rng.random_range(64..5000)),
                    ..Default::default()
                };
                let op = [wgmerge::ReduceOp::Sum, wgmerge::ReduceOp::Min][op % 2];
                let kind = if rng.random() {
                    wgmerge::ScanKind::Inclusive
                } else {
                    wgmerge::ScanKind::Exclusive
                };
                let got = gpu
                    .scan_with(&xs, kind, op, &options)
                    .unwrap_or_else(|e| panic!("{context}: {e}"));
                assert!(got == cpu::scan(&xs, kind, op), "{context}: scan differs");
                let reduced = gpu
                    .reduce_with(&xs, op, &options)
                    .unwrap_or_else(|e| panic!("{context}: {e}"));
                assert_eq!(reduced, cpu::reduce(&xs, op), "{context}: reduce");
            }
            _ => {
                // The resident forms, with buffers created and dropped here: they exercise
                // allocation and release (merge_resident's piece buffers too, with pieces);
                // their results are checked in tests/merge.rs and tests/keys.rs.
                let (a, b) = shape.keys::<u32>(&mut rng, m, n, order);
                let options = MergeOptions {
                    validate: false,
                    ..options
                };
                let buffer = |data: &[u32], extra: usize| {
                    use wgpu::util::DeviceExt;
                    let mut contents = data.to_vec();
                    contents.resize(data.len() + extra + 1, 0);
                    gpu.device()
                        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                            label: None,
                            contents: bytemuck::cast_slice(&contents),
                            usage: wgpu::BufferUsages::STORAGE
                                | wgpu::BufferUsages::COPY_SRC
                                | wgpu::BufferUsages::COPY_DST,
                        })
                };
                let (a_buffer, b_buffer, out) = (buffer(&a, 0), buffer(&b, 0), buffer(&[], m + n));
                let scratch = gpu.create_scratch();
                let mut encoder = gpu.device().create_command_encoder(&Default::default());
                let buffers = MergeBuffers {
                    a: &a_buffer,
                    a_len: m,
                    b: &b_buffer,
                    b_len: n,
                    out: &out,
                    values: None,
                };
                // Not with the tiniest pieces: each cut is a search that reads keys back.
                if options.max_piece_len.is_some_and(|len| len >= 1000) {
                    gpu.merge_resident::<u32>(&buffers, &options)
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                } else {
                    gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &options)
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                }
                gpu.queue().submit([encoder.finish()]);
                most_buffers_seen = most_buffers_seen.max(live_objects(gpu)[0]);
                gpu.device()
                    .poll(wgpu::PollType::wait_indefinitely())
                    .unwrap();
            }
        }
    }
    gpu.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    // The pool kept buffers for reuse, within its limit; releasing it frees them.
    let (device_bytes, staging_bytes) = gpu.pooled_bytes();
    println!(
        "soak: the pool keeps {device_bytes} bytes of GPU buffers, {staging_bytes} of staging"
    );
    assert!(device_bytes > 0 && device_bytes <= gpu.pool_limit());
    assert!(staging_bytes <= gpu.pool_limit());
    let live = live_objects(gpu)[0];
    gpu.release_buffers();
    assert_eq!(gpu.pooled_bytes(), (0, 0));
    assert!(
        live_objects(gpu)[0] < live,
        "releasing the pool freed no buffer"
    );

    let (objects_before, bytes_before) = baseline.expect("baseline taken");
    let (objects_after, bytes_after) = (live_objects(gpu), resident_bytes());
    println!(
        "soak: {operations} operations; with the pool empty, live buffers, bind groups, pipelines, buffer bytes {objects_before:?} -> {objects_after:?}; resident {} -> {} MiB",
        bytes_before >> 20,
        bytes_after >> 20
    );
    // The counters count: buffers were seen alive during the loop.
    assert!(most_buffers_seen > 0, "wgpu's counters are not enabled");
    for (before, after) in objects_before[..3].iter().zip(&objects_after) {
        assert!(
            *after <= before + 16,
            "wgpu objects grew: {objects_before:?} -> {objects_after:?}"
        );
    }
    assert!(
        objects_after[3] <= objects_before[3] + (16 << 20),
        "GPU buffer memory grew: {objects_before:?} -> {objects_after:?}"
    );
    assert!(
        bytes_after <= bytes_before + (64 << 20),
        "resident memory grew from {bytes_before} to {bytes_after} bytes"
    );
}
