//! The host's co-rank: the CPU mirror of `partition.wgsl`'s search, and what the slice forms cut
//! their pieces with.

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
    // The answer is one of `candidates` indices from `base`; each step halves the candidates
    // whatever its probe finds, as co_rank.wgsl's search does.
    let (mut base, hi) = (k.saturating_sub(b.len()), k.min(a.len()));
    let mut candidates = hi - base + 1;
    while candidates > 1 {
        let half = candidates / 2;
        let at = base + half - 1;
        if !b[k - 1 - at].before(&a[at], order) {
            base += half;
        }
        candidates -= half;
    }
    base
}
