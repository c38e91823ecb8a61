//! Merge sort on the GPU against the CPU's stable sort: every key type, both orders, keys and
//! pairs with 4- and 8-byte values, on inputs of many shapes, every size to 70 and sizes that are
//! multiples of no tile.

mod common;

use common::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use wgmerge::{cpu, Error, Order, SortAlgorithm, SortBuffers, SortOptions, SortValueBuffers};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Sizes around merge sort's default tile (256 x 11 = 2816 keys) and its powers of two, and
/// around radix sort's tile (2048), so runs of every length meet.
const SIZES: [usize; 10] = [0, 1, 2, 767, 2049, 2815, 2817, 5633, 8449, 20_011];

/// Unsorted inputs of `len` keys built from each merge test shape: shuffled, sorted, reversed,
/// and as two sorted halves one after the other.
fn inputs<K: TestKey>(rng: &mut StdRng, len: usize) -> Vec<(String, Vec<K>)> {
    let mut out = Vec::new();
    for shape in Shape::ALL {
        let (a, b) = shape.keys::<K>(rng, len / 2, len - len / 2, Order::Ascending);
        let halves: Vec<K> = a.iter().chain(&b).copied().collect();
        let mut shuffled = halves.clone();
        shuffled.shuffle(rng);
        let mut sorted = halves.clone();
        cpu::sort_ordered(&mut sorted, Order::Ascending);
        let mut reversed = sorted.clone();
        reversed.reverse();
        out.push((format!("{shape:?} shuffled"), shuffled));
        if !matches!(shape, Shape::AllEqual | Shape::Interleaved) {
            out.push((format!("{shape:?} sorted"), sorted));
            out.push((format!("{shape:?} reversed"), reversed));
            out.push((format!("{shape:?} two sorted halves"), halves));
        }
    }
    out
}

/// Sorts keys, and pairs whose values are each key's input index, and compares both with the
/// CPU's stable sort: equal values prove stability and that nothing was lost or duplicated.
fn check_sort<K: TestKey, V: Provenance>(keys: &[K], options: &SortOptions, context: &str) {
    let got = gpu()
        .sort_with(keys, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let mut want = keys.to_vec();
    cpu::sort_ordered(&mut want, options.order);
    assert_same_keys(&got, &want, context);

    let values: Vec<V> = (0..keys.len()).map(|i| V::new(false, i)).collect();
    let (got_keys, got_values) = gpu()
        .sort_pairs_with(keys, &values, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let (want_keys, want_values) = cpu::sort_pairs_ordered(keys, &values, options.order);
    assert_same_keys(&got_keys, &want_keys, context);
    assert_same(&got_values, &want_values, context);
}

fn every_shape_and_order<K: TestKey>() {
    let mut rng = rng(&format!("sort::<{}>", K::TYPE.name()));
    for order in ORDERS {
        let options = SortOptions {
            order,
            ..Default::default()
        };
        // A tiny tile, so short inputs take many merge passes.
        let small = SortOptions {
            algorithm: SortAlgorithm::Merge,
            workgroup_size: Some(4),
            items_per_thread: Some(3),
            ..options.clone()
        };
        let merge = SortOptions {
            algorithm: SortAlgorithm::Merge,
            ..options.clone()
        };
        for len in SIZES {
            for (shape, keys) in inputs::<K>(&mut rng, len) {
                let context = format!("{} {order:?} {shape} len={len}", K::TYPE.name());
                check_sort::<K, u32>(&keys, &options, &context);
                check_sort::<K, u32>(&keys, &merge, &format!("{context} merge sort"));
                if len <= 769 {
                    check_sort::<K, u64>(&keys, &small, &format!("{context} 4x3"));
                }
            }
        }
    }
}

every_key_type!(every_shape_and_order);

/// Merge sort of every size to 70 (tiles shorter than one invocation's keys), and random sizes to
/// two million, in both orders, with values.
#[test]
fn every_size_to_70_and_random_sizes() {
    let mut rng = rng("sort::sizes");
    for order in ORDERS {
        let options = SortOptions {
            algorithm: SortAlgorithm::Merge,
            order,
            ..Default::default()
        };
        for len in 0..=70 {
            let keys: Vec<u32> = (0..len).map(|_| rng.random_range(0..20)).collect();
            check_sort::<u32, u32>(&keys, &options, &format!("u32 {order:?} len={len}"));
            let keys: Vec<i64> = (0..len).map(|_| rng.random_range(-5..5) << 40).collect();
            check_sort::<i64, u64>(&keys, &options, &format!("i64 {order:?} len={len}"));
        }
        let len = rng.random_range(70..2_000_000);
        let keys: Vec<f32> = (0..len).map(|_| rng.random_range(-1e3..1e3)).collect();
        check_sort::<f32, u32>(&keys, &options, &format!("f32 {order:?} len={len}"));
    }
}

/// Many merge passes over a large input, and shapes whose tile is not a power of two.
#[test]
fn large_and_odd_shapes() {
    let mut rng = rng("sort::large_and_odd_shapes");
    let (a, b) = Shape::Uniform.keys::<u32>(&mut rng, 300_000, 224_289, Order::Ascending);
    let mut keys: Vec<u32> = a.into_iter().chain(b).collect();
    keys.shuffle(&mut rng);
    check_sort::<u32, u32>(&keys, &SortOptions::default(), "large");
    for (workgroup_size, items_per_thread) in [
        (1, 1),
        (64, 1),
        (96, 5),
        (256, 4),
        (256, 6),
        (128, 7),
        (512, 7),
        (256, 15),
    ] {
        let options = SortOptions {
            algorithm: SortAlgorithm::Merge,
            workgroup_size: Some(workgroup_size),
            items_per_thread: Some(items_per_thread),
            ..Default::default()
        };
        let context = format!("{workgroup_size}x{items_per_thread}");
        check_sort::<u32, u32>(&keys[..40_000], &options, &context);
    }
}

/// Slice forms longer than a piece sort each piece and merge the sorted pieces: the same stable
/// sort for keys, pairs and argsort, every key type and order, two to many pieces, pieces that end
/// inside runs of equal keys, and an odd number of runs at some merge level.
fn sorts_in_pieces<K: TestKey>() {
    let mut rng = rng(&format!("sort::pieces::<{}>", K::TYPE.name()));
    for order in ORDERS {
        for (len, piece, algorithm) in [
            (2000, 1000, SortAlgorithm::Radix),
            (5000, 777, SortAlgorithm::Radix),
            (300, 37, SortAlgorithm::Radix),
            (3001, 1000, SortAlgorithm::Merge),
        ] {
            let options = SortOptions {
                algorithm,
                order,
                max_piece_len: Some(piece),
                ..Default::default()
            };
            for (shape, keys) in inputs::<K>(&mut rng, len) {
                if !shape.ends_with("shuffled") && piece != 777 {
                    continue;
                }
                let context = format!(
                    "{} {order:?} {algorithm:?} {shape} len={len} in pieces of {piece}",
                    K::TYPE.name()
                );
                check_sort::<K, u32>(&keys, &options, &context);
                let got = gpu()
                    .argsort_with(&keys, &options)
                    .unwrap_or_else(|e| panic!("{context}: {e}"));
                let indices: Vec<u32> = (0..keys.len() as u32).collect();
                let (_, want) = cpu::sort_pairs_ordered(&keys, &indices, order);
                assert_same(&got, &want, &format!("{context} argsort"));
            }
        }
    }
}

every_key_type!(sorts_in_pieces);

/// A sort beyond one piece on a bit range is refused (its merges would compare whole keys), as
/// is an empty piece; within one piece both sort.
#[test]
fn pieces_refuse_bit_ranges() {
    let keys: Vec<u32> = (0..100).rev().collect();
    let options = SortOptions {
        bits: Some(0..8),
        max_piece_len: Some(50),
        ..Default::default()
    };
    let result = gpu().sort_with(&keys, &options);
    assert!(
        matches!(
            result,
            Err(Error::TooLarge {
                len: 100,
                max: 50,
                ..
            })
        ),
        "{result:?}"
    );
    let within = gpu().sort_with(&keys[..50], &options).unwrap();
    assert_eq!(within, (50..100).collect::<Vec<u32>>());
    let empty = SortOptions {
        max_piece_len: Some(0),
        ..Default::default()
    };
    assert!(matches!(
        gpu().sort_with(&keys, &empty),
        Err(Error::InvalidOptions(_))
    ));
}

#[test]
fn bad_input_is_an_error() {
    let gpu = gpu();
    assert!(matches!(
        gpu.sort_pairs(&[3u32, 1], &[1u32]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        gpu.sort_pairs(&[3u32, 1], &[1u16, 2]),
        Err(Error::InvalidOptions(_))
    ));
    for (workgroup_size, items_per_thread) in [(0, 3), (256, 0), (256, 65), (1 << 20, 1)] {
        let options = SortOptions {
            algorithm: SortAlgorithm::Merge,
            workgroup_size: Some(workgroup_size),
            items_per_thread: Some(items_per_thread),
            ..Default::default()
        };
        assert!(
            matches!(
                gpu.sort_with(&[1u32], &options),
                Err(Error::InvalidOptions(_))
            ),
            "{workgroup_size}x{items_per_thread}"
        );
    }
    // A tile whose keys and permutations do not fit the device's workgroup memory.
    let options = SortOptions {
        algorithm: SortAlgorithm::Merge,
        workgroup_size: Some(256),
        items_per_thread: Some(64),
        ..Default::default()
    };
    assert!(matches!(
        gpu.sort_with(&[1u64], &options),
        Err(Error::InvalidOptions(_))
    ));
}

/// The resident form: sorts of GPU buffers recorded into one encoder, each with its own
/// scratch, ending in the caller's buffers whatever the number of passes.
#[test]
fn resident_sorts_end_in_the_callers_buffers() {
    let gpu = gpu();
    let mut rng = rng("sort::resident");
    // Tiles of 12 keys: 0, 1, 2, 4 and 9 merge passes.
    let small = SortOptions {
        algorithm: SortAlgorithm::Merge,
        workgroup_size: Some(4),
        items_per_thread: Some(3),
        ..Default::default()
    };
    let merge = SortOptions {
        algorithm: SortAlgorithm::Merge,
        ..Default::default()
    };
    let mut jobs = Vec::new();
    for (len, options) in [
        (12, small.clone()),
        (24, small.clone()),
        (40, small.clone()),
        (100, small.clone()),
        (5000, small),
        // Tiles of 2816 keys: 0, 1 and 6 merge passes.
        (1000, merge.clone()),
        (3000, merge.clone()),
        (100_000, merge),
        (100_000, SortOptions::default()),
        (0, SortOptions::default()),
    ] {
        let keys: Vec<u32> = (0..len).map(|_| rng.random_range(0..1000)).collect();
        let values: Vec<u32> = (0..len as u32).collect();
        // Temporaries that hold something else, so that a pass reading the wrong buffer shows.
        let other: Vec<u32> = (0..len as u32).map(|i| i.wrapping_mul(7919)).collect();
        let buffers = [&keys, &other, &values, &other].map(|data| storage_buffer(data));
        jobs.push((keys, values, buffers, options, gpu.create_scratch()));
    }
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    for (i, (keys, _, [k, kt, v, vt], options, scratch)) in jobs.iter().enumerate() {
        // Keys only for every other job: the block sort's two stages.
        let buffers = SortBuffers {
            keys: k,
            temp: kt,
            len: keys.len(),
            values: (i % 2 == 0).then_some(SortValueBuffers {
                values: v,
                temp: vt,
                value_size: 4,
            }),
        };
        gpu.encode_sort::<u32>(&mut encoder, scratch, &buffers, options)
            .unwrap();
    }
    gpu.queue().submit([encoder.finish()]);
    for (i, (keys, values, [k, _, v, _], _, _)) in jobs.iter().enumerate() {
        let (want_keys, want_values) = cpu::sort_pairs_ordered(keys, values, Order::Ascending);
        let context = format!("resident sort of {}", keys.len());
        assert_same(&read_buffer(k, keys.len()), &want_keys, &context);
        if i % 2 == 0 {
            assert_same(&read_buffer(v, keys.len()), &want_values, &context);
        }
    }
}
