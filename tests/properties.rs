//! Property tests: any sorted inputs, any supported configuration, same answer as the CPU.

mod common;

use common::*;
use proptest::prelude::*;
use wgmerge::{Algorithm, MergeOptions};

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
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

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
}
