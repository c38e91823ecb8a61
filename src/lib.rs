//! Stable merge of sorted arrays on any GPU through wgpu.
//!
//! WGSL compute shaders (under `shaders/`, composed by [`shader`]) do the work; [`Gpu`] owns the
//! device, caches pipelines and dispatches. [`cpu`] holds the reference every GPU result is
//! tested against. The algorithms follow the ordered-merge chapter of *Programming Massively
//! Parallel Processors* (Hwu, Kirk, El Hajj); see [`Algorithm`].
//!
//! ```
//! # fn main() -> Result<(), wgmerge::Error> {
//! let gpu = wgmerge::Gpu::new()?;
//! let merged = gpu.merge(&[1, 3, 5, 7], &[2, 3, 4])?;
//! assert_eq!(merged, [1, 2, 3, 3, 4, 5, 7]);
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]

mod copy;
pub mod cpu;
mod error;
mod gpu;
mod key;
mod merge;
mod resident;
mod set;
pub mod shader;
mod sort;

pub use error::{Error, Side};
pub use gpu::Gpu;
pub use key::{Key, KeyType, Order};
pub use merge::{
    merge_path_tiles_per_workgroup, most_tiles_per_workgroup, Algorithm, MergeBuffers,
    MergeOptions, Scratch, ValueBuffers, LARGE_MERGE_LEN, MAX_ITEMS_PER_THREAD, MAX_MERGED_LEN,
    MAX_TILES_PER_WORKGROUP,
};
pub use set::{SetOperation, SetOptions};
pub use sort::{SortBuffers, SortOptions, SortValueBuffers, SORT_SHAPE};

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
