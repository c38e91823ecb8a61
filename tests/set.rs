//! Set operations on the GPU against the CPU reference: every operation, key type and order,
//! keys and pairs with provenance values (which copies are kept, not only how many), on inputs
//! of every test shape and sizes that are multiples of no tile.

mod common;

use common::*;
use rand::Rng;
use wgmerge::{cpu, Error, KeyType, Order, SetOperation, SetOptions, Side};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Size pairs: empty, one side empty, tiny, around a tile (1400 to 3833 elements), unbalanced.
const SIZES: [(usize, usize); 8] = [
    (0, 0),
    (0, 5),
    (7, 0),
    (1, 1),
    (1000, 1000),
    (1025, 2047),
    (5000, 3),
    (3, 4099),
];

/// Runs `operation` on keys, and on pairs whose values record each element's input and index,
/// and compares both with the CPU reference: equal values prove the right copies were kept,
/// each once, in stable order.
fn check_set<K: TestKey, V: Provenance>(
    operation: SetOperation,
    a: &[K],
    b: &[K],
    options: &SetOptions,
    context: &str,
) {
    let gpu = gpu();
    let context = format!("{} {context}", operation.name());
    let got = gpu
        .set_operation_with(operation, a, b, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let want = cpu::set_operation_ordered(operation, a, b, options.order);
    assert_same_keys(&got, &want, &context);

    let a_values: Vec<V> = (0..a.len()).map(|i| V::new(false, i)).collect();
    let b_values: Vec<V> = (0..b.len()).map(|i| V::new(true, i)).collect();
    let (got_keys, got_values) = gpu
        .set_operation_pairs_with(operation, a, &a_values, b, &b_values, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let (want_keys, want_values) =
        cpu::set_operation_pairs_ordered(operation, a, &a_values, b, &b_values, options.order);
    assert_same_keys(&got_keys, &want_keys, &context);
    assert_same(&got_values, &want_values, &context);
}

fn every_operation_shape_and_order<K: TestKey>() {
    let mut rng = rng(&format!("set::<{}>", K::TYPE.name()));
    for order in ORDERS {
        let options = SetOptions {
            order,
            ..Default::default()
        };
        for shape in Shape::ALL {
            for (m, n) in SIZES {
                let (a, b) = shape.keys::<K>(&mut rng, m, n, order);
                for operation in SetOperation::ALL {
                    let context = format!("{} {order:?} {shape:?} {m}+{n}", K::TYPE.name());
                    if m + n <= 2100 {
                        check_set::<K, u64>(operation, &a, &b, &options, &context);
                    } else {
                        check_set::<K, u32>(operation, &a, &b, &options, &context);
                    }
                }
            }
        }
    }
}

every_key_type!(every_operation_shape_and_order);

/// Sizes that are not multiples of the tile and give tens of tiles, with runs of equal keys
/// straddling tile boundaries; and a large input with duplicates spanning many tiles.
#[test]
fn many_tiles_and_runs_across_them() {
    let mut rng = rng("set::many_tiles_and_runs_across_them");
    for (m, n) in [(9_001, 6_502), (767, 769), (1, 20_000), (20_000, 1)] {
        for shape in [Shape::Uniform, Shape::HeavyDuplicates, Shape::AllEqual] {
            let (a, b) = shape.keys::<u32>(&mut rng, m, n, Order::Ascending);
            // 64-bit keys take tiles of their own (tuning::set_tiling).
            let (wide_a, wide_b) = shape.keys::<u64>(&mut rng, m, n, Order::Ascending);
            for operation in SetOperation::ALL {
                let context = format!("{m}+{n} {shape:?}");
                check_set::<u32, u32>(operation, &a, &b, &SetOptions::default(), &context);
                let context = format!("{m}+{n} {shape:?} u64");
                check_set::<u64, u32>(
                    operation,
                    &wide_a,
                    &wide_b,
                    &SetOptions::default(),
                    &context,
                );
            }
        }
    }
    // Runs of a few hundred equal keys over 300,000 elements.
    let (a, b) = (
        sorted(&mut rng, 300_000, 0..=999),
        sorted(&mut rng, 200_000, 500..=1999),
    );
    for operation in SetOperation::ALL {
        check_set::<u32, u32>(operation, &a, &b, &SetOptions::default(), "large");
    }
    // Runs of unequal lengths in A and B (A's r-th copy of a key matches B's r-th):
    // about 30 copies of each key against 3, and runs from 0 to 400 copies, key by key.
    for (m, n) in [(30_000, 3_000), (3_000, 30_000)] {
        let (a, b) = (sorted(&mut rng, m, 0..=999), sorted(&mut rng, n, 0..=999));
        for operation in SetOperation::ALL {
            let context = format!("{m}+{n} unequal runs");
            check_set::<u32, u32>(operation, &a, &b, &SetOptions::default(), &context);
        }
    }
    let runs = |rng: &mut rand::rngs::StdRng| -> Vec<u32> {
        (0..200u32)
            .flat_map(|key| std::iter::repeat_n(key, rng.random_range(0..400)))
            .collect()
    };
    let (a, b) = (runs(&mut rng), runs(&mut rng));
    for operation in SetOperation::ALL {
        let context = format!("{}+{} runs of 0 to 400", a.len(), b.len());
        check_set::<u32, u32>(operation, &a, &b, &SetOptions::default(), &context);
    }
}

#[test]
fn bad_input_is_an_error() {
    let gpu = gpu();
    let union = SetOperation::Union;
    assert!(matches!(
        gpu.set_operation_pairs(union, &[1u32, 3], &[1u32], &[2], &[2]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        gpu.set_operation_pairs(union, &[1u32], &[1u16], &[2], &[2]),
        Err(Error::InvalidOptions(_))
    ));
    // Beyond what one binding holds, on a device with 4 KiB bindings.
    let small = gpu_with_binding_limit(4096);
    let max = small.max_set_len(KeyType::U32, 0);
    assert_eq!(max, 1024, "one binding of 4 KiB");
    let half = vec![1u32; max / 2];
    let rest = vec![1u32; max - max / 2];
    assert_eq!(
        small.set_operation(union, &half, &rest).unwrap().len(),
        rest.len()
    );
    // Beyond one binding the slice forms go in pieces, cut between runs of equal keys; a run
    // longer than a binding goes in pieces of its own.
    let longer = [rest.clone(), vec![2]].concat();
    assert_same(
        &small.set_operation(union, &half, &longer).unwrap(),
        &cpu::set_operation(union, &half, &longer),
        "in pieces",
    );
    let whole_run = [rest.clone(), vec![1]].concat();
    assert_same(
        &small.set_operation(union, &half, &whole_run).unwrap(),
        &cpu::set_operation(union, &half, &whole_run),
        "a run longer than a binding",
    );
}

/// Unsorted input: an unspecified result, but no more keys than went in, only keys that went in,
/// and no panic or hang.
#[test]
fn unsorted_input_is_not_an_error() {
    let mut rng = rng("set::unsorted_input_is_not_an_error");
    for len in [1, 17, 1000, 5003] {
        let a: Vec<u32> = (0..len).map(|_| rng.random_range(0..50)).collect();
        let b: Vec<u32> = (0..len / 2 + 1).map(|_| rng.random_range(0..50)).collect();
        for operation in SetOperation::ALL {
            let got = gpu()
                .set_operation(operation, &a, &b)
                .unwrap_or_else(|e| panic!("{len}: {e}"));
            assert!(got.len() <= a.len() + b.len());
        }
    }
}

/// `validate` reports the first key out of order in A or B, in either order, and lets sorted
/// input through.
#[test]
fn validate_reports_the_first_unsorted_key() {
    let mut rng = rng("set::validate_reports_the_first_unsorted_key");
    for order in ORDERS {
        for (m, n, piece) in [
            (1000, 1000, None),
            (3, 5000, None),
            (2, 2, None),
            (1000, 1000, Some(700)),
        ] {
            let options = SetOptions {
                order,
                validate: true,
                max_piece_len: piece,
            };
            // Keys 10..=17, so that one less is still a key before them.
            let (a, b) = Shape::HeavyDuplicates.keys::<u32>(&mut rng, m, n, order);
            let lift = |keys: Vec<u32>| keys.into_iter().map(|k| k + 10).collect::<Vec<_>>();
            let (a, b) = (lift(a), lift(b));
            let union = SetOperation::Union;
            let got = gpu().set_operation_with(union, &a, &b, &options).unwrap();
            assert_same(
                &got,
                &cpu::set_operation_ordered(union, &a, &b, order),
                "sorted",
            );
            for side in [Side::A, Side::B] {
                let (mut a, mut b) = (a.clone(), b.clone());
                let keys = if side == Side::A { &mut a } else { &mut b };
                // Break the order at a random index: its key goes before the previous one.
                let index = rng.random_range(1..keys.len());
                keys[index] = match order {
                    Order::Ascending => keys[index - 1] - 1,
                    Order::Descending => keys[index - 1] + 1,
                };
                let expected = cpu::first_unsorted(keys, order).unwrap();
                for operation in SetOperation::ALL {
                    match gpu().set_operation_with(operation, &a, &b, &options) {
                        Err(Error::Unsorted {
                            side: s, index: i, ..
                        }) => {
                            assert_eq!((s, i), (side, expected), "{operation:?} {order:?}")
                        }
                        other => {
                            panic!("{operation:?} {order:?}: expected Unsorted, got {other:?}")
                        }
                    }
                }
            }
        }
    }
}

/// The encoder form: every operation on GPU buffers, with values, the count left in the
/// caller's buffer, one scratch for them all (each call must start from fresh look-back state,
/// not the last call's); and what it refuses.
#[test]
fn resident_set_operations_leave_the_count_on_the_gpu() {
    use wgmerge::{SetBuffers, ValueBuffers};
    let gpu = gpu();
    let mut rng = rng("set::resident");
    let count_buffer = || {
        gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("count"),
            size: 4,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let shared = gpu.create_scratch();
    for operation in SetOperation::ALL {
        for (m, n) in [(0usize, 0usize), (0, 7), (3000, 2000), (20_000, 1)] {
            let (a, b) = Shape::HeavyDuplicates.keys::<u32>(&mut rng, m, n, Order::Ascending);
            let a_values: Vec<u32> = (0..m as u32).collect();
            let b_values: Vec<u32> = (0..n as u32).map(|i| i + 1_000_000).collect();
            let out_room = vec![0u32; m + n];
            let [ab, bb, out, av, bv, vout] =
                [&a, &b, &out_room, &a_values, &b_values, &out_room].map(|d| storage_buffer(d));
            let count = count_buffer();
            let buffers = SetBuffers {
                a: &ab,
                a_len: m,
                b: &bb,
                b_len: n,
                out: &out,
                count: &count,
                values: Some(ValueBuffers {
                    a: &av,
                    b: &bv,
                    out: &vout,
                    value_size: 4,
                }),
            };
            let mut encoder = gpu.device().create_command_encoder(&Default::default());
            gpu.encode_set_operation::<u32>(
                &mut encoder,
                &shared,
                operation,
                &buffers,
                &Default::default(),
            )
            .unwrap();
            gpu.queue().submit([encoder.finish()]);
            let (want_keys, want_values) = cpu::set_operation_pairs_ordered(
                operation,
                &a,
                &a_values,
                &b,
                &b_values,
                Order::Ascending,
            );
            let context = format!("{operation:?} {m}/{n}");
            let want = (&want_keys[..], &want_values[..]);
            assert_kept(&count, (&out, &vout), want, &context);
        }
    }
    // A count buffer without COPY_DST, and validate, are errors.
    let x = storage_buffer(&[1, 2, 3]);
    let y = storage_buffer(&[2]);
    let out = storage_buffer(&[0; 4]);
    let no_copy = storage_buffer(&[0]);
    let buffers = SetBuffers {
        a: &x,
        a_len: 3,
        b: &y,
        b_len: 1,
        out: &out,
        count: &no_copy,
        values: None,
    };
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let scratch = gpu.create_scratch();
    let result = gpu.encode_set_operation::<u32>(
        &mut encoder,
        &scratch,
        SetOperation::Union,
        &buffers,
        &Default::default(),
    );
    assert!(
        matches!(result, Err(Error::MissingUsage { .. })),
        "{result:?}"
    );
    let validate = SetOptions {
        validate: true,
        ..Default::default()
    };
    let count = count_buffer();
    let result = gpu.encode_set_operation::<u32>(
        &mut encoder,
        &scratch,
        SetOperation::Union,
        &SetBuffers {
            count: &count,
            ..buffers
        },
        &validate,
    );
    assert!(
        matches!(result, Err(Error::InvalidOptions(_))),
        "{result:?}"
    );
}

/// Slice forms in pieces (`max_piece_len`): the cuts fall between runs of equal keys, so runs
/// that straddle a cut by co-rank stay whole and the result is the CPU's; a run longer than a
/// piece goes in pieces that pair its copies by their index in it.
#[test]
fn pieces_cut_between_runs_of_equal_keys() {
    let mut rng = rng("set::pieces_cut_between_runs_of_equal_keys");
    for order in ORDERS {
        let options = SetOptions {
            order,
            max_piece_len: Some(1000),
            ..Default::default()
        };
        for shape in [
            Shape::Uniform,
            Shape::HeavyDuplicates,
            Shape::Interleaved,
            Shape::ABelowB,
            Shape::BBelowA,
        ] {
            for (m, n) in [(3000, 2500), (4099, 3), (1, 1999)] {
                let (a, b) = shape.keys::<u32>(&mut rng, m, n, order);
                for operation in SetOperation::ALL {
                    let context = format!("{order:?} {shape:?} {m}+{n} in pieces of 1000");
                    check_set::<u32, u64>(operation, &a, &b, &options, &context);
                }
            }
        }
        // Runs longer than a piece: one run on both sides, and long runs among short ones with
        // either side's longer, in pieces of 1000 and of 7 (3 copies a side).
        let (a, b) = Shape::AllEqual.keys::<u32>(&mut rng, 700, 700, order);
        let long_runs = |a_run: usize, b_run: usize| {
            let mut a: Vec<u32> = [vec![1; 5], vec![4; a_run], vec![6; 3], vec![9; b_run]].concat();
            let mut b: Vec<u32> = [vec![1; 2], vec![4; b_run], vec![5; 4], vec![9; a_run]].concat();
            if order == Order::Descending {
                a.reverse();
                b.reverse();
            }
            (a, b)
        };
        for (a, b) in [
            (a, b),
            long_runs(2500, 1800),
            long_runs(1001, 0),
            long_runs(13, 29),
        ] {
            for piece in [1000, 7] {
                let options = SetOptions {
                    max_piece_len: Some(piece),
                    ..options.clone()
                };
                for operation in SetOperation::ALL {
                    let (m, n) = (a.len(), b.len());
                    let context = format!("{order:?} long runs {m}+{n} in pieces of {piece}");
                    check_set::<u32, u64>(operation, &a, &b, &options, &context);
                }
            }
        }
    }
    let zero = SetOptions {
        max_piece_len: Some(0),
        ..Default::default()
    };
    let got = gpu().set_operation_with(SetOperation::Union, &[1u32], &[2], &zero);
    assert!(matches!(got, Err(Error::InvalidOptions(_))), "{got:?}");
}
