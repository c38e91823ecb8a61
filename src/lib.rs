#![doc = include_str!("../docs/guide.md")]
#![warn(missing_docs)]

// Layers, lowest first; a module imports only from layers below it.
// The vocabulary: errors, key types and order, the operations' enums, the values' sizes.
mod error;
mod key;
mod ops;
mod values;
// The GPU: WGSL composition, pipelines, the buffer pool, the device and its scratch.
mod device;
mod pipeline;
mod pool;
mod scratch;
mod shader;
// Tuning policies, and the one host driver every slice form goes through.
mod host;
mod tuning;
// Primitives: the merge-path partition, the sortedness check, scan and reduce, selection.
mod look_back;
mod partition;
mod scan;
mod select;
mod validate;
// Operations.
mod dedup;
mod difference_by_key;
mod merge;
mod merge_many;
mod merge_sort;
mod radix_sort;
mod resident;
mod search_sorted;
mod set;
mod sort;
// CPU references, one per operation.
pub mod cpu;

#[cfg(test)]
mod kernel_tests;
#[cfg(test)]
mod test_buffers;

pub use dedup::{DedupBuffers, DedupOptions, Keep};
pub use device::Gpu;
pub use difference_by_key::FilterBuffers;
pub use error::{Error, Side};
pub use key::{Key, KeyType, Order};
pub use merge::{Algorithm, MergeBuffers, MergeOptions, ValueBuffers};
pub use merge_many::MergeManyBuffers;
pub use ops::{ReduceOp, Scalar, ScanKind, SetOperation};
pub use radix_sort::RadixStrategy;
pub use scan::{ReduceBuffers, ScanBuffers, ScanOptions, ScanStrategy};
pub use scratch::Scratch;
pub use search_sorted::{Bound, SearchBuffers, SearchOptions};
pub use select::KeptValueBuffers;
pub use set::{SetBuffers, SetOptions};
pub use sort::{SortAlgorithm, SortBuffers, SortOptions, SortValueBuffers};
/// The wgpu this crate is built on, so that applications use the same version.
pub use wgpu;

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
