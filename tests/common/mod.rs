//! Shared by the integration tests: one GPU per test binary, input generators and checkers.
#![allow(dead_code)]

use std::sync::OnceLock;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use wgmerge::{cpu, Algorithm, Gpu, MergeOptions};

/// The GPU every test uses. Fails loudly when there is no adapter: tests never skip. When
/// `WGMERGE_EXPECT_BACKEND` is set (CI sets `vulkan`), the adapter must be on that backend.
pub fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        let gpu = Gpu::new().unwrap_or_else(|e| {
            panic!("{e}. Install a GPU driver or Mesa's lavapipe (apt-get install mesa-vulkan-drivers)")
        });
        check_backend(&gpu);
        gpu
    })
}

/// Asserts the backend named by `WGMERGE_EXPECT_BACKEND`, if set.
pub fn check_backend(gpu: &Gpu) {
    if let Ok(expected) = std::env::var("WGMERGE_EXPECT_BACKEND") {
        let backend = gpu.adapter_info().backend.to_str();
        assert!(
            backend.eq_ignore_ascii_case(&expected),
            "tests must run on {expected} but the adapter is {:?}",
            gpu.adapter_info()
        );
    }
}

/// One line naming the adapter, for test logs.
pub fn adapter_line(gpu: &Gpu) -> String {
    let info = gpu.adapter_info();
    format!("{} ({}, {})", info.name, info.backend, info.driver_info)
}

/// A random generator with a fresh seed each run (or `WGMERGE_SEED`), printed so that a failure
/// can be replayed.
pub fn rng(test: &str) -> StdRng {
    let seed = std::env::var("WGMERGE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    eprintln!("{test}: WGMERGE_SEED={seed}");
    StdRng::seed_from_u64(seed)
}

/// The input shapes every merge is tested on.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// Uniform keys over the whole u32 range.
    Uniform,
    /// Every key equal, in both inputs.
    AllEqual,
    /// Every key of A below every key of B.
    ABelowB,
    /// Every key of B below every key of A.
    BBelowA,
    /// A takes the even keys, B the odd ones.
    Interleaved,
    /// Keys from a range of 8 values: long runs of ties across both inputs.
    HeavyDuplicates,
}

impl Shape {
    pub const ALL: [Shape; 6] = [
        Shape::Uniform,
        Shape::AllEqual,
        Shape::ABelowB,
        Shape::BBelowA,
        Shape::Interleaved,
        Shape::HeavyDuplicates,
    ];

    /// Two sorted inputs of lengths `m` and `n` in this shape.
    pub fn generate(self, rng: &mut StdRng, m: usize, n: usize) -> (Vec<u32>, Vec<u32>) {
        match self {
            Shape::Uniform => (sorted(rng, m, 0..=u32::MAX), sorted(rng, n, 0..=u32::MAX)),
            Shape::AllEqual => (vec![7; m], vec![7; n]),
            Shape::ABelowB => (
                sorted(rng, m, 0..=1 << 20),
                sorted(rng, n, (1 << 20) + 1..=u32::MAX),
            ),
            Shape::BBelowA => (
                sorted(rng, m, (1 << 20) + 1..=u32::MAX),
                sorted(rng, n, 0..=1 << 20),
            ),
            Shape::Interleaved => (
                (0..m as u32).map(|i| 2 * i).collect(),
                (0..n as u32).map(|i| 2 * i + 1).collect(),
            ),
            Shape::HeavyDuplicates => (sorted(rng, m, 0..=7), sorted(rng, n, 0..=7)),
        }
    }
}

/// `len` sorted keys drawn from `range`.
pub fn sorted(rng: &mut StdRng, len: usize, range: std::ops::RangeInclusive<u32>) -> Vec<u32> {
    let mut v: Vec<u32> = (0..len).map(|_| rng.random_range(range.clone())).collect();
    v.sort_unstable();
    v
}

pub fn options(algorithm: Algorithm) -> MergeOptions {
    MergeOptions {
        algorithm,
        ..Default::default()
    }
}

/// Asserts two equal-length outputs are equal, naming the first difference rather than
/// printing millions of keys.
pub fn assert_same<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], context: &str) {
    assert_eq!(got.len(), want.len(), "{context}: output length");
    if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
        let lo = i.saturating_sub(3);
        let hi = (i + 4).min(got.len());
        panic!(
            "{context}: first difference at {i}: got {:?}, want {:?}",
            &got[lo..hi],
            &want[lo..hi]
        );
    }
}

/// Merges keys on the GPU and checks them against the CPU reference.
pub fn check_merge(a: &[u32], b: &[u32], options: &MergeOptions, context: &str) {
    let got = gpu()
        .merge_with(a, b, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same(&got, &cpu::merge(a, b), context);
}

/// Provenance of an element: bit 31 is its input (0 = A, 1 = B), the rest its index there.
pub fn provenance(from_b: bool, index: usize) -> u32 {
    (u32::from(from_b) << 31) | index as u32
}

/// Merges pairs whose values are provenance and proves, without the CPU reference, that the
/// merge is stable and lost or duplicated nothing; then also compares with the reference.
pub fn check_stable_pairs(a: &[u32], b: &[u32], options: &MergeOptions, context: &str) {
    let a_values: Vec<u32> = (0..a.len()).map(|i| provenance(false, i)).collect();
    let b_values: Vec<u32> = (0..b.len()).map(|i| provenance(true, i)).collect();
    let (keys, values) = gpu()
        .merge_pairs_with(a, &a_values, b, &b_values, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_eq!(keys.len(), a.len() + b.len(), "{context}: output length");
    assert_eq!(values.len(), keys.len(), "{context}: value length");
    // Every input element appears exactly once, with its own key.
    let mut seen_a = vec![false; a.len()];
    let mut seen_b = vec![false; b.len()];
    for (k, (&key, &value)) in keys.iter().zip(&values).enumerate() {
        let index = (value & !(1 << 31)) as usize;
        let (seen, source) = if value >> 31 == 0 {
            (&mut seen_a, a)
        } else {
            (&mut seen_b, b)
        };
        assert!(
            index < source.len(),
            "{context}: output {k} has unknown provenance {value:#x}"
        );
        assert!(
            !seen[index],
            "{context}: element {value:#x} duplicated at {k}"
        );
        seen[index] = true;
        assert_eq!(
            source[index], key,
            "{context}: output {k} carries another element's value"
        );
    }
    // Sorted, and among equal keys A's come before B's, each input in its own order. Provenance
    // orders exactly that way, so it must not decrease within a run of equal keys.
    for k in 1..keys.len() {
        assert!(keys[k - 1] <= keys[k], "{context}: not sorted at {k}");
        if keys[k - 1] == keys[k] {
            assert!(values[k - 1] < values[k], "{context}: unstable at {k}");
        }
    }
    let (want_keys, want_values) = cpu::merge_pairs(a, &a_values, b, &b_values);
    assert_same(&keys, &want_keys, context);
    assert_same(&values, &want_values, context);
}
