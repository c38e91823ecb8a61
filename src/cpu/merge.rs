//! The stable merge: the CPU mirror of the merge kernels (`merge_*.wgsl`).
//!
//! Stability rule (the book's): on equal keys the element of A comes first, and each input keeps
//! its own order.

use crate::key::{Key, Order};

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
