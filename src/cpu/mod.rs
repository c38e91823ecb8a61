//! CPU references: what every GPU result is tested against, one module per operation, each the
//! mirror of the kernels of the same name. Keys compare as [`Key`](crate::Key) says (`f32` by
//! `total_cmp`); the `_ordered` forms take an [`Order`](crate::Order), the others are ascending.

mod balanced_path;
mod dedup;
mod difference_by_key;
mod merge;
mod merge_sort;
mod partition;
mod radix_sort;
mod scan;
mod search_sorted;
mod set;
#[cfg(test)]
mod tests;
mod validate;

pub use balanced_path::balanced_path_ordered;
pub use dedup::dedup_pairs;
pub use difference_by_key::difference_by_key_pairs;
pub use merge::{merge, merge_ordered, merge_pairs, merge_pairs_ordered};
pub use merge_sort::{sort_ordered, sort_pairs_ordered};
pub use partition::{co_rank, co_rank_ordered};
pub use radix_sort::{key_bits, radix_sort_pairs_ordered};
pub use scan::{combine, identity, reduce, scan};
pub use search_sorted::search_sorted;
pub use set::{set_operation, set_operation_ordered, set_operation_pairs_ordered};
pub use validate::first_unsorted;

/// How `x` compares with `y` in `order` (equal keys, NaNs of one sign included, are `Equal`).
pub(crate) fn compare<K: crate::Key>(x: &K, y: &K, order: crate::Order) -> std::cmp::Ordering {
    match (x.before(y, order), y.before(x, order)) {
        (true, _) => std::cmp::Ordering::Less,
        (_, true) => std::cmp::Ordering::Greater,
        _ => std::cmp::Ordering::Equal,
    }
}
