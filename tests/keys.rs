//! Every key type, both orders, keys and pairs with 4- and 8-byte values, on every algorithm;
//! and merges longer than one piece, from host memory and GPU-resident.

mod common;

use common::*;
use rand::Rng;
use wgmerge::{cpu, Algorithm, Error, Gpu, MergeBuffers, MergeOptions, Order, ValueBuffers};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Sizes that are multiples of nothing, with each side empty and one side much longer.
const SIZES: [(usize, usize); 6] = [(0, 0), (0, 9), (9, 0), (1000, 3), (2500, 2601), (7, 20_011)];

fn every_shape_and_order<K: TestKey>() {
    let mut rng = rng(&format!("every_shape_and_order::<{}>", K::TYPE.name()));
    for algorithm in Algorithm::ALL {
        for order in ORDERS {
            let options = MergeOptions {
                algorithm,
                order,
                ..Default::default()
            };
            // Small tiles too, so short inputs take many steps and wrap the rings.
            let small = MergeOptions {
                workgroup_size: Some(4),
                items_per_thread: Some(3),
                tiles_per_workgroup: Some(2),
                ..options.clone()
            };
            for shape in Shape::ALL {
                for (m, n) in SIZES {
                    let (a, b) = shape.keys::<K>(&mut rng, m, n, order);
                    let context = format!(
                        "{} {algorithm:?} {order:?} {shape:?} m={m} n={n}",
                        K::TYPE.name()
                    );
                    check_merge(&a, &b, &options, &context);
                    check_stable_pairs_on::<K, u32>(gpu(), &a, &b, &options, &context);
                    check_stable_pairs_on::<K, u64>(gpu(), &a, &b, &small, &context);
                }
            }
        }
    }
}

every_key_type!(every_shape_and_order);

#[test]
fn floats_merge_in_total_order() {
    let a = [-f32::NAN, f32::NEG_INFINITY, -0.0, 1.0, f32::NAN];
    let b = [f32::NEG_INFINITY, 0.0, 0.0, f32::INFINITY];
    let got = gpu().merge(&a, &b).unwrap();
    let bits: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
    let want: Vec<u32> = [
        -f32::NAN,
        f32::NEG_INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        0.0,
        1.0,
        f32::INFINITY,
        f32::NAN,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    assert_eq!(bits, want);
}

#[test]
fn signed_and_wide_extremes() {
    let got = gpu()
        .merge(
            &[i64::MIN, -1, 0, i64::MAX],
            &[i64::MIN, -(1 << 32), 1 << 32],
        )
        .unwrap();
    assert_eq!(
        got,
        [i64::MIN, i64::MIN, -(1 << 32), -1, 0, 1 << 32, i64::MAX]
    );
    let options = MergeOptions {
        order: Order::Descending,
        ..Default::default()
    };
    let got = gpu()
        .merge_with(&[u64::MAX, 1 << 32, 5], &[u32::MAX.into(), 0], &options)
        .unwrap();
    assert_eq!(got, [u64::MAX, 1 << 32, u32::MAX.into(), 5, 0]);
    let got = gpu()
        .merge_with(&[i32::MAX, 0, i32::MIN], &[-1, i32::MIN], &options)
        .unwrap();
    assert_eq!(got, [i32::MAX, 0, -1, i32::MIN, i32::MIN]);
}

#[test]
fn merges_longer_than_a_binding_go_in_pieces() {
    let mut rng = rng("merges_longer_than_a_binding_go_in_pieces");
    // 4 KiB bindings: 1024 u32 keys, 512 u64 keys per piece.
    let gpu = gpu_with_binding_limit(4096);
    for algorithm in Algorithm::ALL {
        for order in ORDERS {
            let options = MergeOptions {
                algorithm,
                order,
                ..Default::default()
            };
            for shape in Shape::ALL {
                let (m, n) = (rng.random_range(0..20_000), rng.random_range(0..20_000));
                let context = format!("pieces {algorithm:?} {order:?} {shape:?} m={m} n={n}");
                let (a, b) = shape.keys::<u32>(&mut rng, m, n, order);
                check_merge_on(&gpu, &a, &b, &options, &context);
                check_stable_pairs_on::<u32, u64>(&gpu, &a, &b, &options, &context);
                let (a, b) = shape.keys::<i64>(&mut rng, n, m, order);
                check_stable_pairs_on::<i64, u32>(&gpu, &a, &b, &options, &context);
            }
        }
    }
}

/// A buffer of `gpu` holding `data`, with the usages merge_resident's pieces need.
fn resident_buffer<T: bytemuck::Pod>(gpu: &Gpu, data: &[T]) -> wgpu::Buffer {
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    resident_buffer_with(gpu, data, usage)
}

fn resident_buffer_with<T: bytemuck::Pod>(
    gpu: &Gpu,
    data: &[T],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let bytes: &[u8] = bytemuck::cast_slice(data);
    let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test resident"),
        size: (bytes.len() as u64).max(8),
        usage,
        mapped_at_creation: false,
    });
    if !bytes.is_empty() {
        gpu.queue().write_buffer(&buffer, 0, bytes);
    }
    buffer
}

/// Merges resident pairs with provenance values on `gpu` and compares keys and values with the
/// reference (whose values prove stability and that nothing was lost or duplicated).
fn check_resident<K: TestKey, V: Provenance>(
    gpu: &Gpu,
    a: &[K],
    b: &[K],
    options: &MergeOptions,
    context: &str,
) {
    let (a_values, b_values) = provenances::<V>(a.len(), b.len());
    let total = a.len() + b.len();
    let (a_keys, b_keys) = (resident_buffer(gpu, a), resident_buffer(gpu, b));
    let (a_vals, b_vals) = (
        resident_buffer(gpu, &a_values),
        resident_buffer(gpu, &b_values),
    );
    // One element more than the merge, which must stay as it was.
    let out = resident_buffer(gpu, &vec![K::zeroed(); total + 1]);
    let out_values = resident_buffer(gpu, &vec![V::zeroed(); total + 1]);
    let buffers = MergeBuffers {
        a: &a_keys,
        a_len: a.len(),
        b: &b_keys,
        b_len: b.len(),
        out: &out,
        values: Some(ValueBuffers {
            a: &a_vals,
            b: &b_vals,
            out: &out_values,
            value_size: std::mem::size_of::<V>() as u32,
        }),
    };
    gpu.merge_resident::<K>(&buffers, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let (want_keys, want_values) =
        cpu::merge_pairs_ordered(a, &a_values, b, &b_values, options.order);
    let keys: Vec<K> = read_buffer_on(gpu, &out, total + 1);
    let values: Vec<V> = read_buffer_on(gpu, &out_values, total + 1);
    assert_same_keys(&keys[..total], &want_keys, context);
    assert_same(&values[..total], &want_values, context);
    assert_eq!(
        keys[total].bits(),
        K::zeroed().bits(),
        "{context}: past the end"
    );
    assert_eq!(values[total], V::zeroed(), "{context}: value past the end");

    // Keys only, into a fresh output.
    let out = resident_buffer(gpu, &vec![K::zeroed(); total]);
    let keys_only = MergeBuffers {
        out: &out,
        values: None,
        ..buffers
    };
    gpu.merge_resident::<K>(&keys_only, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let keys: Vec<K> = read_buffer_on(gpu, &out, total);
    assert_same_keys(&keys, &want_keys, context);
}

#[test]
fn resident_merges_longer_than_a_binding_go_in_pieces() {
    let mut rng = rng("resident_merges_longer_than_a_binding_go_in_pieces");
    // 4 KiB bindings: 1024 u32 keys, 512 u64 keys or keys with 8-byte values per piece.
    let gpu = gpu_with_binding_limit(4096);
    for algorithm in [Algorithm::MergePath, Algorithm::Basic] {
        for order in ORDERS {
            let options = MergeOptions {
                algorithm,
                order,
                ..Default::default()
            };
            for shape in Shape::ALL {
                let (m, n) = (rng.random_range(0..6_000), rng.random_range(0..6_000));
                let context = format!("resident {algorithm:?} {order:?} {shape:?} m={m} n={n}");
                let (a, b) = shape.keys::<u32>(&mut rng, m, n, order);
                check_resident::<u32, u64>(&gpu, &a, &b, &options, &context);
                let (a, b) = shape.keys::<f32>(&mut rng, n, m, order);
                check_resident::<f32, u32>(&gpu, &a, &b, &options, &context);
                let (a, b) = shape.keys::<i64>(&mut rng, m, n / 3, order);
                check_resident::<i64, u32>(&gpu, &a, &b, &options, &context);
            }
        }
    }
    // Sizes at and around one piece, and either side empty.
    let options = MergeOptions::default();
    for (m, n) in [
        (0, 0),
        (0, 5000),
        (5000, 0),
        (1024, 0),
        (1000, 24),
        (1000, 25),
        (513, 512),
    ] {
        let (a, b) = Shape::Uniform.keys::<u32>(&mut rng, m, n, Order::Ascending);
        check_resident::<u32, u32>(&gpu, &a, &b, &options, &format!("resident m={m} n={n}"));
    }
}

#[test]
fn resident_pieces_follow_max_piece_len_and_need_copy_usages() {
    let mut rng = rng("resident_pieces_follow_max_piece_len");
    let gpu = gpu();
    let (a, b) = Shape::HeavyDuplicates.keys::<u32>(&mut rng, 30_000, 20_001, Order::Ascending);
    let options = MergeOptions {
        max_piece_len: Some(7_000),
        ..Default::default()
    };
    check_resident::<u32, u32>(gpu, &a, &b, &options, "max_piece_len 7000");
    // Pieces copy from the inputs: without COPY_SRC that is an error, not a wrong answer.
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
    let a_keys = resident_buffer_with(gpu, &a, usage);
    let b_keys = resident_buffer(gpu, &b);
    let out = resident_buffer(gpu, &vec![0u32; a.len() + b.len()]);
    let buffers = MergeBuffers {
        a: &a_keys,
        a_len: a.len(),
        b: &b_keys,
        b_len: b.len(),
        out: &out,
        values: None,
    };
    let result = gpu.merge_resident::<u32>(&buffers, &options);
    assert!(
        matches!(result, Err(Error::MissingUsage { buffer: "a", .. })),
        "{result:?}"
    );
    // One piece needs no copies.
    gpu.merge_resident::<u32>(&buffers, &MergeOptions::default())
        .unwrap();
    assert_same(
        &read_buffer_on::<u32>(gpu, &out, a.len() + b.len()),
        &cpu::merge(&a, &b),
        "one piece",
    );
}

#[test]
fn pieces_report_progress() {
    let mut rng = rng("pieces_report_progress");
    let (a, b) = Shape::Uniform.keys::<f32>(&mut rng, 100_000, 55_555, Order::Ascending);
    let options = MergeOptions {
        max_piece_len: Some(10_000),
        ..Default::default()
    };
    let mut reports = Vec::new();
    let got = gpu()
        .merge_with_progress(&a, &b, &options, |done, total| reports.push((done, total)))
        .unwrap();
    assert_same_keys(&got, &cpu::merge(&a, &b), "progress");
    let want: Vec<(usize, usize)> = (1..=16)
        .map(|piece| ((piece * 10_000).min(155_555), 155_555))
        .collect();
    assert_eq!(reports, want);

    let values: Vec<u64> = (0..a.len() as u64).collect();
    let mut pieces = 0;
    let (keys, _) = gpu()
        .merge_pairs_with_progress(&a, &values, &b, &values[..b.len()], &options, |_, _| {
            pieces += 1
        })
        .unwrap();
    assert_eq!((keys.len(), pieces), (155_555, 16));
}

#[test]
fn unsorted_input_in_pieces_is_not_an_error() {
    // The cuts are clamped so that pieces still cover each input exactly once.
    let mut rng = rng("unsorted_input_in_pieces");
    for _ in 0..10 {
        let a: Vec<u32> = (0..rng.random_range(0..5000))
            .map(|_| rng.random())
            .collect();
        let b: Vec<u32> = (0..rng.random_range(0..5000))
            .map(|_| rng.random_range(0..16))
            .collect();
        let options = MergeOptions {
            max_piece_len: Some(rng.random_range(1..2000)),
            ..Default::default()
        };
        let got = gpu().merge_with(&a, &b, &options).unwrap();
        assert_eq!(got.len(), a.len() + b.len());
    }
}
