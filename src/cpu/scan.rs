//! Scan and reduction, sequentially: the CPU mirror of `scan.wgsl` and `reduce.wgsl`. The
//! operator follows lib/scan_op.wgsl exactly, on the elements' bits: integer sums wrap, `f32`
//! minima and maxima follow `total_cmp`, and the identities are those of [`ReduceOp`].

use crate::ops::{ReduceOp, Scalar, ScanKind};

/// The element's bits mapped so that unsigned order is the element's order.
fn ordered<T: Scalar>(bits: u32) -> u32 {
    match T::ELEMENT {
        1 => bits ^ 0x8000_0000,
        2 if bits & 0x8000_0000 != 0 => !bits,
        2 => bits | 0x8000_0000,
        _ => bits,
    }
}

/// `op` on two elements.
pub fn combine<T: Scalar>(a: T, b: T, op: ReduceOp) -> T {
    let (x, y): (u32, u32) = (bytemuck::cast(a), bytemuck::cast(b));
    let bits = match op {
        ReduceOp::Sum => match T::ELEMENT {
            2 => (f32::from_bits(x) + f32::from_bits(y)).to_bits(),
            _ => x.wrapping_add(y),
        },
        ReduceOp::Min if ordered::<T>(x) <= ordered::<T>(y) => x,
        ReduceOp::Max if ordered::<T>(x) >= ordered::<T>(y) => x,
        _ => y,
    };
    bytemuck::cast(bits)
}

/// `op`'s identity: 0 for sums (`-0.0` for `f32`), the greatest value for `Min`, the least for
/// `Max`.
pub fn identity<T: Scalar>(op: ReduceOp) -> T {
    let bits: u32 = match (op, T::ELEMENT) {
        (ReduceOp::Sum, 2) => 0x8000_0000,
        (ReduceOp::Sum, _) => 0,
        (ReduceOp::Min, 0) => u32::MAX,
        (ReduceOp::Min, _) => 0x7fff_ffff,
        (ReduceOp::Max, 0) => 0,
        (ReduceOp::Max, 1) => 0x8000_0000,
        (ReduceOp::Max, _) => u32::MAX,
    };
    bytemuck::cast(bits)
}

/// The scan of `xs` under `op`, combining from the left.
pub fn scan<T: Scalar>(xs: &[T], kind: ScanKind, op: ReduceOp) -> Vec<T> {
    let mut running = identity::<T>(op);
    xs.iter()
        .map(|&x| {
            let before = running;
            running = combine(running, x, op);
            match kind {
                ScanKind::Inclusive => running,
                ScanKind::Exclusive => before,
            }
        })
        .collect()
}

/// The combination of every element of `xs` under `op`, from the left (the identity for none).
pub fn reduce<T: Scalar>(xs: &[T], op: ReduceOp) -> T {
    xs.iter().fold(identity(op), |acc, &x| combine(acc, x, op))
}
