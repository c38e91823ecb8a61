//! The balanced path: the CPU mirror of `lib/balanced_path.wgsl`, which set operations cut their
//! tiles and each invocation's part with.

use super::partition::co_rank_ordered;
use crate::key::{Key, Order};

/// Where the balanced path crosses output rank `k` of the merge of `a` and `b` sorted in
/// `order`: merge path's split there (`co_rank_ordered`), moved within the run of keys equal to
/// `b[j]` so that `a`'s r-th copy of a key and `b`'s r-th copy lie on the same side. Returns the
/// elements of `a` and of `b` before it: `k` in all, or `k + 1` where the split takes the copy
/// in `b` that completes a pair. Within bounds whatever the input.
pub fn balanced_path_ordered<K: Key>(k: usize, a: &[K], b: &[K], order: Order) -> (usize, usize) {
    let k = k.min(a.len() + b.len());
    let i = co_rank_ordered(k, a, b, order);
    balanced_split(i, k - i, a, b, order)
}

/// `lib/balanced_path.wgsl`'s `balanced_split` of merge path's split (i, j).
fn balanced_split<K: Key>(i: usize, j: usize, a: &[K], b: &[K], order: Order) -> (usize, usize) {
    let Some(&key) = b.get(j) else {
        return (i, j);
    };
    let equal = |x: &K| !x.before(&key, order) && !key.before(x, order);
    // Copies of the key before the split, and in all, in each input (the run around the split).
    let a_before = a[..i].iter().rev().take_while(|x| equal(x)).count();
    let b_before = b[..j].iter().rev().take_while(|x| equal(x)).count();
    let a_copies = a_before + a[i..].iter().take_while(|x| equal(x)).count();
    let b_copies = b_before + b[j..].iter().take_while(|x| equal(x)).count();
    let taken = a_before + b_before;
    let pairs = a_copies.min(b_copies);
    let (a_take, b_take) = if taken <= 2 * pairs {
        (taken.div_ceil(2), taken.div_ceil(2))
    } else if a_copies > b_copies {
        (taken - b_copies, b_copies)
    } else {
        (a_copies, taken - a_copies)
    };
    (i - a_before + a_take, j - b_before + b_take)
}
