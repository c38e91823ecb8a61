//! Stable sorts and the sortedness check: the CPU mirrors of `merge_sort.wgsl` with merge path's
//! passes, and of `validate.wgsl`.

use crate::key::{Key, Order};

/// How `x` compares with `y` in `order` (equal keys, NaNs of one sign included, are `Equal`).
pub(crate) fn compare<K: Key>(x: &K, y: &K, order: Order) -> std::cmp::Ordering {
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
