//! Dedup's reference: the first (or last) of each run of consecutive equal keys, as
//! `Vec::dedup_by` keeps the first, keys equal as their order says.

use crate::Key;

/// The pairs kept when each run of consecutive equal keys keeps its first pair, or its last
/// with `keep_last`.
pub fn dedup_pairs<K: Key, V: Copy>(keys: &[K], values: &[V], keep_last: bool) -> (Vec<K>, Vec<V>) {
    let same = |x: &K, y: &K| !x.less(y) && !y.less(x);
    let kept = |i: usize| {
        if keep_last {
            i + 1 == keys.len() || !same(&keys[i], &keys[i + 1])
        } else {
            i == 0 || !same(&keys[i - 1], &keys[i])
        }
    };
    (0..keys.len())
        .filter(|&i| kept(i))
        .map(|i| (keys[i], values[i]))
        .unzip()
}
