//! Radix sort against the CPU: bit ranges of every key type in both orders with provenance
//! values, every size to 70, awkward keys, argsort, the resident form with an odd number of
//! passes, and what each algorithm refuses; each rank path (lane masks, subgroup ballots) where
//! the device has both.

mod common;

use common::*;
use rand::seq::SliceRandom;
use rand::Rng;
use wgmerge::{
    cpu, Error, Order, RadixStrategy, SortAlgorithm, SortBuffers, SortOptions, SortValueBuffers,
};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Sorts `keys` and (key, index) pairs with `options` and compares both with the CPU's stable
/// sort on the same bits.
fn check<K: TestKey>(keys: &[K], options: &SortOptions, context: &str) {
    let bits = options.bits.clone().unwrap_or(0..K::TYPE.bits());
    let index: Vec<u32> = (0..keys.len() as u32).collect();
    let (want_keys, want_index) = cpu::radix_sort_pairs_ordered(keys, &index, bits, options.order);
    let got = gpu()
        .sort_with(keys, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same_keys(&got, &want_keys, context);
    let (got_keys, got_index) = gpu()
        .sort_pairs_with(keys, &index, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same_keys(&got_keys, &want_keys, context);
    assert_same(&got_index, &want_index, context);
    // 8-byte values: the index and a check word.
    let wide: Vec<[u32; 2]> = index.iter().map(|&i| [i, !i]).collect();
    let (_, got_wide) = gpu()
        .sort_pairs_with(keys, &wide, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let want_wide: Vec<[u32; 2]> = want_index.iter().map(|&i| [i, !i]).collect();
    assert_same(&got_wide, &want_wide, context);
}

/// Both ways of ranking keys where the device has both: lane masks in workgroup memory, and
/// subgroup ballots (lavapipe has subgroups of 8 lanes; llvmpipe's OpenGL has none).
fn rank_paths() -> Vec<Option<bool>> {
    let subgroups = SortOptions {
        subgroups: Some(true),
        ..Default::default()
    };
    match gpu().sort_with(&[2u32, 1], &subgroups) {
        Ok(sorted) => {
            assert_eq!(sorted, [1, 2]);
            vec![Some(false), Some(true)]
        }
        Err(Error::Unsupported(_)) => vec![Some(false)],
        Err(e) => panic!("{e}"),
    }
}

/// Every way the device can sort: each rank path with each strategy (the single sweep forced
/// where the adapter gives no forward progress, as lavapipe and llvmpipe do not promise it: its
/// decoupled fallback must keep it correct there).
fn paths() -> Vec<(Option<bool>, Option<RadixStrategy>)> {
    let strategies = [
        Some(RadixStrategy::ReduceThenScan),
        Some(RadixStrategy::SingleSweep),
    ];
    rank_paths()
        .into_iter()
        .flat_map(|rank| strategies.map(|strategy| (rank, strategy)))
        .collect()
}

/// Bit ranges: whole keys, single digits, ranges that are not multiples of 8, ranges that end at
/// the key's width (no key may be lost there), and one of no bits; each rank path.
fn bit_ranges<K: TestKey>() {
    let mut rng = rng(&format!("radix::<{}>", K::TYPE.name()));
    let width = K::TYPE.bits();
    let ranges = [
        None,
        Some(0..8),
        Some(4..16),
        Some(0..1),
        Some(width - 8..width),
        Some(width - 1..width),
        Some(3..width),
        Some(5..5),
    ];
    let mut shapes = Shape::ALL.iter().cycle();
    let paths = paths();
    let mut path = paths.iter().cycle();
    for order in ORDERS {
        for bits in ranges.clone() {
            for len in [1, 2049, 10_000] {
                let shape = *shapes.next().unwrap();
                let keys = shuffled::<K>(&mut rng, shape, len);
                let (subgroups, strategy) = *path.next().unwrap();
                let options = SortOptions {
                    order,
                    bits: bits.clone(),
                    subgroups,
                    strategy,
                    ..Default::default()
                };
                let context = format!(
                    "{} {order:?} {bits:?} {shape:?} len={len} {subgroups:?} {strategy:?}",
                    K::TYPE.name()
                );
                check(&keys, &options, &context);
            }
        }
    }
}

/// `len` keys of one merge test shape, shuffled.
fn shuffled<K: TestKey>(rng: &mut rand::rngs::StdRng, shape: Shape, len: usize) -> Vec<K> {
    let (a, b) = shape.keys::<K>(rng, len / 2, len - len / 2, Order::Ascending);
    let mut keys: Vec<K> = a.into_iter().chain(b).collect();
    keys.shuffle(rng);
    keys
}

every_key_type!(bit_ranges);

#[test]
fn every_size_to_70_and_random_sizes() {
    let mut rng = rng("radix::sizes");
    for (i, (subgroups, strategy)) in paths().into_iter().enumerate() {
        let order = ORDERS[i % 2];
        let options = SortOptions {
            order,
            subgroups,
            strategy,
            ..Default::default()
        };
        let context = |what: &str| format!("{what} {order:?} {subgroups:?} {strategy:?}");
        for len in 0..=70 {
            let keys: Vec<u32> = (0..len).map(|_| rng.random_range(0..20)).collect();
            check(&keys, &options, &context(&format!("u32 len={len}")));
            let keys: Vec<i64> = (0..len).map(|_| rng.random_range(-5..5) << 40).collect();
            check(&keys, &options, &context(&format!("i64 len={len}")));
        }
        for _ in 0..3 {
            let len = rng.random_range(70..1_500_000);
            let keys: Vec<u32> = (0..len).map(|_| rng.random()).collect();
            check(&keys, &options, &context(&format!("u32 random len={len}")));
        }
    }
}

/// Inputs of more tiles than workgroups (over 1024 tiles of at most 2048 keys), so that each
/// workgroup sorts a run of tiles and carries its digits' places from one to the next; the last
/// workgroup's run is shorter, and its last tile partial. At this length the single sweep takes
/// its largest tiles for pairs and 8-byte keys (tuning::SWEEP_WIDE_LARGE_ROUNDS_LENS).
#[test]
fn workgroups_take_runs_of_tiles() {
    let mut rng = rng("radix::runs");
    for (i, (subgroups, strategy)) in paths().into_iter().enumerate() {
        let order = ORDERS[i % 2];
        let len = (1 << 21) + 2048 * 3 + 77;
        let keys: Vec<u32> = (0..len).map(|_| rng.random_range(0..1 << 20)).collect();
        let options = SortOptions {
            order,
            subgroups,
            strategy,
            ..Default::default()
        };
        check(
            &keys,
            &options,
            &format!("u32 {order:?} {subgroups:?} {strategy:?} len={len}"),
        );
        let wide: Vec<u64> = (0..len).map(|_| rng.random_range(0..1 << 40)).collect();
        check(
            &wide,
            &options,
            &format!("u64 {order:?} {subgroups:?} {strategy:?} len={len}"),
        );
    }
}

/// Keys that differ only in their high bits or only in their low bits, sorted and reversed
/// input, few distinct keys, and floats with NaNs, infinities and both zeros.
#[test]
fn awkward_keys() {
    let mut rng = rng("radix::awkward");
    let n = 50_000u32;
    let high: Vec<u32> = (0..n).map(|_| rng.random_range(0..16u32) << 28).collect();
    let low: Vec<u32> = (0..n).map(|_| rng.random_range(0..16u32)).collect();
    let sorted: Vec<u32> = (0..n).collect();
    let reversed: Vec<u32> = (0..n).rev().collect();
    let equal = vec![7u32; n as usize];
    let mut floats: Vec<f32> = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.5,
        -1.5,
        f32::MIN_POSITIVE,
        f32::MAX,
    ]
    .repeat(500);
    floats.shuffle(&mut rng);
    for order in ORDERS {
        let options = SortOptions {
            order,
            ..Default::default()
        };
        for (name, keys) in [
            ("high bits", &high),
            ("low bits", &low),
            ("sorted", &sorted),
            ("reversed", &reversed),
            ("all equal", &equal),
        ] {
            check(keys, &options, &format!("{name} {order:?}"));
        }
        check(&floats, &options, &format!("floats {order:?}"));
    }
}

/// Passes whose digit is the same for every key only copy (each strategy's short circuit, which
/// its counts decide on the GPU): u32 keys with every subset of their four bytes constant (0 to
/// 4 such passes, before, between and after the sorting ones), all-equal keys, and u64 keys
/// whose high half is constant; with 4- and 8-byte values, argsorts (whose first pass writes the
/// indices even where it only copies), and the resident form; on every path.
#[test]
fn passes_of_one_digit_copy() {
    let mut rng = rng("radix::one_digit");
    let n = 20_000;
    let high: Vec<u64> = (0..n)
        .map(|_| 7 << 32 | rng.random::<u32>() as u64)
        .collect();
    let paths = paths();
    for constant in 0..16u32 {
        // Byte b is 0x5b where bit b of `constant` is set, random elsewhere.
        let byte_mask = (0..4)
            .filter(|b| constant >> b & 1 == 1)
            .fold(0u32, |mask, b| mask | 0xff << (8 * b));
        let keys: Vec<u32> = (0..n)
            .map(|_| rng.random::<u32>() & !byte_mask | 0x5b5b_5b5b & byte_mask)
            .collect();
        let (subgroups, strategy) = paths[constant as usize % paths.len()];
        let order = ORDERS[constant as usize / paths.len() % 2];
        let options = SortOptions {
            order,
            subgroups,
            strategy,
            ..Default::default()
        };
        let context = format!("constant bytes {constant:04b} {order:?} {subgroups:?} {strategy:?}");
        check(&keys, &options, &context);
        let index: Vec<u32> = (0..n as u32).collect();
        let (want_keys, want_index) = cpu::radix_sort_pairs_ordered(&keys, &index, 0..32, order);
        let got = gpu().argsort_with(&keys, &options).unwrap();
        assert_same(&got, &want_index, &format!("argsort, {context}"));

        let gpu = gpu();
        let buffers = [&keys, &keys, &index, &index].map(|data| storage_buffer(data));
        let [k, _, v, _] = &buffers;
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let sort = with_u32_values(&buffers, n);
        gpu.encode_sort::<u32>(&mut encoder, &gpu.create_scratch(), &sort, &options)
            .unwrap();
        gpu.queue().submit([encoder.finish()]);
        let context = format!("resident, {context}");
        assert_same(&read_buffer(k, n), &want_keys, &context);
        assert_same(&read_buffer(v, n), &want_index, &context);
    }
    let equal = vec![0x1234_5678u32; n];
    for (i, (subgroups, strategy)) in paths.into_iter().enumerate() {
        let order = ORDERS[i % 2];
        let options = SortOptions {
            order,
            subgroups,
            strategy,
            ..Default::default()
        };
        let context = |what: &str| format!("{what} {order:?} {subgroups:?} {strategy:?}");
        check(&equal, &options, &context("all equal"));
        check(&high, &options, &context("u64, constant high half"));
        let got = gpu().argsort_with(&equal, &options).unwrap();
        assert!(
            got.iter().copied().eq(0..n as u32),
            "{}",
            context("argsort")
        );
    }
}

#[test]
fn argsort_is_the_stable_order() {
    let mut rng = rng("radix::argsort");
    for algorithm in [SortAlgorithm::Radix, SortAlgorithm::Merge] {
        for order in ORDERS {
            let keys: Vec<f32> = (0..30_000)
                .map(|_| rng.random_range(-4..4) as f32)
                .collect();
            let options = SortOptions {
                algorithm,
                order,
                ..Default::default()
            };
            let got = gpu().argsort_with(&keys, &options).unwrap();
            let mut want: Vec<u32> = (0..keys.len() as u32).collect();
            want.sort_by(|&i, &j| {
                let (x, y) = (keys[i as usize], keys[j as usize]);
                match order {
                    Order::Ascending => x.total_cmp(&y),
                    Order::Descending => y.total_cmp(&x),
                }
            });
            assert_eq!(got, want, "{algorithm:?} {order:?}");
        }
    }
    assert_eq!(gpu().argsort(&[3u64, 1, 2, 1]).unwrap(), [1, 3, 2, 0]);
    assert!(gpu().argsort::<u32>(&[]).unwrap().is_empty());
}

/// Sort buffers of `len` keys with u32 values: keys, their temporary, values, theirs.
fn with_u32_values(buffers: &[wgpu::Buffer; 4], len: usize) -> SortBuffers<'_> {
    let [keys, temp, values, values_temp] = buffers;
    SortBuffers {
        keys,
        temp,
        len,
        values: Some(SortValueBuffers {
            values,
            temp: values_temp,
            value_size: 4,
        }),
    }
}

/// The resident form ends in the caller's buffers whether the bits take an odd or an even
/// number of passes.
#[test]
fn resident_sorts_end_in_the_callers_buffers() {
    let gpu = gpu();
    let mut rng = rng("radix::resident");
    let keys: Vec<u32> = (0..20_000).map(|_| rng.random()).collect();
    let values: Vec<u32> = (0..keys.len() as u32).collect();
    for bits in [None, Some(0..8), Some(8..32), Some(0..24), Some(16..16)] {
        let buffers = [&keys, &keys, &values, &values].map(|data| storage_buffer(data));
        let [k, _, v, _] = &buffers;
        let scratch = gpu.create_scratch();
        let options = SortOptions {
            bits: bits.clone(),
            ..Default::default()
        };
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let sort = with_u32_values(&buffers, keys.len());
        gpu.encode_sort::<u32>(&mut encoder, &scratch, &sort, &options)
            .unwrap();
        gpu.queue().submit([encoder.finish()]);
        let got_keys: Vec<u32> = read_buffer(k, keys.len());
        let got_values: Vec<u32> = read_buffer(v, keys.len());
        let (want_keys, want_values) = cpu::radix_sort_pairs_ordered(
            &keys,
            &values,
            bits.clone().unwrap_or(0..32),
            Order::Ascending,
        );
        assert_eq!(got_keys, want_keys, "{:?}", options.bits);
        assert_eq!(got_values, want_values, "{:?}", options.bits);

        // The encoder form of argsort: the values buffer starts as garbage and receives the
        // indices, written by the first pass (one of no bits where the range is empty).
        for (subgroups, strategy) in paths() {
            let buffers = [&keys, &keys, &keys, &keys].map(|data| storage_buffer(data));
            let [k, _, v, _] = &buffers;
            let options = SortOptions {
                bits: bits.clone(),
                order: Order::Descending,
                subgroups,
                strategy,
                ..Default::default()
            };
            let sort = with_u32_values(&buffers, keys.len());
            let mut encoder = gpu.device().create_command_encoder(&Default::default());
            gpu.encode_argsort::<u32>(&mut encoder, &scratch, &sort, &options)
                .unwrap();
            gpu.queue().submit([encoder.finish()]);
            let (want_keys, want_index) = cpu::radix_sort_pairs_ordered(
                &keys,
                &values,
                bits.clone().unwrap_or(0..32),
                Order::Descending,
            );
            let context = format!("argsort {bits:?} {subgroups:?} {strategy:?}");
            assert_same(&read_buffer(k, keys.len()), &want_keys, &context);
            assert_same(&read_buffer(v, keys.len()), &want_index, &context);
        }
    }
}

#[test]
fn options_each_algorithm_refuses() {
    let gpu = gpu();
    let beyond = SortOptions {
        bits: Some(0..33),
        ..Default::default()
    };
    assert!(matches!(
        gpu.sort_with(&[1u32], &beyond),
        Err(Error::InvalidOptions(_))
    ));
    // A range that ends before it starts, as a caller's arithmetic might make one.
    let (start, end) = (9, 8);
    let backwards = SortOptions {
        bits: Some(start..end),
        ..Default::default()
    };
    assert!(matches!(
        gpu.sort_with(&[1u64], &backwards),
        Err(Error::InvalidOptions(_))
    ));
    let merge_bits = SortOptions {
        algorithm: SortAlgorithm::Merge,
        bits: Some(0..8),
        ..Default::default()
    };
    assert!(matches!(
        gpu.sort_with(&[1u32], &merge_bits),
        Err(Error::InvalidOptions(_))
    ));
    let merge_subgroups = SortOptions {
        algorithm: SortAlgorithm::Merge,
        subgroups: Some(false),
        ..Default::default()
    };
    assert!(matches!(
        gpu.sort_with(&[1u32], &merge_subgroups),
        Err(Error::InvalidOptions(_))
    ));
    let merge_strategy = SortOptions {
        algorithm: SortAlgorithm::Merge,
        strategy: Some(RadixStrategy::SingleSweep),
        ..Default::default()
    };
    assert!(matches!(
        gpu.sort_with(&[1u32], &merge_strategy),
        Err(Error::InvalidOptions(_))
    ));
    // encode_argsort: radix sort only, into 4-byte values.
    let one = storage_buffer(&[1]);
    let two = storage_buffer(&[1]);
    let wide = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 8,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let wide_temp = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 8,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let scratch = gpu.create_scratch();
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    for (values, value_size, algorithm) in [
        (None, 4, SortAlgorithm::Radix),
        (Some((&wide, &wide_temp)), 8, SortAlgorithm::Radix),
        (Some((&wide, &wide_temp)), 4, SortAlgorithm::Merge),
    ] {
        let sort = SortBuffers {
            keys: &one,
            temp: &two,
            len: 1,
            values: values.map(|(values, temp)| SortValueBuffers {
                values,
                temp,
                value_size,
            }),
        };
        let options = SortOptions {
            algorithm,
            ..Default::default()
        };
        let result = gpu.encode_argsort::<u32>(&mut encoder, &scratch, &sort, &options);
        assert!(
            matches!(result, Err(Error::InvalidOptions(_))),
            "{result:?}"
        );
    }
    drop(encoder);
    let radix_shape = SortOptions {
        workgroup_size: Some(64),
        ..Default::default()
    };
    assert!(matches!(
        gpu.sort_with(&[1u32], &radix_shape),
        Err(Error::InvalidOptions(_))
    ));
    // 64-bit keys take bits up to 64.
    let all = SortOptions {
        bits: Some(0..64),
        ..Default::default()
    };
    assert_eq!(gpu.sort_with(&[3i64, -1], &all).unwrap(), [-1, 3]);
}

/// A count written on the GPU: the sort takes that many keys (at most the capacity) and leaves
/// the rest as they are, with an even or an odd number of passes.
#[test]
fn counted_sorts_take_the_count_from_the_gpu() {
    let gpu = gpu();
    let mut rng = rng("radix::counted");
    let capacity = 10_000usize;
    let keys: Vec<u32> = (0..capacity).map(|_| rng.random()).collect();
    let values: Vec<u32> = (0..capacity as u32).collect();
    let strategies = [RadixStrategy::ReduceThenScan, RadixStrategy::SingleSweep];
    for (bits, strategy) in [None, Some(0..8)]
        .into_iter()
        .flat_map(|bits| strategies.map(|strategy| (bits.clone(), strategy)))
    {
        for count in [0u32, 1, 777, 10_000, 20_000] {
            let [k, kt, v, vt, c] =
                [&keys, &keys, &values, &values, &vec![count]].map(|data| storage_buffer(data));
            let sort = SortBuffers {
                keys: &k,
                temp: &kt,
                len: capacity,
                values: Some(SortValueBuffers {
                    values: &v,
                    temp: &vt,
                    value_size: 4,
                }),
            };
            let options = SortOptions {
                bits: bits.clone(),
                strategy: Some(strategy),
                ..Default::default()
            };
            let mut encoder = gpu.device().create_command_encoder(&Default::default());
            gpu.encode_sort_counted::<u32>(
                &mut encoder,
                &gpu.create_scratch(),
                &sort,
                &c,
                &options,
            )
            .unwrap();
            gpu.queue().submit([encoder.finish()]);
            let n = (count as usize).min(capacity);
            let (mut want_keys, mut want_values) = cpu::radix_sort_pairs_ordered(
                &keys[..n],
                &values[..n],
                bits.clone().unwrap_or(0..32),
                Order::Ascending,
            );
            want_keys.extend_from_slice(&keys[n..]);
            want_values.extend_from_slice(&values[n..]);
            let context = format!("count={count} bits={bits:?} {strategy:?}");
            assert_eq!(read_buffer(&k, capacity), want_keys, "{context}");
            assert_eq!(read_buffer(&v, capacity), want_values, "{context}");
        }
    }
    // Merge sort cannot take its count from the GPU.
    let [k, kt, c] = [&keys, &keys, &vec![5]].map(|data| storage_buffer(data));
    let sort = SortBuffers {
        keys: &k,
        temp: &kt,
        len: capacity,
        values: None,
    };
    let merge = SortOptions {
        algorithm: SortAlgorithm::Merge,
        ..Default::default()
    };
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let result =
        gpu.encode_sort_counted::<u32>(&mut encoder, &gpu.create_scratch(), &sort, &c, &merge);
    assert!(
        matches!(result, Err(Error::InvalidOptions(_))),
        "{result:?}"
    );
}
