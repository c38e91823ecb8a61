//! Key types and merge order.
//!
//! A key type is one [`Key`] impl here, one WGSL module under `shaders/lib/keys/` that declares
//! `Key`, its ascending `key_less`, its first and last keys in that order and its order-preserving
//! bits, and one line of the tests' key macro; [`Order`] is applied on top of it by
//! `shaders/lib/order.wgsl`.

use bytemuck::Pod;

/// The order of the inputs and of the merged output. Either way the merge is stable: equal keys
/// keep A's before B's, and each input keeps its own order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Smallest first.
    #[default]
    Ascending,
    /// Largest first.
    Descending,
}

impl std::fmt::Display for Order {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Order::Ascending => "ascending",
            Order::Descending => "descending",
        })
    }
}

/// A key type wgmerge can merge: `u32`, `i32`, `f32`, `u64`, `i64`.
///
/// Integers compare as integers. `f32` follows [`f32::total_cmp`]: `-0.0` comes before `+0.0`,
/// and NaNs sit at the ends by sign (negative NaNs before `-inf`, positive NaNs after `+inf`), so
/// every float, NaN included, has a place and the merge stays stable. 64-bit keys are compared as
/// two 32-bit words, so they need no 64-bit integer support from the adapter.
///
/// The trait is sealed: each key type needs a matching WGSL comparison.
pub trait Key: Pod + Send + Sync + std::fmt::Debug + sealed::Sealed {
    /// Which key type this is, for the shader's composition.
    const TYPE: KeyType;

    /// The key's order-preserving bit pattern, in the low [`KeyType::bits`] bits: the unsigned
    /// order of the patterns is the keys' ascending order (signed integers have their sign bit
    /// flipped; `f32` follows `total_cmp`: every bit of a negative float flipped, the sign bit of
    /// a positive one). Each key has its own pattern.
    fn order_bits(self) -> u64;

    /// The key whose [`Key::order_bits`] are `bits` (bits beyond the key's width are ignored).
    fn from_order_bits(bits: u64) -> Self;

    /// True when `self` comes strictly before `other` in ascending order.
    fn less(&self, other: &Self) -> bool;

    /// True when `self` comes strictly before `other` in `order`.
    fn before(&self, other: &Self, order: Order) -> bool {
        match order {
            Order::Ascending => self.less(other),
            Order::Descending => other.less(self),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// The key types, as the shader composition sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `f32` in [`f32::total_cmp`] order
    F32,
    /// `u64`
    U64,
    /// `i64`
    I64,
}

impl KeyType {
    /// Every key type, for tests and benchmarks that sweep them.
    pub const ALL: [KeyType; 5] = [
        KeyType::U32,
        KeyType::I32,
        KeyType::F32,
        KeyType::U64,
        KeyType::I64,
    ];

    /// Bits per key.
    pub fn bits(self) -> u32 {
        self.size() * 8
    }

    /// Bytes per key.
    pub fn size(self) -> u32 {
        match self {
            KeyType::U32 | KeyType::I32 | KeyType::F32 => 4,
            KeyType::U64 | KeyType::I64 => 8,
        }
    }

    /// The Rust name of the type.
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => "u32",
            KeyType::I32 => "i32",
            KeyType::F32 => "f32",
            KeyType::U64 => "u64",
            KeyType::I64 => "i64",
        }
    }

    /// The WGSL module declaring `Key` and `key_less`, bound to the shaders' `key` parameter.
    pub(crate) fn module(self) -> &'static str {
        match self {
            KeyType::U32 => "lib/keys/u32",
            KeyType::I32 => "lib/keys/i32",
            KeyType::F32 => "lib/keys/f32",
            KeyType::U64 => "lib/keys/u64",
            KeyType::I64 => "lib/keys/i64",
        }
    }
}

/// The WGSL module of values of `size` bytes (0 for none), bound to the shaders' `values`
/// parameter.
pub(crate) fn values_module(size: u32) -> &'static str {
    match size {
        0 => "lib/values/none",
        4 => "lib/values/u32",
        _ => "lib/values/vec2",
    }
}

/// The `move_values` module for values of `size` bytes (0 for none), and the override constants
/// it needs: radix sort's scatter and selection move values as whole 32-bit words.
pub(crate) fn move_values_module(size: u32) -> (&'static str, Vec<(&'static str, u32)>) {
    if size == 0 {
        ("lib/move_values/none", Vec::new())
    } else {
        ("lib/move_values/words", vec![("VALUE_WORDS", size / 4)])
    }
}

macro_rules! key {
    ($ty:ty => $key_type:ident, $bits:ty, $flip:expr) => {
        impl sealed::Sealed for $ty {}
        impl Key for $ty {
            const TYPE: KeyType = KeyType::$key_type;
            fn less(&self, other: &Self) -> bool {
                self < other
            }
            fn order_bits(self) -> u64 {
                (bytemuck::cast::<$ty, $bits>(self) ^ $flip) as u64
            }
            fn from_order_bits(bits: u64) -> Self {
                bytemuck::cast::<$bits, $ty>(bits as $bits ^ $flip)
            }
        }
    };
}
key!(u32 => U32, u32, 0);
key!(i32 => I32, u32, 1 << 31);
key!(u64 => U64, u64, 0);
key!(i64 => I64, u64, 1 << 63);

impl sealed::Sealed for f32 {}
impl Key for f32 {
    const TYPE: KeyType = KeyType::F32;
    fn less(&self, other: &Self) -> bool {
        self.total_cmp(other).is_lt()
    }
    fn order_bits(self) -> u64 {
        let bits = self.to_bits();
        u64::from(if bits >> 31 == 1 {
            !bits
        } else {
            bits | 1 << 31
        })
    }
    fn from_order_bits(bits: u64) -> Self {
        let bits = bits as u32;
        f32::from_bits(if bits >> 31 == 1 {
            bits & !(1 << 31)
        } else {
            !bits
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_follow_total_cmp() {
        let ordered = [
            -f32::NAN,
            f32::NEG_INFINITY,
            f32::MIN,
            -1.0,
            -0.0,
            0.0,
            f32::MIN_POSITIVE,
            1.0,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
        ];
        for pair in ordered.windows(2) {
            assert!(pair[0].less(&pair[1]), "{pair:?}");
            assert!(!pair[1].less(&pair[0]), "{pair:?}");
            assert!(pair[1].before(&pair[0], Order::Descending), "{pair:?}");
        }
    }

    #[test]
    fn order_bits_follow_the_order_and_invert() {
        fn check<K: Key + PartialEq>(ordered: &[K]) {
            for pair in ordered.windows(2) {
                assert!(pair[0].order_bits() < pair[1].order_bits(), "{pair:?}");
            }
            for &key in ordered {
                let back = K::from_order_bits(key.order_bits());
                assert_eq!(back.order_bits(), key.order_bits(), "{key:?}");
                assert!(key.order_bits() < 1 << K::TYPE.bits() || K::TYPE.bits() == 64);
            }
        }
        check(&[0u32, 1, u32::MAX]);
        check(&[i32::MIN, -1, 0, 1, i32::MAX]);
        check(&[i64::MIN, -1, 0, i64::MAX]);
        check(&[0u64, 1 << 40, u64::MAX]);
        check(&[
            -f32::NAN,
            f32::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            1.0,
            f32::INFINITY,
            f32::NAN,
        ]);
    }

    #[test]
    fn key_sizes_match_rust() {
        assert_eq!(KeyType::U32.size() as usize, std::mem::size_of::<u32>());
        assert_eq!(f32::TYPE.size() as usize, std::mem::size_of::<f32>());
        assert_eq!(i64::TYPE.size() as usize, std::mem::size_of::<i64>());
    }
}
