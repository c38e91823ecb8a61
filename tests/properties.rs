//! Property tests: any sorted inputs, any supported configuration, same answer as the CPU.

mod common;

use common::*;
use proptest::prelude::*;
use wgmerge::{
    cpu, Algorithm, MergeOptions, Order, SetOperation, SetOptions, SortAlgorithm, SortOptions,
};

fn sorted_vec(max_len: usize, key_range: u32) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(0..key_range, 0..max_len).prop_map(|mut v| {
        v.sort_unstable();
        v
    })
}

fn merge_options() -> impl Strategy<Value = MergeOptions> {
    (
        prop::sample::select(Algorithm::ALL.to_vec()),
        prop::sample::select(vec![1u32, 2, 3, 8, 32, 64, 100, 128, 256]),
        1u32..=12,
        1u32..=5,
    )
        .prop_map(|(algorithm, workgroup, items, tiles)| MergeOptions {
            algorithm,
            workgroup_size: Some(workgroup),
            items_per_thread: Some(items),
            tiles_per_workgroup: Some(tiles),
            ..Default::default()
        })
}

/// Ranks mapped to key type `K` in `order`, then checked as pairs with 8-byte provenance.
fn check_typed<K: TestKey>(a: &[u32], b: &[u32], options: &MergeOptions) {
    let keys = |ranks: &[u32]| {
        let mut keys: Vec<K> = ranks.iter().map(|&r| K::from_rank(r)).collect();
        if options.order == Order::Descending {
            keys.reverse();
        }
        keys
    };
    let context = format!("{} {options:?}", K::TYPE.name());
    check_stable_pairs_on::<K, u64>(gpu(), &keys(a), &keys(b), options, &context);
}

proptest! {
    // 200 cases each by default; PROPTEST_CASES asks for more.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(200),
        ..ProptestConfig::default()
    })]

    #[test]
    fn keys_match_the_reference(a in sorted_vec(3000, 1000), b in sorted_vec(3000, 1000), options in merge_options()) {
        check_merge(&a, &b, &options, &format!("{options:?}"));
    }

    #[test]
    fn pairs_are_stable(a in sorted_vec(3000, 50), b in sorted_vec(3000, 50), options in merge_options()) {
        check_stable_pairs(&a, &b, &options, &format!("{options:?}"));
    }

    #[test]
    fn wide_keys_match_the_reference(a in sorted_vec(500, u32::MAX), b in sorted_vec(500, u32::MAX), options in merge_options()) {
        check_merge(&a, &b, &options, &format!("{options:?}"));
    }

    #[test]
    fn every_key_type_and_order(
        a in sorted_vec(2000, u32::MAX),
        b in sorted_vec(2000, 64),
        options in merge_options(),
        key in 0usize..5,
        descending: bool,
        swap: bool,
    ) {
        let (a, b) = if swap { (b, a) } else { (a, b) };
        let options = MergeOptions {
            order: if descending { Order::Descending } else { Order::Ascending },
            // 64-bit keys need twice the workgroup memory: stay within every adapter's.
            items_per_thread: options.items_per_thread.map(|i| i.min(6)),
            ..options
        };
        match key {
            0 => check_typed::<u32>(&a, &b, &options),
            1 => check_typed::<i32>(&a, &b, &options),
            2 => check_typed::<f32>(&a, &b, &options),
            3 => check_typed::<u64>(&a, &b, &options),
            _ => check_typed::<i64>(&a, &b, &options),
        }
    }

    #[test]
    fn sort_is_the_stable_sort(
        keys in prop::collection::vec(0u32..500, 0..5000),
        workgroup in prop::sample::select(vec![1u32, 2, 8, 32, 100, 256]),
        items in 1u32..=8,
        descending: bool,
        // Pieces sorted, then merged, where the input is longer.
        max_piece_len in prop::option::of(500usize..6000),
    ) {
        let options = SortOptions {
            order: if descending { Order::Descending } else { Order::Ascending },
            algorithm: SortAlgorithm::Merge,
            workgroup_size: Some(workgroup),
            items_per_thread: Some(items),
            max_piece_len,
            ..Default::default()
        };
        let values: Vec<u32> = (0..keys.len() as u32).collect();
        let got = gpu().sort_pairs_with(&keys, &values, &options).unwrap();
        let want = cpu::sort_pairs_ordered(&keys, &values, options.order);
        prop_assert!(got == want, "{options:?}: differs from the CPU's stable sort");
    }

    #[test]
    fn radix_sort_is_the_stable_sort_on_its_bits(
        keys in prop::collection::vec(any::<u64>(), 0..5000),
        start in 0u32..64,
        width in 0u32..=64,
        descending: bool,
    ) {
        let bits = start..(start + width).min(64);
        let options = SortOptions {
            order: if descending { Order::Descending } else { Order::Ascending },
            bits: Some(bits.clone()),
            ..Default::default()
        };
        let values: Vec<u32> = (0..keys.len() as u32).collect();
        let got = gpu().sort_pairs_with(&keys, &values, &options).unwrap();
        let want = cpu::radix_sort_pairs_ordered(&keys, &values, bits, options.order);
        prop_assert!(got == want, "{options:?}: differs from the CPU's stable sort on those bits");
    }

    #[test]
    fn set_operations_match_the_reference(
        a in sorted_vec(3000, 300),
        b in sorted_vec(3000, 300),
        operation in prop::sample::select(SetOperation::ALL.to_vec()),
        descending: bool,
    ) {
        let order = if descending { Order::Descending } else { Order::Ascending };
        let (mut a, mut b) = (a, b);
        if descending {
            a.reverse();
            b.reverse();
        }
        let options = SetOptions { order, ..Default::default() };
        let a_values: Vec<u32> = (0..a.len()).map(|i| provenance(false, i)).collect();
        let b_values: Vec<u32> = (0..b.len()).map(|i| provenance(true, i)).collect();
        let got = gpu()
            .set_operation_pairs_with(operation, &a, &a_values, &b, &b_values, &options)
            .unwrap();
        let want = cpu::set_operation_pairs_ordered(operation, &a, &a_values, &b, &b_values, order);
        prop_assert!(got == want, "{operation:?} {options:?}: differs from the CPU");
    }
}
