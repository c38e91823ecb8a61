//! Every key type, both orders, keys and pairs with 4- and 8-byte values, on every algorithm;
//! and merges longer than one piece.

mod common;

use common::*;
use rand::Rng;
use wgmerge::{cpu, Algorithm, MergeOptions, Order};

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

#[test]
fn u32_keys() {
    every_shape_and_order::<u32>();
}

#[test]
fn i32_keys() {
    every_shape_and_order::<i32>();
}

#[test]
fn f32_keys() {
    every_shape_and_order::<f32>();
}

#[test]
fn u64_keys() {
    every_shape_and_order::<u64>();
}

#[test]
fn i64_keys() {
    every_shape_and_order::<i64>();
}

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
    let gpu = gpu_with_limits(|l| wgpu::Limits {
        max_storage_buffer_binding_size: 4096,
        ..l
    });
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
