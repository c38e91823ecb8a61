//! Many-way merge against the CPU's stable sort of the runs end to end (the stable merge by run
//! index): every key type and order, 1 to 65536 runs of unequal lengths (merged in a tree, or
//! radix sorted beyond 1024), empty runs, millions of keys, and pairs whose values name their run
//! and index; beyond one binding; the resident form over one buffer with run starts.

mod common;

use common::*;
use rand::Rng;
use wgmerge::{cpu, Error, Gpu, MergeManyBuffers, Order, SortBuffers, SortValueBuffers};

fn check<K: TestKey>(runs: &[Vec<K>], order: Order, context: &str) {
    check_on(gpu(), runs, order, context);
}

fn check_on<K: TestKey>(gpu: &Gpu, runs: &[Vec<K>], order: Order, context: &str) {
    let refs: Vec<&[K]> = runs.iter().map(Vec::as_slice).collect();
    let all: Vec<K> = runs.iter().flatten().copied().collect();
    // Each value: its run in the high half, its index in the run in the low half.
    let values: Vec<Vec<u64>> = runs
        .iter()
        .enumerate()
        .map(|(r, run)| {
            (0..run.len() as u64)
                .map(|i| (r as u64) << 32 | i)
                .collect()
        })
        .collect();
    let all_values: Vec<u64> = values.iter().flatten().copied().collect();
    let (want_keys, want_values) = cpu::sort_pairs_ordered(&all, &all_values, order);
    let got = gpu
        .merge_many_with(&refs, order)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same_keys(&got, &want_keys, context);
    let pairs: Vec<(&[K], &[u64])> = runs
        .iter()
        .zip(&values)
        .map(|(k, v)| (k.as_slice(), v.as_slice()))
        .collect();
    let (got_keys, got_values) = gpu
        .merge_many_pairs_with(&pairs, order)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same_keys(&got_keys, &want_keys, context);
    assert_same(&got_values, &want_values, context);
}

/// `k` sorted runs of random lengths up to `longest`, some empty, keys from a narrow range so
/// that equal keys meet across runs.
fn runs<K: TestKey>(
    rng: &mut rand::rngs::StdRng,
    k: usize,
    longest: usize,
    order: Order,
) -> Vec<Vec<K>> {
    (0..k)
        .map(|_| {
            let len = if rng.random_bool(0.1) {
                0
            } else {
                rng.random_range(0..=longest)
            };
            let (run, _) = Shape::HeavyDuplicates.keys::<K>(rng, len, 0, order);
            run
        })
        .collect()
}

fn every_key_type_and_order<K: TestKey>() {
    let mut rng = rng(&format!("merge_many::<{}>", K::TYPE.name()));
    for order in [Order::Ascending, Order::Descending] {
        for (k, longest) in [(1, 1000), (2, 5000), (3, 1), (17, 300), (1024, 40)] {
            let runs = runs::<K>(&mut rng, k, longest, order);
            check(&runs, order, &format!("{} {order:?} k={k}", K::TYPE.name()));
        }
    }
}

every_key_type!(every_key_type_and_order);

/// Beyond one binding (a device with 4 KiB bindings: 1024 u32 keys, 512 with 8-byte values) the
/// runs are merged two by two from host memory, each merge in pieces; beyond 1024 runs they are
/// sorted in pieces. Both orders, odd numbers of runs, empty runs.
#[test]
fn runs_beyond_one_binding() {
    let small = gpu_with_binding_limit(4096);
    let mut rng = rng("merge_many::beyond_one_binding");
    for order in [Order::Ascending, Order::Descending] {
        for (k, longest) in [(2, 1500), (5, 700), (17, 300), (1500, 3)] {
            let runs = runs::<u32>(&mut rng, k, longest, order);
            check_on(
                &small,
                &runs,
                order,
                &format!("{order:?} k={k} in 4 KiB bindings"),
            );
        }
    }
}

#[test]
fn many_runs_and_empty_ones() {
    let mut rng = rng("merge_many::many");
    let runs = runs::<u32>(&mut rng, 65_536, 4, Order::Ascending);
    check(&runs, Order::Ascending, "k=65536");
    let empty: Vec<Vec<u32>> = vec![Vec::new(); 5];
    check(&empty, Order::Ascending, "all empty");
    assert!(gpu().merge_many::<u32>(&[]).unwrap().is_empty());
    assert!(matches!(
        gpu().merge_many_pairs(&[(&[1u32, 2][..], &[1u32][..])]),
        Err(Error::LengthMismatch { .. })
    ));
}

/// Runs of millions of keys, unequal and not multiples of any tile: merge path's workgroups take
/// several tiles each from 2^24 keys, which here span the segments of a pass.
#[test]
fn millions_of_keys_in_unequal_runs() {
    let mut rng = rng("merge_many::millions");
    let total = (1 << 24) + 12_345;
    let mut cuts: Vec<usize> = (0..4).map(|_| rng.random_range(0..total)).collect();
    cuts.extend([0, total]);
    cuts.sort_unstable();
    let runs: Vec<Vec<u32>> = cuts
        .windows(2)
        .map(|w| sorted(&mut rng, w[1] - w[0], 0..=u32::MAX / 2))
        .collect();
    let refs: Vec<&[u32]> = runs.iter().map(Vec::as_slice).collect();
    let mut want: Vec<u32> = runs.iter().flatten().copied().collect();
    want.sort_unstable();
    assert_same(
        &gpu().merge_many(&refs).unwrap(),
        &want,
        "5 runs of 2^24 keys",
    );
}

/// The resident form: runs end to end in one buffer, values naming their run and index, both
/// orders, passes odd (which end with a copy back) and even; bad run starts are refused.
#[test]
fn resident_runs_in_one_buffer() {
    let mut rng = rng("merge_many::resident");
    for (order, run_count) in [
        (Order::Ascending, 37),
        (Order::Descending, 37),
        (Order::Ascending, 2),
        (Order::Descending, 5),
    ] {
        let runs = runs::<u32>(&mut rng, run_count, 3000, order);
        let starts: Vec<usize> = runs
            .iter()
            .scan(0, |start, run| {
                let this = *start;
                *start += run.len();
                Some(this)
            })
            .collect();
        let keys: Vec<u32> = runs.iter().flatten().copied().collect();
        let values: Vec<u32> = (0..keys.len() as u32).collect();
        let (want_keys, want_values) = cpu::sort_pairs_ordered(&keys, &values, order);
        let buffer = |data: &[u32]| {
            use wgpu::util::DeviceExt;
            gpu()
                .device()
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: None,
                    contents: bytemuck::cast_slice(data),
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                })
        };
        let garbage = vec![u32::MAX; keys.len()];
        let (k, kt, v, vt) = (
            buffer(&keys),
            buffer(&garbage),
            buffer(&values),
            buffer(&garbage),
        );
        let buffers = MergeManyBuffers {
            runs: SortBuffers {
                keys: &k,
                temp: &kt,
                len: keys.len(),
                values: Some(SortValueBuffers {
                    values: &v,
                    temp: &vt,
                    value_size: 4,
                }),
            },
            run_starts: &starts,
        };
        let scratch = gpu().create_scratch();
        let mut encoder = gpu().device().create_command_encoder(&Default::default());
        gpu()
            .encode_merge_many::<u32>(&mut encoder, &scratch, &buffers, order)
            .unwrap();
        gpu().queue().submit([encoder.finish()]);
        let context = format!("resident {order:?} k={run_count}");
        assert_same(&read_buffer(&k, keys.len()), &want_keys, &context);
        assert_same(&read_buffer(&v, keys.len()), &want_values, &context);

        if run_count < 5 {
            continue;
        }
        let mut bad = starts.clone();
        bad.swap(3, 4);
        bad[3] += 1;
        let refused = MergeManyBuffers {
            run_starts: &bad,
            ..buffers
        };
        let mut encoder = gpu().device().create_command_encoder(&Default::default());
        assert!(matches!(
            gpu().encode_merge_many::<u32>(&mut encoder, &scratch, &refused, order),
            Err(Error::InvalidOptions(_))
        ));
    }
}
