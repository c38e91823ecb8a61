//! Set operations on sorted multisets: the CPU mirror of `set.wgsl`.

use super::compare;
use crate::key::{Key, Order};
use crate::ops::SetOperation;

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
