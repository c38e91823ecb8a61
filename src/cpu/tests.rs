//! Tests of the references themselves.

use super::*;
use crate::key::Order;
use crate::ops::SetOperation;

#[test]
fn ties_take_a_first() {
    let (keys, values) = merge_pairs(&[1, 2, 2], &['a', 'b', 'c'], &[2, 2, 3], &['x', 'y', 'z']);
    assert_eq!(keys, [1, 2, 2, 2, 2, 3]);
    assert_eq!(values, ['a', 'b', 'c', 'x', 'y', 'z']);
    let (keys, values) = merge_pairs_ordered(
        &[3, 2, 2],
        &['a', 'b', 'c'],
        &[2, 1],
        &['x', 'y'],
        Order::Descending,
    );
    assert_eq!(keys, [3, 2, 2, 2, 1]);
    assert_eq!(values, ['a', 'b', 'c', 'x', 'y']);
}

#[test]
fn co_rank_splits_the_merge_at_every_rank() {
    let a = [1, 3, 3, 5, 7];
    let b = [2, 3, 3, 4, 8, 9];
    let merged = merge(&a, &b);
    for k in 0..=merged.len() {
        let i = co_rank(k, &a, &b);
        let j = k - i;
        let mut prefix = merge(&a[..i], &b[..j]);
        prefix.sort();
        let mut expect = merged[..k].to_vec();
        expect.sort();
        assert_eq!(prefix, expect, "rank {k}");
        // The book's conditions.
        assert!(i == 0 || j == b.len() || a[i - 1] <= b[j]);
        assert!(j == 0 || i == a.len() || b[j - 1] < a[i]);
    }
}

/// Ascending on even rounds, descending on odd ones, where the ascending runs `a` and `b` are
/// reversed to match.
fn order_of_round(round: usize, a: &mut [u32], b: &mut [u32]) -> Order {
    if round.is_multiple_of(2) {
        return Order::Ascending;
    }
    a.reverse();
    b.reverse();
    Order::Descending
}

/// The co-rank at every rank is the number of A's elements among the first k outputs of the
/// stable merge, read off a sequential merge of tagged elements: random runs of every shape
/// (empty, one key, all keys equal, one input wholly before the other, heavy ties), both orders.
/// On unsorted input it stays within the bounds rank k allows.
#[test]
fn co_rank_counts_a_in_every_prefix_of_the_stable_merge() {
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(246);
    for round in 0..400 {
        let top = [1, 2, 5, 1000][round % 4];
        let mut run = |len_max: usize| {
            let len = rng.random_range(0..=len_max);
            let mut keys: Vec<u32> = (0..len).map(|_| rng.random_range(0..top)).collect();
            keys.sort_unstable();
            keys
        };
        let (mut a, mut b) = (run(40), run(40));
        if round % 5 == 0 {
            // One input wholly before the other: B's keys above A's (B after A ascending,
            // before it descending).
            b.iter_mut().for_each(|key| *key += top);
        }
        let order = order_of_round(round, &mut a, &mut b);
        let (_, from_a) =
            merge_pairs_ordered(&a, &vec![true; a.len()], &b, &vec![false; b.len()], order);
        let mut in_a = 0;
        for k in 0..=from_a.len() {
            assert_eq!(
                co_rank_ordered(k, &a, &b, order),
                in_a,
                "round {round}, rank {k}"
            );
            in_a += usize::from(from_a.get(k) == Some(&true));
        }
        a.shuffle(&mut rng);
        b.shuffle(&mut rng);
        let total = a.len() + b.len();
        for k in 0..=total + 2 {
            let i = co_rank_ordered(k, &a, &b, order);
            let k = k.min(total);
            assert!(
                i >= k.saturating_sub(b.len()) && i <= k.min(a.len()),
                "round {round}"
            );
        }
    }
}

#[test]
fn set_operations_follow_the_standard_library() {
    // 1 twice in A, three times in B; 2 only in A; 3 once in each; 4 only in B.
    let a = [1, 1, 2, 3];
    let b = [1, 1, 1, 3, 4];
    let op = |operation| set_operation(operation, &a, &b);
    assert_eq!(op(SetOperation::Union), [1, 1, 1, 2, 3, 4]);
    assert_eq!(op(SetOperation::Intersection), [1, 1, 3]);
    assert_eq!(op(SetOperation::Difference), [2]);
    assert_eq!(op(SetOperation::SymmetricDifference), [1, 2, 4]);
    // Which copies: union takes A's and then B's last; descending works alike.
    let (keys, values) = set_operation_pairs_ordered(
        SetOperation::Union,
        &[3, 1, 1],
        &['a', 'b', 'c'],
        &[2, 1, 1, 1],
        &['w', 'x', 'y', 'z'],
        Order::Descending,
    );
    assert_eq!(keys, [3, 2, 1, 1, 1]);
    assert_eq!(values, ['a', 'w', 'b', 'c', 'z']);
}

#[test]
fn merge_handles_empty_sides() {
    assert_eq!(merge::<u32>(&[], &[]), Vec::<u32>::new());
    assert_eq!(merge(&[1, 2], &[]), [1, 2]);
    assert_eq!(merge(&[], &[1, 2]), [1, 2]);
}

#[test]
fn sorting_and_checking_follow_the_order() {
    let mut keys = [0.0f32, -0.0, f32::NAN, -1.0];
    sort_ordered(&mut keys, Order::Descending);
    assert!(keys[0].is_nan() && keys[1] == 0.0 && keys[2] == 0.0 && keys[3] == -1.0);
    assert!(keys[1].is_sign_positive() && keys[2].is_sign_negative());
    assert_eq!(first_unsorted(&keys, Order::Descending), None);
    assert_eq!(first_unsorted(&[1, 2, 1], Order::Ascending), Some(2));
}

/// Cut at balanced-path splits, a set operation's pieces give the whole result, copies and
/// order included: the property `set.wgsl` rests on (its tiles and its invocations' parts are
/// such pieces). Runs of equal keys of every mix of lengths, every operation, both orders.
#[test]
fn pieces_cut_on_the_balanced_path_give_the_whole_result() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(22);
    for round in 0..300 {
        let keys = |rng: &mut rand::rngs::StdRng| {
            let len = rng.random_range(0..60);
            let top = rng.random_range(1..12);
            let mut keys: Vec<u32> = (0..len).map(|_| rng.random_range(0..top)).collect();
            keys.sort_unstable();
            keys
        };
        let (mut a, mut b) = (keys(&mut rng), keys(&mut rng));
        let order = order_of_round(round, &mut a, &mut b);
        let (a_values, b_values): (Vec<usize>, Vec<usize>) =
            ((0..a.len()).collect(), (100..100 + b.len()).collect());
        let total = a.len() + b.len();
        // Splits at every rank, and at a random few (pieces of many lengths).
        let spacing = rng.random_range(1..8);
        for ranks in [
            (0..=total).collect::<Vec<_>>(),
            (0..=total).step_by(spacing).collect(),
        ] {
            let mut splits: Vec<(usize, usize)> = ranks
                .iter()
                .map(|&k| balanced_path_ordered(k, &a, &b, order))
                .collect();
            splits.push((a.len(), b.len()));
            for (k, &(i, j)) in ranks.iter().zip(&splits) {
                assert!(
                    i + j == *k || i + j == k + 1,
                    "round {round}: rank {k} split {i}+{j}"
                );
            }
            for operation in SetOperation::ALL {
                let whole =
                    set_operation_pairs_ordered(operation, &a, &a_values, &b, &b_values, order);
                let (mut keys, mut values) = (Vec::new(), Vec::new());
                for pair in splits.windows(2) {
                    let ((i0, j0), (i1, j1)) = (pair[0], pair[1]);
                    assert!(i0 <= i1 && j0 <= j1, "round {round}: splits run backwards");
                    let (k, v) = set_operation_pairs_ordered(
                        operation,
                        &a[i0..i1],
                        &a_values[i0..i1],
                        &b[j0..j1],
                        &b_values[j0..j1],
                        order,
                    );
                    keys.extend(k);
                    values.extend(v);
                }
                assert_eq!(
                    (keys, values),
                    whole,
                    "round {round} {operation:?} {a:?} {b:?}"
                );
            }
        }
    }
}

/// Merge path's splits alone are not such cuts: a pair split across pieces changes the result.
#[test]
fn pieces_cut_on_merge_path_can_part_a_pair() {
    let (a, b) = ([5u32, 5], [5u32, 5]);
    // Merge path at rank 2 takes both copies in A: the pieces each see one input's copies.
    assert_eq!(co_rank(2, &a, &b), 2);
    assert_eq!(balanced_path_ordered(2, &a, &b, Order::Ascending), (1, 1));
    let whole = set_operation(SetOperation::Intersection, &a, &b);
    let pieces = [
        set_operation(SetOperation::Intersection, &a[..2], &b[..0]),
        set_operation(SetOperation::Intersection, &a[2..], &b[0..]),
    ]
    .concat();
    assert_eq!(whole, [5, 5]);
    assert!(pieces.is_empty());
}
