//! Scan and reduce against the CPU reference: every length to 1100 and random lengths to
//! millions, every element type, operator and kind, each strategy and both workgroup paths (with
//! and without subgroups), the resident forms, pieces that carry the running total, and integer
//! overflow. Integer and min/max results must be bit for bit the reference's; f32 sums too where
//! the values are small integers (exact in any order), within the documented tolerance otherwise.

mod common;

use common::*;
use rand::rngs::StdRng;
use rand::Rng;
use wgmerge::{
    cpu, Error, ReduceBuffers, ReduceOp, Scalar, ScanBuffers, ScanKind, ScanOptions, ScanStrategy,
};

const OPS: [ReduceOp; 3] = [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max];
const KINDS: [ScanKind; 2] = [ScanKind::Inclusive, ScanKind::Exclusive];

/// The strategies this adapter runs: look-back only where it gives forward progress.
fn strategies() -> Vec<Option<ScanStrategy>> {
    vec![
        None,
        Some(ScanStrategy::SinglePass),
        Some(ScanStrategy::ReduceThenScan),
    ]
}

/// Both workgroup paths where the device has subgroups.
fn subgroup_paths() -> Vec<Option<bool>> {
    let has = gpu().device().features().contains(wgpu::Features::SUBGROUP);
    if has {
        vec![Some(false), Some(true)]
    } else {
        vec![Some(false)]
    }
}

/// An element type the tests generate.
trait TestScalar: Scalar + PartialEq {
    /// Random elements; `exact` keeps f32 to small integers, whose sums are exact in any order.
    fn random(rng: &mut StdRng, exact: bool) -> Self;
    fn bits(self) -> u32 {
        bytemuck::cast(self)
    }
}

impl TestScalar for u32 {
    fn random(rng: &mut StdRng, _: bool) -> Self {
        // Large values, so that sums wrap.
        rng.random()
    }
}

impl TestScalar for i32 {
    fn random(rng: &mut StdRng, _: bool) -> Self {
        rng.random()
    }
}

impl TestScalar for f32 {
    fn random(rng: &mut StdRng, exact: bool) -> Self {
        if exact {
            return rng.random_range(-1000i32..=1000) as f32;
        }
        match rng.random_range(0..40) {
            0 => f32::NAN,
            1 => -f32::NAN,
            2 => -0.0,
            3 => 0.0,
            4 => f32::INFINITY,
            _ => rng.random_range(-1.0..1.0),
        }
    }
}

/// Checks `got` against the reference scan of `xs`: bit for bit, except f32 sums of inexact
/// values, which must be within `len * EPSILON * (sum of |x| so far)` of the sequential sum.
fn check_scan<T: TestScalar>(xs: &[T], got: &[T], kind: ScanKind, op: ReduceOp, context: &str) {
    let want = cpu::scan(xs, kind, op);
    assert_eq!(got.len(), want.len(), "{context}: length");
    let f32_sum = T::NAME == "f32" && op == ReduceOp::Sum;
    let inexact = f32_sum
        && xs.iter().any(|&x| {
            let v: f32 = bytemuck::cast(x);
            v.fract() != 0.0 || !v.is_finite()
        });
    if f32_sum && !inexact {
        // Exact sums in any order, but a sum of zeros may come out +0.0 or -0.0, as the
        // hardware's own subgroup sums start from either.
        let values = |v: &[T]| {
            v.iter()
                .map(|&x| bytemuck::cast::<T, f32>(x))
                .collect::<Vec<_>>()
        };
        assert_same(&values(got), &values(&want), context);
        return;
    }
    if !inexact {
        let bits = |v: &[T]| v.iter().map(|&x| x.bits()).collect::<Vec<_>>();
        assert_same(&bits(got), &bits(&want), context);
        return;
    }
    let mut magnitude = 0.0f64;
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        let (g, w): (f32, f32) = (bytemuck::cast(g), bytemuck::cast(w));
        let bound = xs.len() as f64 * f64::from(f32::EPSILON) * magnitude + 1e-30;
        let same = g == w || (g.is_nan() && w.is_nan());
        assert!(
            same || (f64::from(g) - f64::from(w)).abs() <= bound,
            "{context}: at {i} got {g}, sequential sum {w}, bound {bound}"
        );
        let x: f32 = bytemuck::cast(xs[i]);
        magnitude += f64::from(x.abs());
    }
}

fn check_all<T: TestScalar>(rng: &mut StdRng, len: usize, options: &ScanOptions, exact: bool) {
    let xs: Vec<T> = (0..len).map(|_| T::random(rng, exact)).collect();
    for op in OPS {
        let context = format!("{} len {len} {op:?} {options:?}", T::NAME);
        let reduced = gpu().reduce_with(&xs, op, options).unwrap();
        let want = cpu::reduce(&xs, op);
        if T::NAME == "f32" && op == ReduceOp::Sum && !exact {
            let (g, w): (f32, f32) = (bytemuck::cast(reduced), bytemuck::cast(want));
            let magnitude: f64 = xs
                .iter()
                .map(|&x| f64::from(bytemuck::cast::<T, f32>(x).abs()))
                .sum();
            assert!(
                g == w
                    || (g.is_nan() && w.is_nan())
                    || (f64::from(g) - f64::from(w)).abs() <= len as f64 * 1.2e-7 * magnitude,
                "{context}: reduce {g} vs {w}"
            );
        } else if T::NAME == "f32" && op == ReduceOp::Sum {
            let (g, w): (f32, f32) = (bytemuck::cast(reduced), bytemuck::cast(want));
            assert_eq!(g, w, "{context}: reduce");
        } else {
            assert_eq!(reduced.bits(), want.bits(), "{context}: reduce");
        }
        for kind in KINDS {
            let got = gpu().scan_with(&xs, kind, op, options).unwrap();
            check_scan(&xs, &got, kind, op, &format!("{context} {kind:?}"));
        }
    }
}

/// Every length from 0 to 1100 (within one tile and a little past it), each with a random
/// element type, operator, kind, strategy and workgroup path.
#[test]
fn every_length_to_1100() {
    let mut rng = rng("every_length_to_1100");
    let strategies = strategies();
    let paths = subgroup_paths();
    for len in 0..=1100 {
        let options = ScanOptions {
            strategy: strategies[rng.random_range(0..strategies.len())],
            subgroups: paths[rng.random_range(0..paths.len())],
            ..Default::default()
        };
        let op = OPS[rng.random_range(0..3)];
        let kind = KINDS[rng.random_range(0..2)];
        let context = format!("len {len} {op:?} {kind:?} {options:?}");
        match rng.random_range(0..3) {
            0 => {
                let xs: Vec<u32> = (0..len).map(|_| u32::random(&mut rng, true)).collect();
                let got = gpu().scan_with(&xs, kind, op, &options).unwrap();
                check_scan(&xs, &got, kind, op, &context);
            }
            1 => {
                let xs: Vec<i32> = (0..len).map(|_| i32::random(&mut rng, true)).collect();
                let got = gpu().scan_with(&xs, kind, op, &options).unwrap();
                check_scan(&xs, &got, kind, op, &context);
            }
            _ => {
                let xs: Vec<f32> = (0..len).map(|_| f32::random(&mut rng, true)).collect();
                let got = gpu().scan_with(&xs, kind, op, &options).unwrap();
                check_scan(&xs, &got, kind, op, &context);
            }
        }
    }
}

/// Lengths around tiles (4096 elements) and many tiles, every type, operator, kind, strategy and
/// workgroup path.
#[test]
fn tiles_strategies_and_paths() {
    let mut rng = rng("tiles_strategies_and_paths");
    for strategy in strategies() {
        for subgroups in subgroup_paths() {
            let options = ScanOptions {
                strategy,
                subgroups,
                ..Default::default()
            };
            for len in [4095, 4096, 4097, 3 * 4096 + 5, 100_003] {
                check_all::<u32>(&mut rng, len, &options, true);
                check_all::<i32>(&mut rng, len, &options, true);
                check_all::<f32>(&mut rng, len, &options, true);
            }
        }
    }
}

/// Random lengths to millions: thousands of tiles, so the look-back goes far and, on adapters
/// that run workgroups one after another, falls back often; reduce-then-scan recurses twice.
#[test]
fn millions_of_elements() {
    let mut rng = rng("millions_of_elements");
    for strategy in strategies() {
        let options = ScanOptions {
            strategy,
            ..Default::default()
        };
        let len = rng.random_range(1_000_000..3_000_000);
        check_all::<u32>(&mut rng, len, &options, true);
        check_all::<f32>(&mut rng, len, &options, true);
    }
    // More tiles than a single pass dispatches workgroups (2^19 invocations: 1027 tiles of 512 x
    // 16 against 1024 workgroups, or 2055 of 256 x 16 against 2048), so each takes several; and
    // at 2^24, where lavapipe's first workgroups would take most of the tiles and run out of
    // llvmpipe's loop iterations (wrong from element 12.4 million) but for MOST_TILES.
    for strategy in [None, Some(ScanStrategy::SinglePass)] {
        let options = ScanOptions {
            strategy,
            ..Default::default()
        };
        for len in [(1 << 23) + 8192 * 3 + 5, (1 << 24) + 8192 * 5 + 3] {
            check_all::<u32>(&mut rng, len, &options, true);
        }
    }
    // Reduce-then-scan's reductions scanned at a second level: more than 4096 tiles.
    let options = ScanOptions {
        strategy: Some(ScanStrategy::ReduceThenScan),
        ..Default::default()
    };
    check_all::<i32>(&mut rng, 4096 * 4096 + 77, &options, true);
}

/// f32 values that are not small integers: the sums stay within the documented tolerance, and
/// NaNs and signed zeros take their total_cmp places in minima and maxima.
#[test]
fn floats_within_tolerance_and_in_total_order() {
    let mut rng = rng("floats_within_tolerance_and_in_total_order");
    for len in [1000, 70_001] {
        check_all::<f32>(&mut rng, len, &ScanOptions::default(), false);
    }
    let xs = [0.0f32, -0.0, f32::NAN, -f32::NAN, 1.0];
    assert!(gpu().reduce(&xs, ReduceOp::Max).unwrap().is_nan());
    assert_eq!(
        gpu().reduce(&xs, ReduceOp::Min).unwrap().to_bits(),
        (-f32::NAN).to_bits()
    );
    assert_eq!(
        gpu()
            .reduce(&[0.0f32, -0.0], ReduceOp::Min)
            .unwrap()
            .to_bits(),
        (-0.0f32).to_bits()
    );
}

/// Integer sums wrap, as wrapping_add does; empty inputs reduce to the identity.
#[test]
fn overflow_wraps_and_identities() {
    let xs = vec![u32::MAX; 10_000];
    assert_eq!(
        gpu().reduce(&xs, ReduceOp::Sum).unwrap(),
        u32::MAX.wrapping_mul(10_000)
    );
    let ys = vec![i32::MAX; 5000];
    let scanned = gpu().scan(&ys, ScanKind::Inclusive, ReduceOp::Sum).unwrap();
    assert_eq!(scanned[4999], i32::MAX.wrapping_mul(5000));
    assert_eq!(gpu().reduce::<u32>(&[], ReduceOp::Min).unwrap(), u32::MAX);
    assert_eq!(gpu().reduce::<i32>(&[], ReduceOp::Max).unwrap(), i32::MIN);
    assert_eq!(
        gpu().reduce::<f32>(&[], ReduceOp::Sum).unwrap().to_bits(),
        (-0.0f32).to_bits()
    );
    assert!(gpu()
        .scan::<f32>(&[], ScanKind::Exclusive, ReduceOp::Sum)
        .unwrap()
        .is_empty());
    assert_eq!(
        gpu()
            .scan(&[5u32], ScanKind::Exclusive, ReduceOp::Sum)
            .unwrap(),
        [0]
    );
}

/// Pieces of a few hundred elements, which carry the running total from one to the next.
#[test]
fn pieces_carry_the_running_total() {
    let mut rng = rng("pieces_carry_the_running_total");
    for strategy in strategies() {
        let options = ScanOptions {
            strategy,
            max_piece_len: Some(rng.random_range(100..700)),
            ..Default::default()
        };
        for len in [1, 699, 5000] {
            check_all::<u32>(&mut rng, len, &options, true);
            check_all::<f32>(&mut rng, len, &options, true);
        }
    }
    // Pieces of whole tiles, many of them.
    let options = ScanOptions {
        max_piece_len: Some(4096),
        ..Default::default()
    };
    check_all::<i32>(&mut rng, 50_000, &options, true);
}

/// The resident forms: a scan and a reduction recorded into one submission over one scratch,
/// and in pieces of 64-element multiples at binding offsets.
#[test]
fn resident_forms() {
    let gpu = gpu();
    let mut rng = rng("resident_forms");
    let scratch = gpu.create_scratch();
    for (len, max_piece_len) in [(0, None), (1, None), (10_001, None), (10_004, Some(640))] {
        let xs: Vec<u32> = (0..len).map(|_| rng.random_range(0..1000)).collect();
        let input = storage_buffer(&xs);
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let buffer = |words: usize| {
            gpu.device().create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: (words.max(1) * 4) as u64,
                usage,
                mapped_at_creation: false,
            })
        };
        let (scanned, minimum, total) = (buffer(len), buffer(1), buffer(1));
        let options = ScanOptions {
            max_piece_len,
            ..Default::default()
        };
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let scan = ScanBuffers {
            input: &input,
            output: &scanned,
            len,
        };
        gpu.encode_scan::<u32>(
            &mut encoder,
            &scratch,
            &scan,
            ScanKind::Exclusive,
            ReduceOp::Sum,
            &options,
        )
        .unwrap();
        for (op, output) in [(ReduceOp::Min, &minimum), (ReduceOp::Sum, &total)] {
            let buffers = ReduceBuffers {
                input: &input,
                len,
                output,
            };
            gpu.encode_reduce::<u32>(&mut encoder, &scratch, &buffers, op, &options)
                .unwrap();
        }
        gpu.queue().submit([encoder.finish()]);
        let context = format!("resident len {len} {max_piece_len:?}");
        assert_same(
            &read_buffer(&scanned, len),
            &cpu::scan(&xs, ScanKind::Exclusive, ReduceOp::Sum),
            &context,
        );
        assert_eq!(
            read_buffer(&minimum, 1)[0],
            cpu::reduce(&xs, ReduceOp::Min),
            "{context}"
        );
        assert_eq!(
            read_buffer(&total, 1)[0],
            cpu::reduce(&xs, ReduceOp::Sum),
            "{context}"
        );
    }
}

/// Misuse is an error: one buffer as input and output, look-back where the adapter does not
/// promise forward progress, subgroups on a device without them, a piece length of 0.
#[test]
fn misuse_is_an_error() {
    let gpu = gpu();
    let scratch = gpu.create_scratch();
    let buffer = storage_buffer(&[1, 2, 3, 4]);
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let same = ScanBuffers {
        input: &buffer,
        output: &buffer,
        len: 4,
    };
    let result = gpu.encode_scan::<u32>(
        &mut encoder,
        &scratch,
        &same,
        ScanKind::Inclusive,
        ReduceOp::Sum,
        &ScanOptions::default(),
    );
    assert!(matches!(result, Err(Error::Aliased { .. })), "{result:?}");
    let result = gpu.scan_with(
        &[1u32],
        ScanKind::Inclusive,
        ReduceOp::Sum,
        &ScanOptions {
            max_piece_len: Some(0),
            ..Default::default()
        },
    );
    assert!(
        matches!(result, Err(Error::InvalidOptions(_))),
        "{result:?}"
    );
    let look_back = ScanOptions {
        strategy: Some(ScanStrategy::LookBack),
        ..Default::default()
    };
    let info = gpu.adapter_info();
    if info.vendor != 0x10de {
        let result = gpu.scan_with(&[1u32], ScanKind::Inclusive, ReduceOp::Sum, &look_back);
        assert!(matches!(result, Err(Error::Unsupported(_))), "{result:?}");
    }
    if !gpu.device().features().contains(wgpu::Features::SUBGROUP) {
        let options = ScanOptions {
            subgroups: Some(true),
            ..Default::default()
        };
        let result = gpu.reduce_with(&[1u32], ReduceOp::Sum, &options);
        assert!(matches!(result, Err(Error::Unsupported(_))), "{result:?}");
    }
    gpu.queue().submit([encoder.finish()]);
}
