//! The sortedness check: the CPU mirror of `validate.wgsl`.

use crate::key::{Key, Order};

/// The first index `i` with `keys[i]` strictly before `keys[i - 1]` in `order`, if any.
pub fn first_unsorted<K: Key>(keys: &[K], order: Order) -> Option<usize> {
    keys.windows(2)
        .position(|w| w[1].before(&w[0], order))
        .map(|i| i + 1)
}
