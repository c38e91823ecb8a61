//! The key filter against the CPU: every key type and order, A sorted or not, B with runs of
//! equal keys, keys below, above, between and on B's, 4- and 8-byte provenance values, empty
//! sides, the encoder form's count, and what it refuses.

mod common;

use common::*;
use rand::seq::SliceRandom;
use rand::Rng;
use wgmerge::{cpu, Error, FilterBuffers, Gpu, KeptValueBuffers, Order};

fn check<K: TestKey>(a: &[K], b: &[K], order: Order, context: &str) {
    check_on(gpu(), a, b, order, context);
}

fn check_on<K: TestKey>(gpu: &Gpu, a: &[K], b: &[K], order: Order, context: &str) {
    let index: Vec<u32> = (0..a.len() as u32).collect();
    let (want_keys, want_index) = cpu::difference_by_key_pairs(a, &index, b, order);
    let got = gpu
        .difference_by_key_with(a, b, order)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same_keys(&got, &want_keys, context);
    let (got_keys, got_index) = gpu
        .difference_by_key_pairs_with(a, &index, b, order)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same_keys(&got_keys, &want_keys, context);
    assert_same(&got_index, &want_index, context);
    let wide: Vec<[u32; 2]> = index.iter().map(|&i| [i, !i]).collect();
    let (_, got_wide) = gpu
        .difference_by_key_pairs_with(a, &wide, b, order)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let want_wide: Vec<[u32; 2]> = want_index.iter().map(|&i| [i, !i]).collect();
    assert_same(&got_wide, &want_wide, context);
}

fn every_shape<K: TestKey>() {
    let mut rng = rng(&format!("difference_by_key::<{}>", K::TYPE.name()));
    for order in [Order::Ascending, Order::Descending] {
        for (m, n) in [
            (0, 4),
            (4, 0),
            (1, 1),
            (300, 100),
            (5000, 5000),
            (20_001, 333),
        ] {
            for shape in Shape::ALL {
                let (a, b) = shape.keys::<K>(&mut rng, m, n, order);
                let context = format!("{} {order:?} {shape:?} {m}/{n}", K::TYPE.name());
                check(&a, &b, order, &format!("{context} sorted"));
                let mut shuffled = a.clone();
                shuffled.shuffle(&mut rng);
                check(&shuffled, &b, order, &format!("{context} shuffled"));
            }
        }
    }
}

every_key_type!(every_shape);

/// On a device with 4 KiB bindings (1024 u32 keys, 512 with 8-byte values): A longer than a
/// binding goes in pieces, and a B longer than one in chunks that filter A in turn; both orders,
/// A sorted and shuffled, B with runs of equal keys, empty sides.
#[test]
fn beyond_one_binding() {
    let small = gpu_with_binding_limit(4096);
    let mut rng = rng("difference_by_key::beyond_one_binding");
    for order in [Order::Ascending, Order::Descending] {
        for (m, n) in [(3000, 100), (100, 2500), (3000, 2500), (1500, 0), (0, 3000)] {
            for shape in [Shape::Uniform, Shape::HeavyDuplicates, Shape::Interleaved] {
                let (a, b) = shape.keys::<u32>(&mut rng, m, n, order);
                let context = format!("{order:?} {shape:?} {m}/{n} in 4 KiB bindings");
                check_on(&small, &a, &b, order, &format!("{context} sorted"));
                let mut shuffled = a.clone();
                shuffled.shuffle(&mut rng);
                check_on(&small, &shuffled, &b, order, &format!("{context} shuffled"));
            }
        }
    }
}

/// Millions of keys: each workgroup takes many tiles in turn, and on lavapipe the first ones reach
/// the most a workgroup may take (its loop budget, which counts the searches of B).
#[test]
fn millions_of_keys() {
    let mut rng = rng("difference_by_key::millions");
    let a: Vec<u32> = (0..2_500_009)
        .map(|_| rng.random_range(0..1u32 << 24))
        .collect();
    let b = sorted(&mut rng, 1 << 20, 0..=1 << 24);
    check(&a, &b, Order::Ascending, "2,500,009 / 2^20");
}

#[test]
fn tombstones_drop_every_copy() {
    let gpu = gpu();
    let a = [1u32, 2, 2, 2, 5, 7, 7, 9];
    let b = [2u32, 7, 8];
    assert_eq!(gpu.difference_by_key(&a, &b).unwrap(), [1, 5, 9]);
    // The multiset difference keeps the copies B does not have.
    let multiset = gpu
        .set_operation(wgmerge::SetOperation::Difference, &a, &b)
        .unwrap();
    assert_eq!(multiset, [1, 2, 2, 5, 7, 9]);
}

#[test]
fn resident_form_writes_the_count() {
    let gpu = gpu();
    let mut rng = rng("difference_by_key::resident");
    for (m, n) in [(0usize, 10usize), (1000, 0), (50_000, 2000)] {
        let a: Vec<u32> = (0..m).map(|_| rng.random_range(0..20_000)).collect();
        let mut b: Vec<u32> = (0..n).map(|_| rng.random_range(0..20_000)).collect();
        b.sort_unstable();
        let values: Vec<u32> = (0..m as u32).collect();
        let [ab, bb, out, v, vout, count] =
            [&a, &b, &a, &values, &values, &vec![5u32]].map(|data| storage_buffer(data));
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let buffers = FilterBuffers {
            a: &ab,
            a_len: m,
            b: &bb,
            b_len: n,
            out: &out,
            count: &count,
            values: Some(KeptValueBuffers {
                values: &v,
                out: &vout,
                value_size: 4,
            }),
        };
        gpu.encode_difference_by_key::<u32>(
            &mut encoder,
            &gpu.create_scratch(),
            &buffers,
            Order::Ascending,
        )
        .unwrap();
        gpu.queue().submit([encoder.finish()]);
        let (want_keys, want_values) =
            cpu::difference_by_key_pairs(&a, &values, &b, Order::Ascending);
        let want = (&want_keys[..], &want_values[..]);
        assert_kept(&count, (&out, &vout), want, &format!("{m}/{n}"));
    }
}

#[test]
fn bad_input_is_an_error() {
    let gpu = gpu();
    assert!(matches!(
        gpu.difference_by_key_pairs(&[1u32, 2], &[1u32], &[2]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        gpu.difference_by_key_pairs(&[1u32], &[1u8], &[2]),
        Err(Error::InvalidOptions(_))
    ));
}
