//! Sorted search's reference: `slice::partition_point` in the keys' order.

use crate::{Bound, Key, Order};

/// For each needle, the index at which it would go in the sorted `haystack`: the first index
/// whose key is not before it (`Bound::Lower`) or the first whose key is after it
/// (`Bound::Upper`), in `order`.
pub fn search_sorted<K: Key>(
    haystack: &[K],
    needles: &[K],
    bound: Bound,
    order: Order,
) -> Vec<u32> {
    needles
        .iter()
        .map(|needle| {
            let at = match bound {
                Bound::Lower => haystack.partition_point(|h| h.before(needle, order)),
                Bound::Upper => haystack.partition_point(|h| !needle.before(h, order)),
            };
            at as u32
        })
        .collect()
}
