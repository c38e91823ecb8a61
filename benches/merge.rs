//! criterion benches: each merge algorithm at a few sizes, so that regressions between commits
//! show on a fixed machine. `cargo bench` on the default adapter (set WGPU_BACKEND to choose).
//!
//! "resident" (keys) and "resident_pairs" (keys with u32 values) time one merge of GPU-resident
//! buffers, submitted and waited for, so they include submission latency; "end_to_end" adds
//! upload and readback.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use wgmerge::{Algorithm, Gpu, MergeBuffers, MergeOptions, ValueBuffers};

fn sorted(rng: &mut impl Rng, len: usize) -> Vec<u32> {
    let mut v: Vec<u32> = (0..len).map(|_| rng.random()).collect();
    v.sort_unstable();
    v
}

fn merge(c: &mut Criterion) {
    let gpu = Gpu::new().expect("a GPU adapter (or Mesa's lavapipe)");
    let device = gpu.device();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut group = c.benchmark_group("merge_u32");
    group.sample_size(10);
    for log2 in [16u32, 20] {
        let total = 1usize << log2;
        let (a, b) = (sorted(&mut rng, total / 2), sorted(&mut rng, total / 2));
        group.throughput(Throughput::Elements(total as u64));
        let upload = |data: &[u32]| {
            use wgpu::util::DeviceExt;
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(data),
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        let (a_buffer, b_buffer, out) = (upload(&a), upload(&b), upload(&vec![0; total]));
        let (a_values, b_values) = ((0..a.len() as u32).collect::<Vec<_>>(), vec![7; b.len()]);
        let (a_value_buffer, b_value_buffer, out_values) = (
            upload(&a_values),
            upload(&b_values),
            upload(&vec![0; total]),
        );
        let scratch = gpu.create_scratch();
        for algorithm in Algorithm::ALL {
            let options = MergeOptions {
                algorithm,
                ..Default::default()
            };
            let buffers = MergeBuffers {
                a: &a_buffer,
                a_len: a.len(),
                b: &b_buffer,
                b_len: b.len(),
                out: &out,
                values: None,
            };
            group.bench_function(
                BenchmarkId::new(format!("resident/{algorithm:?}"), total),
                |bench| {
                    bench.iter(|| {
                        let mut encoder = device.create_command_encoder(&Default::default());
                        gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &options)
                            .unwrap();
                        gpu.queue().submit([encoder.finish()]);
                        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
                    })
                },
            );
            group.bench_function(
                BenchmarkId::new(format!("end_to_end/{algorithm:?}"), total),
                |bench| bench.iter(|| gpu.merge_with(&a, &b, &options).unwrap()),
            );
            let pairs = MergeBuffers {
                values: Some(ValueBuffers {
                    a: &a_value_buffer,
                    b: &b_value_buffer,
                    out: &out_values,
                    value_size: 4,
                }),
                ..buffers
            };
            group.bench_function(
                BenchmarkId::new(format!("resident_pairs/{algorithm:?}"), total),
                |bench| {
                    bench.iter(|| {
                        let mut encoder = device.create_command_encoder(&Default::default());
                        gpu.encode_merge::<u32>(&mut encoder, &scratch, &pairs, &options)
                            .unwrap();
                        gpu.queue().submit([encoder.finish()]);
                        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, merge);
criterion_main!(benches);
