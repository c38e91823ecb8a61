//! Sorted search against `partition_point`: every key type, both orders and bounds, needles
//! below, above, between and equal to the haystack's keys, sorted and unsorted needles, empty
//! sides, and the encoder form.

mod common;

use common::*;
use rand::seq::SliceRandom;
use rand::Rng;
use wgmerge::{cpu, Bound, Order, SearchBuffers, SearchOptions};

fn check<K: TestKey>(haystack: &[K], needles: &[K], options: &SearchOptions, context: &str) {
    let got = gpu()
        .search_sorted_with(haystack, needles, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let want = cpu::search_sorted(haystack, needles, options.bound, options.order);
    assert_same(&got, &want, context);
}

fn every_shape<K: TestKey>() {
    let mut rng = rng(&format!("search_sorted::<{}>", K::TYPE.name()));
    for order in [Order::Ascending, Order::Descending] {
        for bound in [Bound::Lower, Bound::Upper] {
            let options = SearchOptions { bound, order };
            for (h, n) in [
                (0, 5),
                (5, 0),
                (1, 1),
                (300, 1000),
                (10_000, 3_001),
                (70_001, 512),
                (1279, 1281),
                (64, 2560),
            ] {
                for shape in Shape::ALL {
                    // Haystack and needles drawn as one merge input's two sides, so needles fall
                    // below, above, between and on the haystack's keys as the shape has it.
                    let (haystack, needles) = shape.keys::<K>(&mut rng, h, n, order);
                    let context =
                        format!("{} {order:?} {bound:?} {shape:?} {h}/{n}", K::TYPE.name());
                    check(&haystack, &needles, &options, &format!("{context} sorted"));
                    let mut shuffled = needles.clone();
                    shuffled.shuffle(&mut rng);
                    check(
                        &haystack,
                        &shuffled,
                        &options,
                        &format!("{context} shuffled"),
                    );
                }
            }
        }
    }
}

every_key_type!(every_shape);

/// On a device with 4 KiB bindings (1024 u32 keys) needles go in pieces and a longer haystack in
/// chunks whose answers add up: both orders and bounds, runs of equal keys across chunks.
#[test]
fn beyond_one_binding() {
    let small = gpu_with_binding_limit(4096);
    let mut rng = rng("search_sorted::beyond_one_binding");
    for order in [Order::Ascending, Order::Descending] {
        for bound in [Bound::Lower, Bound::Upper] {
            let options = SearchOptions { bound, order };
            for (h, n) in [(3000, 100), (100, 2500), (3000, 2500), (0, 2000)] {
                for shape in [Shape::Uniform, Shape::HeavyDuplicates, Shape::AllEqual] {
                    let (haystack, mut needles) = shape.keys::<u32>(&mut rng, h, n, order);
                    needles.shuffle(&mut rng);
                    let context = format!("{order:?} {bound:?} {shape:?} {h}/{n}");
                    let got = small
                        .search_sorted_with(&haystack, &needles, &options)
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                    let want = cpu::search_sorted(&haystack, &needles, bound, order);
                    assert_same(&got, &want, &context);
                }
            }
        }
    }
}

/// An unsorted haystack gives unspecified indices, but each within `0..=haystack.len()`, for
/// sorted and shuffled needles alike (the tiles check only the needles' order: sorted needles'
/// answers stand as the merge gives them, shuffled ones' are checked and searched again).
#[test]
fn unsorted_haystack_stays_in_bounds() {
    let mut rng = rng("search_sorted::unsorted_haystack");
    for (h, n) in [(1000, 5000), (70_001, 80_000)] {
        let haystack: Vec<u32> = (0..h).map(|_| rng.random_range(0..1000)).collect();
        let mut needles: Vec<u32> = (0..n).map(|_| rng.random_range(0..1000)).collect();
        for sorted in [false, true] {
            if sorted {
                needles.sort_unstable();
            }
            for bound in [Bound::Lower, Bound::Upper] {
                let got = gpu().search_sorted(&haystack, &needles, bound).unwrap();
                assert_eq!(got.len(), n);
                let out = got.iter().position(|&i| i as usize > h);
                assert_eq!(out, None, "{h} {n} sorted {sorted} {bound:?}: {out:?}");
            }
        }
    }
}

/// Needles in two sorted runs, and in reverse: the merge-path tiles place the needles of some
/// tiles right and must binary-search the rest, each needle answered once at least.
#[test]
fn needles_partly_sorted() {
    let mut rng = rng("search_sorted::partly");
    for bound in [Bound::Lower, Bound::Upper] {
        let options = SearchOptions {
            bound,
            ..Default::default()
        };
        let (haystack, needles) =
            Shape::HeavyDuplicates.keys::<u32>(&mut rng, 200_003, 100_000, Order::Ascending);
        let (first, second) = needles.split_at(37_000);
        let two_runs: Vec<u32> = second.iter().chain(first).copied().collect();
        check(
            &haystack,
            &two_runs,
            &options,
            &format!("{bound:?} two runs"),
        );
        let reversed: Vec<u32> = needles.iter().rev().copied().collect();
        check(
            &haystack,
            &reversed,
            &options,
            &format!("{bound:?} reversed"),
        );
    }
}

/// Over 2^24 keys: sorted needles, and the same with one pair of neighbours swapped deep inside
/// (one tile of thousands finds them out of order, and every answer is checked).
#[test]
fn long_searches() {
    let mut rng = rng("search_sorted::long");
    let (haystack, needles) = Shape::HeavyDuplicates.keys::<u32>(
        &mut rng,
        (1 << 23) + 12_345,
        (1 << 23) + 777,
        Order::Ascending,
    );
    for bound in [Bound::Lower, Bound::Upper] {
        let options = SearchOptions {
            bound,
            ..Default::default()
        };
        check(&haystack, &needles, &options, &format!("{bound:?} sorted"));
        let at = (needles.len() / 3..needles.len())
            .find(|&i| needles[i] != needles[i + 1])
            .unwrap();
        check_swapped(&haystack, &needles, at, &options);
    }
}

/// `check` with needles `at` and `at + 1` swapped.
fn check_swapped(haystack: &[u32], needles: &[u32], at: usize, options: &SearchOptions) {
    let mut swapped = needles.to_vec();
    swapped.swap(at, at + 1);
    let context = format!("{:?} swapped at {at}", options.bound);
    check(haystack, &swapped, options, &context);
}

/// Sorted needles with one pair of neighbours swapped, at each of many places (invocation and
/// tile boundaries among them), every needle with a haystack key between it and the next: each
/// tile must find its own swap, or that needle's answer is wrong.
#[test]
fn one_swapped_pair_anywhere() {
    let mut rng = rng("search_sorted::one_swap");
    let h = 6000u32;
    // The even numbers below 2h, and needles among the odd ones.
    let haystack: Vec<u32> = (0..h).map(|i| 2 * i).collect();
    let mut needles: Vec<u32> = (0..5000).map(|_| 2 * rng.random_range(0..h) + 1).collect();
    needles.sort_unstable();
    needles.dedup();
    let mut places: Vec<usize> = vec![0, 1, 6, 7, 10, 11, 21, 22, 1792, 2815, 2816, 2817];
    places.extend((0..12).map(|_| rng.random_range(0..needles.len() - 1)));
    places.push(needles.len() - 2);
    for bound in [Bound::Lower, Bound::Upper] {
        let options = SearchOptions {
            bound,
            ..Default::default()
        };
        for &at in &places {
            check_swapped(&haystack, &needles, at, &options);
        }
    }
}

#[test]
fn simple_cases_and_the_encoder_form() {
    let gpu = gpu();
    let haystack = [1u32, 3, 3, 3, 7];
    let needles = [0u32, 1, 3, 4, 7, 9];
    assert_eq!(
        gpu.search_sorted(&haystack, &needles, Bound::Lower)
            .unwrap(),
        [0, 0, 1, 4, 4, 5]
    );
    assert_eq!(
        gpu.search_sorted(&haystack, &needles, Bound::Upper)
            .unwrap(),
        [0, 1, 4, 4, 5, 5]
    );
    let mut rng = rng("search_sorted::resident");
    let mut keys: Vec<u32> = (0..50_000).map(|_| rng.random_range(0..10_000)).collect();
    keys.sort_unstable();
    let needles: Vec<u32> = (0..20_000).map(|_| rng.random_range(0..11_000)).collect();
    let [h, n, out] = [&keys, &needles, &needles].map(|data| storage_buffer(data));
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let buffers = SearchBuffers {
        haystack: &h,
        haystack_len: keys.len(),
        needles: &n,
        needles_len: needles.len(),
        out: &out,
    };
    let options = SearchOptions {
        bound: Bound::Upper,
        ..Default::default()
    };
    gpu.encode_search_sorted::<u32>(&mut encoder, &gpu.create_scratch(), &buffers, &options)
        .unwrap();
    gpu.queue().submit([encoder.finish()]);
    let want = cpu::search_sorted(&keys, &needles, Bound::Upper, Order::Ascending);
    assert_eq!(read_buffer(&out, needles.len()), want);
}
