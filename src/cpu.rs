//! CPU reference: the stable merge every GPU result is checked against.
//!
//! Stability rule (the book's): on equal keys the element of A comes first, and each input keeps
//! its own order. Keys compare as [`Key`] says (`f32` by `total_cmp`); the `_ordered` forms take
//! an [`Order`], the others are ascending.

use crate::key::{Key, Order};

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
