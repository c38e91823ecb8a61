//! The key filter's reference: the elements of A whose key occurs nowhere in B.

use crate::{Key, Order};

/// The pairs of A whose key is in no element of the sorted `b` (keys equal as their order
/// says), in A's order.
pub fn difference_by_key_pairs<K: Key, V: Copy>(
    a_keys: &[K],
    a_values: &[V],
    b: &[K],
    order: Order,
) -> (Vec<K>, Vec<V>) {
    let occurs = |key: &K| {
        let at = b.partition_point(|x| x.before(key, order));
        at < b.len() && !key.before(&b[at], order)
    };
    a_keys
        .iter()
        .zip(a_values)
        .filter(|(key, _)| !occurs(key))
        .map(|(&key, &value)| (key, value))
        .unzip()
}
