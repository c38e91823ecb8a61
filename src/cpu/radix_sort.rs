//! Radix sort's reference: a stable sort on a range of bits of each key's order-preserving bit
//! pattern, as `radix_sort.wgsl` sorts.

use std::ops::Range;

use crate::{Key, Order};

/// The bits `bits` of `key`'s [`Key::order_bits`], as a number.
pub fn key_bits<K: Key>(key: K, bits: &Range<u32>) -> u64 {
    let width = bits.end.saturating_sub(bits.start);
    if width == 0 {
        return 0;
    }
    let shifted = key.order_bits() >> bits.start;
    if width >= 64 {
        shifted
    } else {
        shifted & ((1u64 << width) - 1)
    }
}

/// `keys` and `values` stably sorted on the bits `bits` of each key's order-preserving pattern,
/// in `order`: keys equal on those bits keep their input order.
pub fn radix_sort_pairs_ordered<K: Key, V: Copy>(
    keys: &[K],
    values: &[V],
    bits: Range<u32>,
    order: Order,
) -> (Vec<K>, Vec<V>) {
    let mut pairs: Vec<(K, V)> = keys.iter().copied().zip(values.iter().copied()).collect();
    pairs.sort_by(|(x, _), (y, _)| {
        let (x, y) = (key_bits(*x, &bits), key_bits(*y, &bits));
        match order {
            Order::Ascending => x.cmp(&y),
            Order::Descending => y.cmp(&x),
        }
    });
    pairs.into_iter().unzip()
}
