//! CPU reference: the stable merge every GPU result is checked against.
//!
//! Stability rule (the book's): on equal keys the element of A comes first, and each input keeps
//! its own order.

/// Co-rank of output rank `k` in the stable merge of sorted `a` and `b`: the number of elements
/// of `a` among the first `k` outputs. Requires `k <= a.len() + b.len()`.
pub fn co_rank<K: PartialOrd>(k: usize, a: &[K], b: &[K]) -> usize {
    assert!(k <= a.len() + b.len(), "rank {k} beyond the merged length");
    let (mut lo, mut hi) = (k.saturating_sub(b.len()), k.min(a.len()));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if b[k - 1 - mid] < a[mid] {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Stable merge of two sorted slices.
pub fn merge<K: PartialOrd + Copy>(a: &[K], b: &[K]) -> Vec<K> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if b[j] < a[i] {
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

/// Stable merge of two sorted key slices, moving each key's value with it.
pub fn merge_pairs<K: PartialOrd + Copy, V: Copy>(
    a_keys: &[K],
    a_values: &[V],
    b_keys: &[K],
    b_values: &[V],
) -> (Vec<K>, Vec<V>) {
    assert_eq!(a_keys.len(), a_values.len());
    assert_eq!(b_keys.len(), b_values.len());
    let mut keys = Vec::with_capacity(a_keys.len() + b_keys.len());
    let mut values = Vec::with_capacity(keys.capacity());
    let (mut i, mut j) = (0, 0);
    while i < a_keys.len() || j < b_keys.len() {
        // B goes first only when strictly smaller: ties take A.
        let take_b = i == a_keys.len() || (j < b_keys.len() && b_keys[j] < a_keys[i]);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_take_a_first() {
        let (keys, values) =
            merge_pairs(&[1, 2, 2], &['a', 'b', 'c'], &[2, 2, 3], &['x', 'y', 'z']);
        assert_eq!(keys, [1, 2, 2, 2, 2, 3]);
        assert_eq!(values, ['a', 'b', 'c', 'x', 'y', 'z']);
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
}
