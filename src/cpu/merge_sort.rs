//! Stable sorts: the CPU mirror of `merge_sort.wgsl` with merge path's passes (and of every
//! sort's result, which is the stable sort's whatever the algorithm).

use super::compare;
use crate::key::{Key, Order};

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
