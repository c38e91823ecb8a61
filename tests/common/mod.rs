//! Shared by the integration tests: one GPU per test binary, input generators and checkers.
#![allow(dead_code)]

use std::sync::OnceLock;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use wgmerge::{cpu, Algorithm, Gpu, Key, MergeOptions, Order};

/// The GPU every test uses. Fails loudly when there is no adapter: tests never skip. When
/// `WGMERGE_EXPECT_BACKEND` is set (CI sets `vulkan`), the adapter must be on that backend.
/// `WGMERGE_RUNTIME_CHECKS=1` builds the kernels with naga's runtime checks (scripts/test.sh
/// does for its OpenGL run), so the suite covers both builds.
pub fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        let gpu = Gpu::new().unwrap_or_else(|e| {
            panic!("{e}. Install a GPU driver or Mesa's lavapipe (apt-get install mesa-vulkan-drivers)")
        });
        check_backend(&gpu);
        gpu.with_runtime_checks(runtime_checks())
    })
}

/// Whether `WGMERGE_RUNTIME_CHECKS=1` asks for kernels with naga's runtime checks.
pub fn runtime_checks() -> bool {
    std::env::var("WGMERGE_RUNTIME_CHECKS").is_ok_and(|v| v == "1")
}

/// A device of our own, with `limits` in place of the adapter's.
pub fn gpu_with_limits(limits: impl FnOnce(wgpu::Limits) -> wgpu::Limits) -> Gpu {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&Default::default())).expect("adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: limits(adapter.limits()),
        ..Default::default()
    }))
    .expect("device");
    let gpu = Gpu::from_device(device, queue);
    check_backend(&gpu);
    gpu.with_runtime_checks(runtime_checks())
}

/// A device of our own whose storage bindings hold at most `bytes`, so that the slice forms go
/// in pieces at small sizes.
pub fn gpu_with_binding_limit(bytes: u64) -> Gpu {
    gpu_with_limits(|limits| wgpu::Limits {
        max_storage_buffer_binding_size: bytes,
        ..limits
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
    /// Uniform keys over the whole u32 range (for floats: every bit pattern, NaNs included).
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
    /// Only the key type's extremes and edge values (MIN, MAX, 0, -1, ±0.0, ±inf, NaNs).
    Extremes,
}

impl Shape {
    pub const ALL: [Shape; 7] = [
        Shape::Uniform,
        Shape::AllEqual,
        Shape::ABelowB,
        Shape::BBelowA,
        Shape::Interleaved,
        Shape::HeavyDuplicates,
        Shape::Extremes,
    ];

    /// Two ascending u32 inputs of lengths `m` and `n` in this shape.
    pub fn generate(self, rng: &mut StdRng, m: usize, n: usize) -> (Vec<u32>, Vec<u32>) {
        self.keys(rng, m, n, Order::Ascending)
    }

    /// Two inputs of key type `K` of lengths `m` and `n` in this shape, sorted in `order`.
    pub fn keys<K: TestKey>(
        self,
        rng: &mut StdRng,
        m: usize,
        n: usize,
        order: Order,
    ) -> (Vec<K>, Vec<K>) {
        let (a, b) = match self {
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
            Shape::Extremes => {
                let specials = K::specials();
                let mut pick = |len| {
                    let mut keys: Vec<K> = (0..len)
                        .map(|_| specials[rng.random_range(0..specials.len())])
                        .collect();
                    cpu::sort_ordered(&mut keys, order);
                    keys
                };
                return (pick(m), pick(n));
            }
        };
        // from_rank is monotone, so ascending ranks give ascending keys.
        let to_keys = |ranks: Vec<u32>| {
            let mut keys: Vec<K> = ranks.into_iter().map(K::from_rank).collect();
            if order == Order::Descending {
                keys.reverse();
            }
            keys
        };
        (to_keys(a), to_keys(b))
    }
}

/// What the tests need of a key type, from its order-preserving bits alone, so that a new key
/// type needs no test code of its own: a monotone map from u32 ranks, its edge values, and its
/// bits for exact comparison (NaN != NaN, but its bits are equal).
pub trait TestKey: Key {
    /// A monotone map from ranks to keys. 64-bit keys take the rank's high bits in their high
    /// word (plus one, so that no rank gives the least or greatest key) and its low 4 bits at the
    /// top of the low word, so keys with equal high words and different low words (above 2^31
    /// too) occur.
    fn from_rank(rank: u32) -> Self {
        let bits = match Self::TYPE.bits() {
            32 => u64::from(rank),
            _ => (u64::from((rank >> 4) + 1) << 32) | (u64::from(rank & 0xf) << 28),
        };
        Self::from_order_bits(bits)
    }
    /// The ends and the middle of the key's order: for integers MIN, MAX, 0 and its neighbours;
    /// for floats the NaNs with every payload bit set, -0.0, +0.0 and the least subnormals.
    fn specials() -> Vec<Self> {
        let max = u64::MAX >> (64 - Self::TYPE.bits());
        let half = max / 2 + 1;
        [0, 1, 2, half - 2, half - 1, half, half + 1, max - 1, max]
            .into_iter()
            .map(Self::from_order_bits)
            .collect()
    }
    fn bits(self) -> u64 {
        self.order_bits()
    }
}

impl<K: Key> TestKey for K {}

/// Generic tests run for every key type: `every_key_type!(check)` makes a module `check` with
/// one test per key type, each calling `check::<K>()`. Adding a key type adds its name here.
#[macro_export]
macro_rules! every_key_type {
    ($($test:ident),* $(,)?) => {
        $( $crate::every_key_type!(@one $test [u32 i32 f32 u64 i64]); )*
    };
    (@one $test:ident [$($key:ident)*]) => {
        mod $test {
            $(
                #[test]
                fn $key() {
                    super::$test::<$key>();
                }
            )*
        }
    };
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

/// [`assert_same`] for keys, bit for bit.
pub fn assert_same_keys<K: TestKey>(got: &[K], want: &[K], context: &str) {
    let bits = |keys: &[K]| keys.iter().map(|k| k.bits()).collect::<Vec<_>>();
    assert_same(&bits(got), &bits(want), context);
}

/// Merges keys on `gpu` and checks them against the CPU reference.
pub fn check_merge_on<K: TestKey>(
    gpu: &Gpu,
    a: &[K],
    b: &[K],
    options: &MergeOptions,
    context: &str,
) {
    let got = gpu
        .merge_with(a, b, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same_keys(&got, &cpu::merge_ordered(a, b, options.order), context);
}

/// Merges keys on the test GPU and checks them against the CPU reference.
pub fn check_merge<K: TestKey>(a: &[K], b: &[K], options: &MergeOptions, context: &str) {
    check_merge_on(gpu(), a, b, options, context);
}

/// A value that records where its element came from: input (A or B) and index there.
pub trait Provenance: bytemuck::Pod + PartialEq + std::fmt::Debug {
    fn new(from_b: bool, index: usize) -> Self;
    /// `(from_b, index)`, or `None` if the value is not one `new` can make.
    fn decode(self) -> Option<(bool, usize)>;
}

/// 4 bytes: bit 31 is the input (0 = A, 1 = B), the rest the index.
impl Provenance for u32 {
    fn new(from_b: bool, index: usize) -> Self {
        (u32::from(from_b) << 31) | index as u32
    }
    fn decode(self) -> Option<(bool, usize)> {
        Some((self >> 31 == 1, (self & !(1 << 31)) as usize))
    }
}

/// 8 bytes: the 4-byte provenance in the high word and a check pattern of it in the low word,
/// so both words must travel together.
impl Provenance for u64 {
    fn new(from_b: bool, index: usize) -> Self {
        let high = u32::new(from_b, index);
        (u64::from(high) << 32) | u64::from(high ^ 0xa5a5_a5a5)
    }
    fn decode(self) -> Option<(bool, usize)> {
        let high = (self >> 32) as u32;
        ((self as u32) == high ^ 0xa5a5_a5a5)
            .then(|| high.decode())
            .flatten()
    }
}

/// Provenance 4-byte value, for callers that want the word.
pub fn provenance(from_b: bool, index: usize) -> u32 {
    u32::new(from_b, index)
}

/// Provenance values of inputs of `m` and `n` elements.
pub fn provenances<V: Provenance>(m: usize, n: usize) -> (Vec<V>, Vec<V>) {
    (
        (0..m).map(|i| V::new(false, i)).collect(),
        (0..n).map(|i| V::new(true, i)).collect(),
    )
}

/// Merges pairs whose values are provenance and proves, without the CPU reference, that the
/// merge is stable and lost or duplicated nothing; then also compares with the reference.
pub fn check_stable_pairs_on<K: TestKey, V: Provenance>(
    gpu: &Gpu,
    a: &[K],
    b: &[K],
    options: &MergeOptions,
    context: &str,
) {
    let (a_values, b_values) = provenances::<V>(a.len(), b.len());
    let (keys, values) = gpu
        .merge_pairs_with(a, &a_values, b, &b_values, options)
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_eq!(keys.len(), a.len() + b.len(), "{context}: output length");
    assert_eq!(values.len(), keys.len(), "{context}: value length");
    // Every input element appears exactly once, with its own key.
    let mut seen_a = vec![false; a.len()];
    let mut seen_b = vec![false; b.len()];
    let mut origins = Vec::with_capacity(keys.len());
    for (k, (&key, &value)) in keys.iter().zip(&values).enumerate() {
        let origin = value.decode();
        let (from_b, index) =
            origin.unwrap_or_else(|| panic!("{context}: output {k} has a corrupt value {value:?}"));
        let (seen, source) = if from_b {
            (&mut seen_b, b)
        } else {
            (&mut seen_a, a)
        };
        assert!(
            index < source.len(),
            "{context}: output {k} has unknown provenance {value:?}"
        );
        assert!(
            !seen[index],
            "{context}: element {value:?} duplicated at {k}"
        );
        seen[index] = true;
        assert_eq!(
            source[index].bits(),
            key.bits(),
            "{context}: output {k} carries another element's value"
        );
        origins.push((from_b, index));
    }
    // Sorted, and among equal keys A's come before B's, each input in its own order: origin
    // (false before true, then index) must increase within a run of equal keys.
    let order = options.order;
    for k in 1..keys.len() {
        assert!(
            !keys[k].before(&keys[k - 1], order),
            "{context}: not sorted at {k}"
        );
        if !keys[k - 1].before(&keys[k], order) {
            assert!(origins[k - 1] < origins[k], "{context}: unstable at {k}");
        }
    }
    let (want_keys, want_values) = cpu::merge_pairs_ordered(a, &a_values, b, &b_values, order);
    assert_same_keys(&keys, &want_keys, context);
    assert_same(&values, &want_values, context);
}

/// [`check_stable_pairs_on`] with 4-byte provenance on the test GPU.
pub fn check_stable_pairs<K: TestKey>(a: &[K], b: &[K], options: &MergeOptions, context: &str) {
    check_stable_pairs_on::<K, u32>(gpu(), a, b, options, context);
}

/// Uploads `data` into a buffer the resident forms can use (one word when `data` is empty).
pub fn storage_buffer(data: &[u32]) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    gpu()
        .device()
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("test"),
            contents: bytemuck::cast_slice(if data.is_empty() { &[0] } else { data }),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        })
}

/// The first `len` words of a `COPY_SRC` buffer of the test GPU.
pub fn read_buffer(buffer: &wgpu::Buffer, len: usize) -> Vec<u32> {
    read_buffer_on(gpu(), buffer, len)
}

/// Checks a resident operation that keeps some elements: the count in the first word of
/// `count`, then that many keys in `out` and values in `values`, against the CPU's.
pub fn assert_kept(
    count: &wgpu::Buffer,
    (out, values): (&wgpu::Buffer, &wgpu::Buffer),
    (want_keys, want_values): (&[u32], &[u32]),
    context: &str,
) {
    let kept = read_buffer(count, 1)[0] as usize;
    assert_eq!(kept, want_keys.len(), "{context}");
    assert_eq!(read_buffer(out, kept), want_keys, "{context}");
    assert_eq!(read_buffer(values, kept), want_values, "{context}");
}

/// The first `len` elements of a `COPY_SRC` buffer of `gpu`.
pub fn read_buffer_on<T: bytemuck::Pod>(gpu: &Gpu, buffer: &wgpu::Buffer, len: usize) -> Vec<T> {
    let bytes = (len * std::mem::size_of::<T>()) as u64;
    let staging = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes.max(8),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    if bytes > 0 {
        encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
    }
    gpu.queue().submit([encoder.finish()]);
    staging.map_async(wgpu::MapMode::Read, .., |r| r.unwrap());
    gpu.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let mapped = staging.get_mapped_range(..).unwrap();
    bytemuck::pod_collect_to_vec(&mapped[..bytes as usize])
}

/// Runs `future` to completion on this thread, parked while it is pending and unparked by its
/// waker: an executor that never polls the device itself, so the Gpu's poller thread drives it.
pub fn park_on<F: std::future::Future>(future: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        match future.as_mut().poll(&mut context) {
            Poll::Ready(output) => return output,
            Poll::Pending => std::thread::park_timeout(std::time::Duration::from_secs(5)),
        }
    }
}
