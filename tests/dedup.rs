//! Dedup against the CPU: every key type, keeping the first or the last of each run, with 4- and
//! 8-byte provenance values, sorted and unsorted keys, every size to 70 and larger ones; the
//! encoder form's count; what it refuses.

mod common;

use common::*;
use rand::Rng;
use wgmerge::{cpu, DedupBuffers, DedupOptions, Error, Keep, KeptValueBuffers, Order};

fn check<K: TestKey>(keys: &[K], keep: Keep, context: &str) {
    check_with(
        keys,
        &DedupOptions {
            keep,
            ..Default::default()
        },
        context,
    );
}

fn check_with<K: TestKey>(keys: &[K], options: &DedupOptions, context: &str) {
    let keep = options.keep;
    let index: Vec<u32> = (0..keys.len() as u32).collect();
    let (want_keys, want_index) = cpu::dedup_pairs(keys, &index, keep == Keep::Last);
    let got = gpu()
        .dedup_with(keys, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same_keys(&got, &want_keys, context);
    let (got_keys, got_index) = gpu()
        .dedup_pairs_with(keys, &index, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same_keys(&got_keys, &want_keys, context);
    assert_same(&got_index, &want_index, context);
    let wide: Vec<u64> = index
        .iter()
        .map(|&i| u64::from(i) << 32 | u64::from(!i))
        .collect();
    let (_, got_wide) = gpu()
        .dedup_pairs_with(keys, &wide, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let want_wide: Vec<u64> = want_index
        .iter()
        .map(|&i| u64::from(i) << 32 | u64::from(!i))
        .collect();
    assert_same(&got_wide, &want_wide, context);
}

fn every_shape<K: TestKey>() {
    let mut rng = rng(&format!("dedup::<{}>", K::TYPE.name()));
    for keep in [Keep::First, Keep::Last] {
        for len in [0, 1, 2, 255, 256, 257, 5000, 70_001] {
            for shape in Shape::ALL {
                let (a, b) = shape.keys::<K>(&mut rng, len / 2, len - len / 2, Order::Ascending);
                let context = format!("{} {keep:?} {shape:?} len={len}", K::TYPE.name());
                // Sorted (each distinct key once) and two sorted halves back to back.
                let mut sorted: Vec<K> = a.iter().chain(&b).copied().collect();
                check(&sorted, keep, &format!("{context} halves"));
                cpu::sort_ordered(&mut sorted, Order::Ascending);
                check(&sorted, keep, &format!("{context} sorted"));
            }
        }
    }
}

every_key_type!(every_shape);

/// Inputs longer than a piece, deduped piece by piece: runs of equal keys that cross one cut or
/// several (a run longer than a piece), pieces that are one run, both keep modes, every key type.
fn in_pieces<K: TestKey>() {
    let mut rng = rng(&format!("dedup::pieces::<{}>", K::TYPE.name()));
    for keep in [Keep::First, Keep::Last] {
        for (len, piece) in [(1000, 999), (5000, 777), (3000, 100), (700, 7)] {
            for shape in [Shape::Uniform, Shape::AllEqual, Shape::HeavyDuplicates] {
                let (a, b) = shape.keys::<K>(&mut rng, len / 2, len - len / 2, Order::Ascending);
                let halves: Vec<K> = a.iter().chain(&b).copied().collect();
                let mut sorted = halves.clone();
                cpu::sort_ordered(&mut sorted, Order::Ascending);
                let options = DedupOptions {
                    keep,
                    max_piece_len: Some(piece),
                };
                let context = format!(
                    "{} {keep:?} {shape:?} len={len} in pieces of {piece}",
                    K::TYPE.name()
                );
                check_with(&halves, &options, &format!("{context} halves"));
                check_with(&sorted, &options, &format!("{context} sorted"));
            }
        }
    }
}

every_key_type!(in_pieces);

/// On a device with 4 KiB bindings (1024 u32 keys, 512 with 8-byte values) longer inputs go in
/// pieces by default.
#[test]
fn beyond_one_binding() {
    let small = gpu_with_binding_limit(4096);
    let keys: Vec<u32> = (0..3000).map(|i| i / 7).collect();
    let values: Vec<u64> = (0..3000).collect();
    for keep in [Keep::First, Keep::Last] {
        let options = DedupOptions {
            keep,
            ..Default::default()
        };
        let (want_keys, want_values) = cpu::dedup_pairs(&keys, &values, keep == Keep::Last);
        assert_eq!(small.dedup_with(&keys, &options).unwrap(), want_keys);
        let (got_keys, got_values) = small.dedup_pairs_with(&keys, &values, &options).unwrap();
        assert_eq!(got_keys, want_keys, "{keep:?}");
        assert_eq!(got_values, want_values, "{keep:?}");
    }
}

#[test]
fn every_size_to_70_and_runs() {
    let mut rng = rng("dedup::sizes");
    for len in 0..=70 {
        for range in [1u32, 3, 1000] {
            let keys: Vec<u32> = (0..len).map(|_| rng.random_range(0..range)).collect();
            for keep in [Keep::First, Keep::Last] {
                check(&keys, keep, &format!("len={len} range={range} {keep:?}"));
            }
        }
    }
    // Floats: -0.0 and +0.0 are different keys, a NaN equals itself.
    let floats = [0.0f32, -0.0, -0.0, 0.0, f32::NAN, f32::NAN, 1.0, 1.0];
    assert_eq!(gpu().dedup(&floats).unwrap().len(), 5);
}

/// Millions of keys: each workgroup takes many tiles in turn, and on lavapipe the first ones reach
/// the most a workgroup may take (its loop budget).
#[test]
fn millions_of_keys() {
    let mut rng = rng("dedup::millions");
    for (len, range) in [(3_000_017usize, 1u32 << 20), (4_194_304, 16)] {
        let keys = sorted(&mut rng, len, 0..=range);
        for keep in [Keep::First, Keep::Last] {
            check(&keys, keep, &format!("len={len} range={range} {keep:?}"));
        }
    }
}

#[test]
fn resident_form_writes_the_count() {
    let gpu = gpu();
    let mut rng = rng("dedup::resident");
    // One scratch for every call: each must start from fresh look-back state, not the last's.
    let shared = gpu.create_scratch();
    for len in [0usize, 1, 1000, 100_000, 1000] {
        let mut keys: Vec<u32> = (0..len).map(|_| rng.random_range(0..500)).collect();
        keys.sort_unstable();
        let values: Vec<u32> = (0..len as u32).collect();
        let [k, out, v, vout, count] =
            [&keys, &keys, &values, &values, &vec![77u32]].map(|data| storage_buffer(data));
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let buffers = DedupBuffers {
            keys: &k,
            len,
            out: &out,
            count: &count,
            values: Some(KeptValueBuffers {
                values: &v,
                out: &vout,
                value_size: 4,
            }),
        };
        gpu.encode_dedup::<u32>(&mut encoder, &shared, &buffers, &Default::default())
            .unwrap();
        gpu.queue().submit([encoder.finish()]);
        let (want_keys, want_values) = cpu::dedup_pairs(&keys, &values, false);
        let want = (&want_keys[..], &want_values[..]);
        assert_kept(&count, (&out, &vout), want, &format!("len={len}"));
    }
}

#[test]
fn bad_input_is_an_error() {
    let gpu = gpu();
    assert!(matches!(
        gpu.dedup_pairs(&[1u32, 1], &[1u32]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        gpu.dedup_pairs(&[1u32, 1], &[1u16, 2]),
        Err(Error::InvalidOptions(_))
    ));
    let x = storage_buffer(&[1, 1, 2]);
    let count = storage_buffer(&[0]);
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let aliased = DedupBuffers {
        keys: &x,
        len: 3,
        out: &x,
        count: &count,
        values: None,
    };
    let result = gpu.encode_dedup::<u32>(
        &mut encoder,
        &gpu.create_scratch(),
        &aliased,
        &Default::default(),
    );
    assert!(matches!(result, Err(Error::Aliased { .. })), "{result:?}");
}
