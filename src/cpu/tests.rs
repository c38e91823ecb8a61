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
