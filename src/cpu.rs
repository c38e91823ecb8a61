//! CPU reference: the stable merge every GPU result is checked against.
//!
//! Stability rule (the book's): on equal keys the element of A comes first, and each input keeps
//! its own order. Keys compare as [`Key`] says (`f32` by `total_cmp`); the `_ordered` forms take
//! an [`Order`], the others are ascending.

use crate::key::{Key, Order};
use crate::set::SetOperation;

/// Co-rank of output rank `k` in the stable ascending merge of sorted `a` and `b`: the number
/// of elements of `a` among the first `k` outputs.
pub fn co_rank<K: Key>(k: usize, a: &[K], b: &[K]) -> usize {
    co_rank_ordered(k, a, b, Order::Ascending)
}

/// [`co_rank`] for inputs sorted in `order`. For `k` beyond `a.len() + b.len()` the answer is
/// clamped to `a.len()`; on unsorted input it is some number within bounds.
pub fn co_rank_ordered<K: Key>(k: usize, a: &[K], b: &[K], order: Order) -> usize {
    let k = k.min(a.len() + b.len());
    let (mut lo, mut hi) = (k.saturating_sub(b.len()), k.min(a.len()));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if b[k - 1 - mid].before(&a[mid], order) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Stable ascending merge of two sorted slices.
pub fn merge<K: Key>(a: &[K], b: &[K]) -> Vec<K> {
    merge_ordered(a, b, Order::Ascending)
}

/// Stable merge of two slices sorted in `order`.
pub fn merge_ordered<K: Key>(a: &[K], b: &[K], order: Order) -> Vec<K> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        // B goes first only when strictly before: ties take A.
        if b[j].before(&a[i], order) {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Stable ascending merge of two sorted key slices, moving each key's value with it.
pub fn merge_pairs<K: Key, V: Copy>(
    a_keys: &[K],
    a_values: &[V],
    b_keys: &[K],
    b_values: &[V],
) -> (Vec<K>, Vec<V>) {
    merge_pairs_ordered(a_keys, a_values, b_keys, b_values, Order::Ascending)
}

/// [`merge_pairs`] for keys sorted in `order`.
///
/// # Panics
/// If an input's keys and values differ in length.
pub fn merge_pairs_ordered<K: Key, V: Copy>(
    a_keys: &[K],
    a_values: &[V],
    b_keys: &[K],
    b_values: &[V],
    order: Order,
) -> (Vec<K>, Vec<V>) {
    assert_eq!(a_keys.len(), a_values.len());
    assert_eq!(b_keys.len(), b_values.len());
    let mut keys = Vec::with_capacity(a_keys.len() + b_keys.len());
    let mut values = Vec::with_capacity(keys.capacity());
    let (mut i, mut j) = (0, 0);
    while i < a_keys.len() || j < b_keys.len() {
        let take_b = i == a_keys.len() || (j < b_keys.len() && b_keys[j].before(&a_keys[i], order));
        if take_b {
            keys.push(b_keys[j]);
            values.push(b_values[j]);
            j += 1;
        } else {
            keys.push(a_keys[i]);
            values.push(a_values[i]);
            i += 1;
        }
    }
    (keys, values)
}

/// How `x` compares with `y` in `order` (equal keys, NaNs of one sign included, are `Equal`).
fn compare<K: Key>(x: &K, y: &K, order: Order) -> std::cmp::Ordering {
    match (x.before(y, order), y.before(x, order)) {
        (true, _) => std::cmp::Ordering::Less,
        (_, true) => std::cmp::Ordering::Greater,
        _ => std::cmp::Ordering::Equal,
    }
}

/// Sorts `keys` stably in `order`.
pub fn sort_ordered<K: Key>(keys: &mut [K], order: Order) {
    keys.sort_by(|x, y| compare(x, y, order));
}

/// Sorts keys and their values together, stably in `order`: equal keys keep their values'
/// input order.
pub fn sort_pairs_ordered<K: Key, V: Copy>(
    keys: &[K],
    values: &[V],
    order: Order,
) -> (Vec<K>, Vec<V>) {
    let mut pairs: Vec<(K, V)> = keys.iter().copied().zip(values.iter().copied()).collect();
    pairs.sort_by(|x, y| compare(&x.0, &y.0, order));
    pairs.into_iter().unzip()
}

/// The first index `i` with `keys[i]` strictly before `keys[i - 1]` in `order`, if any.
pub fn first_unsorted<K: Key>(keys: &[K], order: Order) -> Option<usize> {
    keys.windows(2)
        .position(|w| w[1].before(&w[0], order))
        .map(|i| i + 1)
}

/// `operation` on two ascending sorted slices (see [`SetOperation`] for the rule).
pub fn set_operation<K: Key>(operation: SetOperation, a: &[K], b: &[K]) -> Vec<K> {
    set_operation_ordered(operation, a, b, Order::Ascending)
}

/// [`set_operation`] for slices sorted in `order`.
pub fn set_operation_ordered<K: Key>(
    operation: SetOperation,
    a: &[K],
    b: &[K],
    order: Order,
) -> Vec<K> {
    set_operation_pairs_ordered(operation, a, a, b, b, order).0
}

/// `operation` on sorted keys with values: each kept key brings its value.
///
/// # Panics
/// If an input's keys and values differ in length.
pub fn set_operation_pairs_ordered<K: Key, V: Copy>(
    operation: SetOperation,
    a_keys: &[K],
    a_values: &[V],
    b_keys: &[K],
    b_values: &[V],
    order: Order,
) -> (Vec<K>, Vec<V>) {
    assert_eq!(a_keys.len(), a_values.len());
    assert_eq!(b_keys.len(), b_values.len());
    let (mut keys, mut values) = (Vec::new(), Vec::new());
    let mut take = |source_keys: &[K], source_values: &[V], range: std::ops::Range<usize>| {
        keys.extend_from_slice(&source_keys[range.clone()]);
        values.extend_from_slice(&source_values[range]);
    };
    let (mut i, mut j) = (0, 0);
    // One key at a time, the first in order among A's and B's next: its copies are A[i..i_end)
    // and B[j..j_end) (either may be empty).
    while i < a_keys.len() || j < b_keys.len() {
        let key = if j == b_keys.len() || (i < a_keys.len() && !b_keys[j].before(&a_keys[i], order))
        {
            a_keys[i]
        } else {
            b_keys[j]
        };
        let run = |keys: &[K], start: usize| {
            start
                + keys[start..]
                    .iter()
                    .take_while(|&k| compare(k, &key, order).is_eq())
                    .count()
        };
        let (i_end, j_end) = (run(a_keys, i), run(b_keys, j));
        let (m, n) = (i_end - i, j_end - j);
        match operation {
            SetOperation::Union => {
                take(a_keys, a_values, i..i_end);
                take(b_keys, b_values, (j + m).min(j_end)..j_end);
            }
            SetOperation::Intersection => take(a_keys, a_values, i..i + m.min(n)),
            SetOperation::Difference => take(a_keys, a_values, (i + n).min(i_end)..i_end),
            SetOperation::SymmetricDifference => {
                take(a_keys, a_values, (i + n).min(i_end)..i_end);
                take(b_keys, b_values, (j + m).min(j_end)..j_end);
            }
        }
        (i, j) = (i_end, j_end);
    }
    (keys, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_take_a_first() {
        let (keys, values) =
            merge_pairs(&[1, 2, 2], &['a', 'b', 'c'], &[2, 2, 3], &['x', 'y', 'z']);
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
}
