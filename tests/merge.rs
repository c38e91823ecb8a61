//! Every merge kernel against the CPU reference, on the shapes and sizes that break merges.

mod common;

use common::*;
use rand::Rng;
use wgmerge::{cpu, Algorithm, Gpu, MergeBuffers, MergeOptions, ValueBuffers};

/// `algorithm` with workgroups of `workgroup` invocations, `items` outputs each per tile, and
/// `tiles` tiles per workgroup.
fn shaped(algorithm: Algorithm, workgroup: u32, items: u32, tiles: u32) -> MergeOptions {
    MergeOptions {
        algorithm,
        workgroup_size: Some(workgroup),
        items_per_thread: Some(items),
        tiles_per_workgroup: Some(tiles),
        ..Default::default()
    }
}

/// Small tiles so that short inputs still take many steps per workgroup and wrap the rings.
fn small_tiles(algorithm: Algorithm) -> MergeOptions {
    shaped(algorithm, 4, 2, 3)
}

#[test]
fn every_kernel_runs_on_the_adapter() {
    let gpu = gpu();
    for algorithm in Algorithm::ALL {
        check_merge(&[1, 3, 5], &[2, 3, 4], &options(algorithm), "smoke");
        // Printed with --show-output so the CI log names the adapter each kernel ran on.
        println!("{algorithm:?} merge ran on {}", adapter_line(gpu));
    }
}

/// Kernels built with naga's runtime checks and without (wgmerge's default) give the same bits,
/// on sorted and on unsorted input. Where a kernel indexed out of bounds, the checked build
/// would clamp the index and answer differently, so this also backs "no out-of-bounds access".
#[test]
fn runtime_checks_change_nothing() {
    let mut rng = rng("runtime_checks_change_nothing");
    let checked = Gpu::new().unwrap().with_runtime_checks(true);
    let unchecked = Gpu::new().unwrap().with_runtime_checks(false);
    for round in 0..6 {
        let (m, n) = (rng.random_range(0..9000), rng.random_range(0..9000));
        let (mut a, mut b) = Shape::ALL[round].generate(&mut rng, m, n);
        if round % 2 == 1 {
            // Unsorted: the answer is unspecified, but must not depend on bounds checks.
            a.iter_mut().for_each(|k| *k = rng.random_range(0..50));
            b.iter_mut().for_each(|k| *k = rng.random_range(0..50));
        }
        let values: Vec<u32> = (0..m.max(n) as u32).collect();
        for algorithm in Algorithm::ALL {
            let options = options(algorithm);
            let context = format!("round {round} {algorithm:?} m={m} n={n}");
            let merge = |gpu: &Gpu| {
                gpu.merge_pairs_with(&a, &values[..m], &b, &values[..n], &options)
                    .unwrap()
            };
            let (want_keys, want_values) = merge(&checked);
            let (got_keys, got_values) = merge(&unchecked);
            assert_same(&got_keys, &want_keys, &context);
            assert_same(&got_values, &want_values, &context);
        }
        let keys: Vec<u32> = a.iter().chain(&b).copied().collect();
        let values: Vec<u32> = (0..keys.len() as u32).collect();
        assert!(
            checked.sort_pairs(&keys, &values).unwrap()
                == unchecked.sort_pairs(&keys, &values).unwrap(),
            "round {round}: sort"
        );
    }
}

#[test]
fn shapes_at_assorted_sizes() {
    let mut rng = rng("shapes_at_assorted_sizes");
    let sizes = [
        (0, 0),
        (0, 1),
        (1, 0),
        (0, 5000),
        (5000, 0),
        (1, 1),
        (3000, 7),
        (7, 3000),
        (1023, 1025),
        (4097, 4095),
        (65_537, 12_345),
        (12_345, 65_537),
    ];
    for algorithm in Algorithm::ALL {
        for shape in Shape::ALL {
            for &(m, n) in &sizes {
                let (a, b) = shape.generate(&mut rng, m, n);
                let context = format!("{algorithm:?} {shape:?} m={m} n={n}");
                check_merge(&a, &b, &options(algorithm), &context);
                check_merge(
                    &a,
                    &b,
                    &small_tiles(algorithm),
                    &format!("{context} small tiles"),
                );
            }
        }
    }
}

#[test]
fn stability_on_every_shape() {
    let mut rng = rng("stability_on_every_shape");
    for algorithm in Algorithm::ALL {
        for shape in Shape::ALL {
            for &(m, n) in &[
                (0, 9),
                (9, 0),
                (500, 700),
                (10_000, 3),
                (3, 10_000),
                (40_000, 50_001),
            ] {
                let (a, b) = shape.generate(&mut rng, m, n);
                let context = format!("{algorithm:?} {shape:?} m={m} n={n}");
                check_stable_pairs(&a, &b, &options(algorithm), &context);
                check_stable_pairs(
                    &a,
                    &b,
                    &small_tiles(algorithm),
                    &format!("{context} small tiles"),
                );
            }
        }
    }
}

#[test]
fn every_size_up_to_70() {
    let mut rng = rng("every_size_up_to_70");
    for algorithm in Algorithm::ALL {
        for m in 0..=70 {
            for n in 0..=70 {
                let (a, b) = Shape::HeavyDuplicates.generate(&mut rng, m, n);
                let context = format!("{algorithm:?} m={m} n={n}");
                check_stable_pairs(&a, &b, &small_tiles(algorithm), &context);
                check_merge(&a, &b, &options(algorithm), &context);
            }
        }
    }
}

#[test]
fn millions_of_keys() {
    let mut rng = rng("millions_of_keys");
    for algorithm in Algorithm::ALL {
        let m = rng.random_range(1_000_000..3_000_000);
        let n = rng.random_range(500_000..2_000_000);
        let (a, b) = Shape::Uniform.generate(&mut rng, m, n);
        check_merge(
            &a,
            &b,
            &options(algorithm),
            &format!("{algorithm:?} m={m} n={n}"),
        );
        let (a, b) = Shape::HeavyDuplicates.generate(&mut rng, n, m);
        check_stable_pairs(
            &a,
            &b,
            &options(algorithm),
            &format!("{algorithm:?} pairs m={n} n={m}"),
        );
    }
}

/// Long enough for merge path's large shape (2^24 keys, where the device has room for it), keys
/// and pairs.
#[test]
fn merges_in_the_large_shape() {
    const LARGE: usize = 1 << 24;
    let mut rng = rng("merges_in_the_large_shape");
    let m = LARGE / 2 + 1234;
    let (a, b) = Shape::Uniform.generate(&mut rng, m, LARGE - m + 99);
    check_merge(&a, &b, &MergeOptions::default(), "large shape");
    let (a, b) = Shape::HeavyDuplicates.generate(&mut rng, m, LARGE - m);
    check_stable_pairs(&a, &b, &MergeOptions::default(), "large shape pairs");
}

#[test]
fn tile_configurations() {
    let mut rng = rng("tile_configurations");
    // (workgroup size, items per thread, tiles per workgroup): powers of two and not, down to
    // one invocation with one item.
    let configs = [
        (1, 1, 1),
        (1, 3, 2),
        (2, 1, 7),
        (32, 3, 1),
        (96, 3, 2),
        (64, 5, 4),
        (256, 4, 1),
        (128, 8, 16),
        (256, 8, 2),
        // Merge path's most tiles: more inner tile boundaries than invocations, and fewer.
        (4, 2, 32),
        (48, 5, 9),
    ];
    for algorithm in Algorithm::ALL {
        for &(workgroup, items, tiles) in &configs {
            let options = shaped(algorithm, workgroup, items, tiles);
            for shape in Shape::ALL {
                let m = rng.random_range(0..20_000);
                let n = rng.random_range(0..20_000);
                let (a, b) = shape.generate(&mut rng, m, n);
                let context = format!("{options:?} {shape:?} m={m} n={n}");
                check_stable_pairs(&a, &b, &options, &context);
                if algorithm == Algorithm::MergePath {
                    // Keys only: merge path stages the merged keys in the tile itself.
                    check_merge(&a, &b, &options, &context);
                }
            }
        }
    }
}

#[test]
fn dispatch_beyond_one_dimension() {
    // One item per workgroup: more workgroups than one dispatch dimension holds (65535).
    let mut rng = rng("dispatch_beyond_one_dimension");
    let (a, b) = Shape::Uniform.generate(&mut rng, 40_000, 31_000);
    for algorithm in Algorithm::ALL {
        let options = MergeOptions {
            algorithm,
            workgroup_size: Some(1),
            items_per_thread: Some(1),
            tiles_per_workgroup: Some(1),
            ..Default::default()
        };
        check_merge(&a, &b, &options, &format!("{algorithm:?} folded dispatch"));
    }
}

#[test]
fn unsorted_input_gives_some_answer_of_the_right_length() {
    let mut rng = rng("unsorted_input");
    for algorithm in Algorithm::ALL {
        for options in [options(algorithm), small_tiles(algorithm)] {
            for _ in 0..20 {
                let m = rng.random_range(0..3000);
                let n = rng.random_range(0..3000);
                let a: Vec<u32> = (0..m).map(|_| rng.random()).collect();
                let b: Vec<u32> = (0..n).map(|_| rng.random_range(0..16)).collect();
                let out = gpu()
                    .merge_with(&a, &b, &options)
                    .expect("unsorted input is not an error");
                assert_eq!(out.len(), m + n);
                let values = vec![0u32; m];
                let (keys, out_values) = gpu()
                    .merge_pairs_with(&a, &values, &b, &vec![1u32; n], &options)
                    .expect("unsorted input is not an error");
                assert_eq!((keys.len(), out_values.len()), (m + n, m + n));
            }
        }
    }
}

#[test]
fn values_of_any_four_byte_type() {
    let a = [1u32, 2, 2, 9];
    let b = [2u32, 3];
    let (keys, values) = gpu()
        .merge_pairs(&a, &[0.5f32, 1.5, 2.5, 3.5], &b, &[-1.0f32, -2.0])
        .unwrap();
    assert_eq!(keys, [1, 2, 2, 2, 3, 9]);
    assert_eq!(values, [0.5, 1.5, 2.5, -1.0, -2.0, 3.5]);
    let (_, values) = gpu()
        .merge_pairs(&a, &[-1i32, -2, -3, -4], &b, &[5i32, 6])
        .unwrap();
    assert_eq!(values, [-1, -2, -3, 5, 6, -4]);
}

#[test]
fn resident_merges_recorded_into_one_submission() {
    let mut rng = rng("resident_merges");
    let gpu = gpu();
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let mut jobs = Vec::new();
    for (index, algorithm) in Algorithm::ALL.into_iter().enumerate() {
        let (m, n) = (rng.random_range(0..50_000), rng.random_range(0..50_000));
        let (a, b) = Shape::HeavyDuplicates.generate(&mut rng, m, n);
        let a_values: Vec<u32> = (0..m).map(|i| provenance(false, i)).collect();
        let b_values: Vec<u32> = (0..n).map(|i| provenance(true, i)).collect();
        let out = storage_buffer(&vec![0; m + n + index]);
        let out_values = storage_buffer(&vec![0; m + n]);
        let (a_buffer, b_buffer) = (storage_buffer(&a), storage_buffer(&b));
        let (a_value_buffer, b_value_buffer) =
            (storage_buffer(&a_values), storage_buffer(&b_values));
        // One scratch per merge in a submission.
        let scratch = gpu.create_scratch();
        let buffers = MergeBuffers {
            a: &a_buffer,
            a_len: m,
            b: &b_buffer,
            b_len: n,
            out: &out,
            values: Some(ValueBuffers {
                a: &a_value_buffer,
                b: &b_value_buffer,
                out: &out_values,
                value_size: 4,
            }),
        };
        gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &options(algorithm))
            .unwrap();
        let want = cpu::merge_pairs(&a, &a_values, &b, &b_values);
        jobs.push((algorithm, out, out_values, want, scratch));
    }
    gpu.queue().submit([encoder.finish()]);
    for (algorithm, out, out_values, (want_keys, want_values), _scratch) in jobs {
        let len = want_keys.len();
        assert_same(
            &read_buffer(&out, len),
            &want_keys,
            &format!("{algorithm:?} resident keys"),
        );
        assert_same(
            &read_buffer(&out_values, len),
            &want_values,
            &format!("{algorithm:?} resident values"),
        );
    }
}

#[test]
fn scratch_is_reusable_across_submissions() {
    let gpu = gpu();
    let scratch = gpu.create_scratch();
    for len in [10usize, 1000, 3] {
        let a: Vec<u32> = (0..len as u32).collect();
        let b: Vec<u32> = (0..len as u32).map(|x| x * 2).collect();
        let (a_buffer, b_buffer, out) = (
            storage_buffer(&a),
            storage_buffer(&b),
            storage_buffer(&vec![0; 2 * len]),
        );
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let buffers = MergeBuffers {
            a: &a_buffer,
            a_len: len,
            b: &b_buffer,
            b_len: len,
            out: &out,
            values: None,
        };
        gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &MergeOptions::default())
            .unwrap();
        gpu.queue().submit([encoder.finish()]);
        assert_same(
            &read_buffer(&out, 2 * len),
            &cpu::merge(&a, &b),
            "reused scratch",
        );
    }
}

#[test]
fn concurrent_merges_sorts_and_set_operations_from_many_threads() {
    let gpu = gpu();
    std::thread::scope(|scope| {
        for thread in 0..4 {
            scope.spawn(move || {
                let mut rng = rng(&format!("concurrent thread {thread}"));
                for round in 0..15 {
                    let algorithm = Algorithm::ALL[round % 4];
                    let m = rng.random_range(0..20_000);
                    let (a, b) = Shape::HeavyDuplicates.generate(&mut rng, m, 5000);
                    // Threads 2 and 3 merge through the async form, which the Gpu's poller
                    // thread drives while the others' blocking calls drive the device too.
                    let got = if thread >= 2 {
                        park_on(gpu.merge_async(&a, &b, &options(algorithm))).unwrap()
                    } else {
                        gpu.merge_with(&a, &b, &options(algorithm)).unwrap()
                    };
                    assert_same(&got, &cpu::merge(&a, &b), "concurrent merge");
                    // And a sort of the same keys, B's first, so it has work to do.
                    let keys: Vec<u32> = b.iter().chain(&a).copied().collect();
                    assert_same(&gpu.sort(&keys).unwrap(), &got, "concurrent sort");
                    // And a set operation on them.
                    let operation = wgmerge::SetOperation::ALL[(round + thread) % 4];
                    assert_same(
                        &gpu.set_operation(operation, &a, &b).unwrap(),
                        &cpu::set_operation(operation, &a, &b),
                        "concurrent set operation",
                    );
                }
            });
        }
    });
}

/// Long runs of tiles per workgroup, on every kernel. llvmpipe stops an invocation's loops after
/// about 65,535 iterations in all and silently leaves the rest of its work undone, so
/// `tiles_per_workgroup` is clamped to `most_tiles_per_workgroup`, and merge path's keys-only
/// workgroups, which take chunks of tiles while any are left, stop taking them there (without
/// that, two threads' workgroups would take about 1,000 tiles each here).
#[test]
fn many_tiles_per_workgroup() {
    let mut rng = rng("many_tiles_per_workgroup");
    let configs = [
        (32, 4, 4096, 4096),
        (32, 16, 1000, 2000),
        (32, 16, 2, 2000),
        (8, 64, 5, 500),
        (1, 1, 3, 4000),
    ];
    for algorithm in Algorithm::ALL {
        for (workgroup, items, tiles, tile_count) in configs {
            let options = shaped(algorithm, workgroup, items, tiles);
            let len = (workgroup * items) as usize * tile_count + 17;
            let (a, b) = Shape::Uniform.generate(&mut rng, len / 2, len - len / 2);
            let context = format!("{options:?} len={len}");
            check_merge(&a, &b, &options, &context);
            check_stable_pairs(&a, &b, &options, &context);
        }
    }
}
