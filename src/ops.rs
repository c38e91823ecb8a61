//! The operations' vocabulary, below every layer that uses it: set operations, scan kinds and
//! operators, and the element types that scans take. The API, the kernels' Rust side and the
//! CPU references all import it; it imports nothing of theirs.

use bytemuck::Pod;

/// A set operation on two sorted inputs, each a multiset. For a key found `m` times in A and `n`
/// times in B the result holds:
///
/// | operation | copies | taken from |
/// |---|---|---|
/// | `Union` | max(m, n) | A's m, then B's last n - m |
/// | `Intersection` | min(m, n) | A's first min(m, n) |
/// | `Difference` (A - B) | m - n if m > n | A's last m - n |
/// | `SymmetricDifference` | \|m - n\| | A's last m - n or B's last n - m |
///
/// the rule of C++'s `std::set_union` and its siblings. The result is sorted in the inputs'
/// order, and stable: where A and B both contribute copies of a key, A's come first, and values
/// travel with their keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetOperation {
    /// Every key of either input.
    Union,
    /// The keys in both.
    Intersection,
    /// The keys of A that are not in B.
    Difference,
    /// The keys in one input but not the other.
    SymmetricDifference,
}

impl SetOperation {
    /// Every operation.
    pub const ALL: [SetOperation; 4] = [
        SetOperation::Union,
        SetOperation::Intersection,
        SetOperation::Difference,
        SetOperation::SymmetricDifference,
    ];

    /// Lower-case name, as benchmarks and the demo print it.
    pub fn name(self) -> &'static str {
        match self {
            SetOperation::Union => "union",
            SetOperation::Intersection => "intersection",
            SetOperation::Difference => "difference",
            SetOperation::SymmetricDifference => "symmetric_difference",
        }
    }

    /// The operation called `name` (see [`SetOperation::name`]).
    pub fn from_name(name: &str) -> Option<SetOperation> {
        SetOperation::ALL.into_iter().find(|op| op.name() == name)
    }

    /// `SET_OPERATION` in `set.wgsl`.
    pub(crate) fn index(self) -> u8 {
        self as u8
    }
}

/// An element type that wgmerge scans and reduces: `u32`, `i32` or `f32`.
///
/// Integer sums wrap on overflow, as `wrapping_add` does. `f32` minima and maxima follow
/// [`f32::total_cmp`] (as the crate's `f32` keys do): `-0.0` is below `+0.0` and NaNs sit at the
/// ends by sign. `f32` sums are IEEE sums; see [`ReduceOp::Sum`] for their order.
pub trait Scalar: Pod + Send + Sync + std::fmt::Debug + sealed::Sealed {
    /// `ELEMENT` in lib/scan_op.wgsl.
    #[doc(hidden)]
    const ELEMENT: u32;
    /// The element's name, for messages.
    #[doc(hidden)]
    const NAME: &'static str;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! scalar {
    ($($ty:ty => $element:literal),*) => {$(
        impl sealed::Sealed for $ty {}
        impl Scalar for $ty {
            const ELEMENT: u32 = $element;
            const NAME: &'static str = stringify!($ty);
        }
    )*};
}
scalar!(u32 => 0, i32 => 1, f32 => 2);

/// Whether a scan's output at `i` includes element `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScanKind {
    /// `out[i]` combines `xs[0..=i]`.
    #[default]
    Inclusive,
    /// `out[i]` combines `xs[0..i]`; `out[0]` is the operator's identity.
    Exclusive,
}

/// The operator a scan or reduction combines with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum. Integers wrap. Identity 0 (`-0.0` for `f32`, the IEEE additive identity).
    ///
    /// `f32` sums are associated as the kernels' tiles impose: within tiles of 4096 elements by
    /// a fixed tree, then tile by tile; the single-pass strategies may combine a tile's
    /// predecessors in an order that varies from run to run, so the last bits may differ
    /// between runs. Each output differs from a sequential sum by at most
    /// `len * f32::EPSILON * (sum of |x|)`, and in practice by far less
    /// ([`ScanStrategy::ReduceThenScan`](crate::ScanStrategy::ReduceThenScan) and reductions are the same from run to run).
    #[default]
    Sum,
    /// Minimum. Identity: the greatest value (`u32::MAX`, `i32::MAX`, and for `f32` the positive
    /// NaN with every payload bit set, which `total_cmp` puts last).
    Min,
    /// Maximum. Identity: the least value (`0`, `i32::MIN`, the negative NaN with every payload
    /// bit set).
    Max,
}

impl ReduceOp {
    /// `OPERATOR` in lib/scan_op.wgsl.
    pub(crate) fn index(self) -> u32 {
        self as u32
    }
}
