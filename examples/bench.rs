//! wgmerge's benchmark program: each operation over a size sweep on one adapter, with a WGSL copy
//! kernel as the bandwidth ceiling, CPU baselines and, given their output from the same run, the
//! CUDA anchors; printed as a table and optionally written as JSON and an SVG plot.
//!
//!     cargo run --release --example bench -- --sizes 16,20,24 --json bench.json --plot bench.svg
//!
//! `--sizes` are log2 of the elements (merges: two sorted halves of uniform random u32 keys).
//! `--cub`, `--cub-extra` and `--cub-e2e` read the output of `../shared/anchors/cub_bench.cu`,
//! `cub_extra.cu` and `cub_e2e.cu` from the same run and add CUDA's rows and our ratios to them.
//! A configuration that fails (too large for the device, say) is reported as a row and the sweep
//! goes on. Each row also goes to stderr as soon as it is measured, so that a sweep stopped by a
//! time limit keeps what it measured. `--help` lists every option.

#[path = "common/copy.rs"]
mod copy;
#[path = "common/timing.rs"]
mod timing;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use wgmerge::{
    cpu, Algorithm, Bound, DedupBuffers, DedupOptions, Gpu, KeptValueBuffers, MergeBuffers,
    MergeManyBuffers, MergeOptions, Order, RadixStrategy, ReduceBuffers, ReduceOp, ScanBuffers,
    ScanKind, ScanOptions, ScanStrategy, SearchBuffers, SearchOptions, SetBuffers, SetOperation,
    SetOptions, SortAlgorithm, SortBuffers, SortOptions, SortValueBuffers, ValueBuffers,
};

#[derive(Parser, Debug)]
#[command(about = "Benchmark wgmerge's operations over a size sweep")]
struct Args {
    /// Build the kernels with naga's runtime checks (bounds checks, loop bounding), as
    /// `Gpu::with_runtime_checks(true)` does; off by default, as in wgmerge.
    #[arg(long)]
    runtime_checks: bool,
    /// log2 of the element counts to run.
    #[arg(long, value_delimiter = ',', default_value = "16,20,22")]
    sizes: Vec<u32>,
    /// Operations to run.
    #[arg(long, value_delimiter = ',', default_value = "merge,pairs")]
    ops: Vec<Operation>,
    /// Workgroup shapes to run each merge algorithm with, as WORKGROUPxITEMS (e.g. 256x15), and
    /// merge sort beside its own choice; default: each algorithm's own.
    #[arg(long, value_delimiter = ',', value_parser = parse_shape)]
    shapes: Vec<(u32, u32)>,
    /// Tiles each workgroup merges (`MergeOptions::tiles_per_workgroup`), one run per value;
    /// default: each algorithm's own choice for the size.
    #[arg(long, value_delimiter = ',')]
    tiles: Vec<u32>,
    /// Timed end-to-end runs per configuration (median reported); 0 runs it once, only to check
    /// the result.
    #[arg(long, default_value_t = 3)]
    end_to_end_repeats: usize,
    /// Slice forms: the most elements one piece holds (`MergeOptions::max_piece_len`), one run of
    /// each merge configuration per value, 0 for wgmerge's own choice (the default).
    #[arg(long, value_delimiter = ',')]
    max_piece_len: Vec<usize>,
    /// Merge algorithms to run (default: all).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<AlgorithmArg>,
    /// Timed repeats (median reported), after a warm-up.
    #[arg(long, default_value_t = 10)]
    repeats: usize,
    /// Runs the many-way merge (`--ops many`) merges, one row per value.
    #[arg(long, value_delimiter = ',', default_value = "1024")]
    many_runs: Vec<usize>,
    /// Use the adapter whose name contains this text (case-insensitive).
    #[arg(long)]
    adapter: Option<String>,
    /// Use this backend: vulkan, metal, dx12, gl.
    #[arg(long)]
    backend: Option<String>,
    /// Open the device with at most this many bytes per storage binding (to see what happens to
    /// inputs beyond one binding on a small device).
    #[arg(long)]
    binding_limit: Option<u64>,
    /// Skip the CPU baselines.
    #[arg(long)]
    no_cpu: bool,
    /// Write every row as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Draw throughput against size as SVG.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Output of cub_bench.cu from the same run, for CUB's rows and ratios.
    #[arg(long)]
    cub: Option<PathBuf>,
    /// Output of cub_extra.cu from the same run (scan, reduce, Thrust's set operations).
    #[arg(long)]
    cub_extra: Option<PathBuf>,
    /// Output of cub_e2e.cu from the same run (CUDA's merge from host memory, and its transfers).
    #[arg(long)]
    cub_e2e: Option<PathBuf>,
    /// Run nothing: print and plot the rows of a JSON file this program wrote.
    #[arg(long)]
    input: Option<PathBuf>,
}

/// What `--json` writes and `--input` reads.
#[derive(Serialize, Deserialize)]
struct Report {
    adapter: AdapterSummary,
    rows: Vec<Row>,
}

#[derive(Clone, Serialize, Deserialize)]
struct AdapterSummary {
    name: String,
    backend: String,
    #[serde(default)]
    device_type: String,
    driver: String,
    driver_info: String,
}

#[derive(Clone, Copy, Debug, PartialEq, ValueEnum)]
enum Operation {
    /// Merge u32 keys: GPU time, end to end (into a new vector and into a slice), peak host
    /// memory.
    Merge,
    /// Merge u32 keys with u32 values.
    Pairs,
    /// Merge the two halves as u64 keys (each u32 key spread over both words), device time on
    /// resident buffers, in wgmerge's shape and each `--shapes` shape.
    MergeWide,
    /// Sort u32 keys (then pairs, then u64 keys) with merge sort, as CUB's SortKeysCopy: the time
    /// of the sort without the copy of its unsorted input.
    Sort,
    /// Sort u32 keys with radix sort (the default), as CUB's DeviceRadixSort::SortKeys: the time
    /// of the sort without the copy of its unsorted input.
    Radix,
    /// Each set operation on the two halves: device time on resident buffers (Thrust's
    /// set_union and set_intersection the anchors), and end to end.
    Set,
    /// Each set operation on the two halves with u32 values (each key's index), device time on
    /// resident buffers: keys and values read, kept keys and values written.
    SetPairs,
    /// Each set operation on the two halves as u64 keys (each u32 key spread over both words),
    /// device time on resident buffers.
    SetWide,
    /// search_sorted of one half (as needles, sorted, then shuffled) in the other, device time:
    /// compare with merge at the same size.
    Search,
    /// dedup of n sorted u32 keys, each about four times, device time: compare with the copy.
    Dedup,
    /// merge_many of `--many-runs` sorted runs totalling n u32 keys, device time (resident, without the
    /// copy of its input): CUB's radix sort of the same number of keys the anchor.
    Many,
    /// Inclusive sum scan of u32, each strategy.
    Scan,
    /// Sum reduction of u32.
    Reduce,
    /// wgpu's own upload and download bandwidth: queue.write_buffer into a GPU buffer, and a
    /// copy into a mapped buffer read back into a vector.
    Transfer,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum AlgorithmArg {
    Basic,
    Tiled,
    Circular,
    MergePath,
}

fn parse_shape(text: &str) -> Result<(u32, u32), String> {
    let (workgroup, items) = text.split_once('x').ok_or("expected WORKGROUPxITEMS")?;
    Ok((
        workgroup.parse().map_err(|_| "bad workgroup size")?,
        items.parse().map_err(|_| "bad items per thread")?,
    ))
}

impl From<AlgorithmArg> for Algorithm {
    fn from(a: AlgorithmArg) -> Self {
        match a {
            AlgorithmArg::Basic => Algorithm::Basic,
            AlgorithmArg::Tiled => Algorithm::Tiled,
            AlgorithmArg::Circular => Algorithm::CircularBuffer,
            AlgorithmArg::MergePath => Algorithm::MergePath,
        }
    }
}

/// One line of the table and one object of the JSON.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Row {
    operation: String,
    algorithm: String,
    key_type: String,
    value_type: Option<String>,
    n: usize,
    /// Device time of one operation (GPU rows), or wall time (CPU and end-to-end-only rows).
    time_ms: f64,
    /// Upload, operation and readback into a new vector.
    end_to_end_ms: Option<f64>,
    /// Upload, operation and readback into the caller's slice (`merge_into`).
    #[serde(default)]
    end_to_end_into_ms: Option<f64>,
    /// CUDA's pageable upload, CUB merge and download over ours, end to end: above 1 is faster.
    #[serde(default)]
    ratio_to_cuda_end_to_end: Option<f64>,
    /// The most host memory the call took beyond its inputs (MiB): result and staging.
    #[serde(default)]
    peak_host_mib: Option<f64>,
    keys_per_s: f64,
    /// Least bytes the operation must move, per second.
    gb_per_s: f64,
    percent_of_copy: Option<f64>,
    cub_ms: Option<f64>,
    /// CUB's time over ours: above 1 is faster than CUB.
    ratio_to_cub: Option<f64>,
    correct: Option<bool>,
    /// Why the configuration did not run, when it did not.
    #[serde(default)]
    error: Option<String>,
}

impl Row {
    fn new(
        operation: &str,
        algorithm: &str,
        value_type: Option<&'static str>,
        n: usize,
        time: Duration,
        bytes_per_key: f64,
    ) -> Self {
        let seconds = time.as_secs_f64().max(1e-12);
        Row {
            operation: operation.into(),
            algorithm: algorithm.into(),
            key_type: "u32".into(),
            value_type: value_type.map(Into::into),
            n,
            time_ms: seconds * 1e3,
            keys_per_s: n as f64 / seconds,
            gb_per_s: n as f64 * bytes_per_key / seconds / 1e9,
            ..Default::default()
        }
    }

    /// A configuration that could not run, named as its row would have been: `operation` (the
    /// name its anchor is matched on), `algorithm`, key and value types.
    fn failed(
        operation: &str,
        algorithm: &str,
        (key_type, value_type): RowTypes,
        n: usize,
        error: String,
    ) -> Self {
        Row {
            operation: operation.into(),
            algorithm: algorithm.into(),
            key_type: key_type.into(),
            value_type: value_type.map(Into::into),
            n,
            error: Some(error),
            ..Default::default()
        }
    }

    /// [`Row::failed`] for a `Failure` to come.
    fn failing(
        operation: &str,
        algorithm: &str,
        types: RowTypes,
        n: usize,
    ) -> impl FnOnce(Failure) -> Row {
        let (operation, algorithm) = (operation.to_string(), algorithm.to_string());
        move |e| Row::failed(&operation, &algorithm, types, n, e.to_string())
    }
}

/// A row's key type and value type, if any.
type RowTypes = (&'static str, Option<&'static str>);
/// u32 keys alone, u32 keys and values, u64 keys alone.
const U32: RowTypes = ("u32", None);
const U32_PAIRS: RowTypes = ("u32", Some("u32"));
const U64: RowTypes = ("u64", None);

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    env_logger::Builder::from_default_env()
        .format_timestamp_micros()
        .init();
    let args = Args::parse();
    let mut anchors = Vec::new();
    for path in [&args.cub, &args.cub_extra, &args.cub_e2e]
        .into_iter()
        .flatten()
    {
        anchors.extend(parse_anchors(&std::fs::read_to_string(path)?));
    }
    let (mut report, timer) = match &args.input {
        Some(path) => (
            serde_json::from_str::<Report>(&std::fs::read_to_string(path)?)?,
            "as recorded",
        ),
        None => run(&args)?,
    };
    let mut sizes: Vec<usize> = report.rows.iter().map(|r| r.n).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for n in sizes {
        add_anchors(&mut report.rows, &anchors, n);
    }
    report.rows.sort_by_key(|r| r.n);

    let a = &report.adapter;
    println!(
        "adapter: {} ({}, {}, driver {} {})",
        a.name, a.backend, a.device_type, a.driver, a.driver_info
    );
    println!(
        "GPU time: median of {} batches after warm-up, {timer}; end to end and CPU: median wall \
         time",
        args.repeats
    );
    print_table(&report.rows);
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(path) = &args.plot {
        plot(path, &report.rows, &report.adapter.name)?;
        eprintln!("wrote {}", path.display());
    }
    if report.rows.iter().any(|r| r.correct == Some(false)) {
        return Err("a GPU result differed from the CPU reference".into());
    }
    Ok(())
}

/// Runs the sweep on the chosen adapter.
fn run(args: &Args) -> Result<(Report, &'static str), Failure> {
    if let Some(&big) = args.sizes.iter().find(|&&s| s > 30) {
        return Err(format!("size 2^{big} is beyond 2^30").into());
    }
    let gpu = open_gpu(args)?;
    let info = gpu.adapter_info();
    let adapter = AdapterSummary {
        name: info.name.clone(),
        backend: info.backend.to_str().into(),
        device_type: format!("{:?}", info.device_type),
        driver: info.driver.clone(),
        driver_info: info.driver_info.clone(),
    };
    let algorithms: Vec<Algorithm> = if args.algorithms.is_empty() {
        Algorithm::ALL.to_vec()
    } else {
        args.algorithms.iter().map(|&a| a.into()).collect()
    };
    let merges = configurations(&algorithms, &args.shapes, &args.tiles).count();
    let steps_per_size = 1 + args.ops.len() * merges + if args.no_cpu { 0 } else { 4 };
    let progress = ProgressBar::new((args.sizes.len() * steps_per_size) as u64);
    progress.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")?);
    let copy_kernel = copy::CopyKernel::new(&gpu);
    let mut rows = Vec::new();
    // Each row also goes to stderr as soon as it is measured (without the anchors' ratios, added
    // at the end), so that a sweep cut short by a time limit keeps what it measured.
    let record = |rows: &mut Vec<Row>, row: Row| {
        progress.suspend(|| eprintln!("{}", table_line(&row)));
        rows.push(row);
    };
    for &log2 in &args.sizes {
        let n = 1usize << log2;
        progress.set_message(format!("2^{log2}: inputs"));
        let mut rng = rand::rngs::StdRng::seed_from_u64(u64::from(log2));
        let mut half = |_| {
            let mut v: Vec<u32> = (0..n / 2).map(|_| rng.random()).collect();
            v.par_sort_unstable();
            v
        };
        let (a, b) = (half(0), half(1));
        let a_values: Vec<u32> = (0..a.len() as u32).collect();
        let b_values: Vec<u32> = (0..b.len() as u32).map(|i| i | 1 << 31).collect();

        progress.set_message(format!("2^{log2}: copy"));
        let copy_gb_per_s = match bench_copy(&gpu, &copy_kernel, n, args.repeats) {
            Ok(row) => {
                let gb_per_s = row.gb_per_s;
                record(&mut rows, row);
                Some(gb_per_s)
            }
            Err(e) => {
                record(
                    &mut rows,
                    Row::failed("copy", "wgsl vec4 copy", U32, n, e.to_string()),
                );
                None
            }
        };
        let share = |row: &mut Row| {
            row.percent_of_copy = copy_gb_per_s.map(|copy| 100.0 * row.gb_per_s / copy);
        };
        progress.inc(1);

        for &operation in &args.ops {
            let step = format!("2^{log2}: {operation:?}");
            progress.set_message(step.clone());
            let mut outcome: Vec<Result<Row, Row>> = Vec::new();
            match operation {
                Operation::Set | Operation::SetPairs | Operation::SetWide => {
                    type BenchSet =
                        fn(&Gpu, SetOperation, &[u32], &[u32], &Args) -> Result<Row, Failure>;
                    let (bench, row, types): (BenchSet, _, _) = match operation {
                        Operation::SetPairs => (bench_set_pairs, "set_pairs", U32_PAIRS),
                        Operation::SetWide => (bench_set_wide, "set_u64", U64),
                        _ => (bench_set, "set", U32),
                    };
                    for set_operation in SetOperation::ALL {
                        let failed = Row::failing(row, set_operation.name(), types, n);
                        outcome.push(bench(&gpu, set_operation, &a, &b, args).map_err(failed));
                    }
                }
                Operation::MergeWide => {
                    let want = spread_u64(&cpu::merge(&a, &b));
                    let wide = (spread_u64(&a), spread_u64(&b));
                    let own = std::iter::once(None);
                    for shape in own.chain(args.shapes.iter().copied().map(Some)) {
                        let label = match shape {
                            None => "MergePath".to_string(),
                            Some((workgroup, items)) => format!("MergePath {workgroup}x{items}"),
                        };
                        outcome.push(
                            bench_merge_wide(&gpu, (&wide.0, &wide.1), &want, shape, &label, args)
                                .map_err(Row::failing("merge_u64", &label, U64, n)),
                        );
                    }
                }
                Operation::Search => {
                    for sorted in [true, false] {
                        let label = search_label(sorted);
                        outcome.push(
                            bench_search(&gpu, &a, &b, sorted, args)
                                .map_err(Row::failing("search", label, U32, n)),
                        );
                    }
                }
                Operation::Dedup => {
                    for (shape, types) in [
                        (DedupShape::Keys, U32),
                        (DedupShape::Pairs, U32_PAIRS),
                        (DedupShape::WideKeys, U64),
                    ] {
                        outcome.push(bench_dedup(&gpu, n, shape, args).map_err(Row::failing(
                            "dedup",
                            shape.label(),
                            types,
                            n,
                        )));
                    }
                }
                Operation::Many => {
                    for &runs in &args.many_runs {
                        outcome.push(bench_merge_many(&gpu, n, runs, args).map_err(Row::failing(
                            "merge_many",
                            &merge_many_label(runs),
                            U32,
                            n,
                        )));
                    }
                }
                Operation::Sort => {
                    let merge = SortOptions {
                        algorithm: SortAlgorithm::Merge,
                        ..Default::default()
                    };
                    // wgmerge's own shape, then each --shapes shape; keys, then pairs (CUB's
                    // merge sort anchor is keys only).
                    let mut shapes = vec![(merge.clone(), "merge sort".to_string())];
                    for &(workgroup, items) in &args.shapes {
                        let options = SortOptions {
                            workgroup_size: Some(workgroup),
                            items_per_thread: Some(items),
                            ..merge.clone()
                        };
                        shapes.push((options, format!("merge sort ({workgroup}x{items})")));
                    }
                    for (options, label) in &shapes {
                        outcome.push(
                            bench_sort_with(&gpu, n, options, label, args)
                                .map_err(Row::failing("sort", label, U32, n)),
                        );
                    }
                    for (options, label) in &shapes {
                        let pairs = RadixVariant::Pairs;
                        outcome.push(
                            bench_radix::<u32>(&gpu, n, pairs, options, label, args)
                                .map_err(Row::failing(pairs.operation(), label, U32_PAIRS, n)),
                        );
                    }
                    for (options, label) in &shapes {
                        let wide = RadixVariant::U64;
                        outcome.push(
                            bench_radix::<u64>(&gpu, n, wide, options, label, args)
                                .map_err(Row::failing(wide.operation(), label, U64, n)),
                        );
                    }
                }
                Operation::Radix => {
                    outcome.push(
                        bench_sort(&gpu, n, SortAlgorithm::Radix, args).map_err(Row::failing(
                            "sort",
                            "radix sort",
                            U32,
                            n,
                        )),
                    );
                    // The rank without subgroups, as devices without them run it, and the
                    // strategy that is not this device's default (each forced).
                    let variants = [
                        (
                            SortOptions {
                                subgroups: Some(false),
                                ..Default::default()
                            },
                            "radix sort (lane masks)",
                        ),
                        (
                            SortOptions {
                                strategy: Some(RadixStrategy::ReduceThenScan),
                                ..Default::default()
                            },
                            "radix sort (reduce then scan)",
                        ),
                        (
                            SortOptions {
                                strategy: Some(RadixStrategy::SingleSweep),
                                ..Default::default()
                            },
                            "radix sort (single sweep)",
                        ),
                    ];
                    for (options, label) in variants {
                        outcome.push(
                            bench_sort_with(&gpu, n, &options, label, args)
                                .map_err(Row::failing("sort", label, U32, n)),
                        );
                    }
                    let radix = SortOptions::default();
                    for variant in RadixVariant::ALL {
                        let (row, types) = match variant {
                            RadixVariant::Pairs => (
                                bench_radix::<u32>(&gpu, n, variant, &radix, "radix sort", args),
                                U32_PAIRS,
                            ),
                            RadixVariant::Low16 | RadixVariant::Below16 => (
                                bench_radix::<u32>(&gpu, n, variant, &radix, "radix sort", args),
                                U32,
                            ),
                            RadixVariant::U64 => (
                                bench_radix::<u64>(&gpu, n, variant, &radix, "radix sort", args),
                                U64,
                            ),
                        };
                        let failed = Row::failing(variant.operation(), "radix sort", types, n);
                        outcome.push(row.map_err(failed));
                    }
                }
                Operation::Scan => {
                    for strategy in [
                        None,
                        Some(ScanStrategy::SinglePass),
                        Some(ScanStrategy::ReduceThenScan),
                    ] {
                        let label = strategy_label(strategy);
                        outcome.push(
                            bench_scan(&gpu, n, strategy, args)
                                .map_err(Row::failing("scan", &label, U32, n)),
                        );
                    }
                }
                Operation::Reduce => outcome.push(
                    bench_reduce(&gpu, n, args).map_err(Row::failing("reduce", "sum", U32, n)),
                ),
                Operation::Transfer => {
                    outcome.extend(
                        bench_transfer(&gpu, n, args.repeats)
                            .map_err(Row::failing("transfer", "wgpu", U32, n))
                            .map_or_else(
                                |e| vec![Err(e)],
                                |rows| rows.into_iter().map(Ok).collect(),
                            ),
                    );
                }
                Operation::Merge | Operation::Pairs => {
                    let want = match operation {
                        Operation::Merge => (cpu::merge(&a, &b), Vec::new()),
                        _ => cpu::merge_pairs(&a, &a_values, &b, &b_values),
                    };
                    let piece_lens: Vec<Option<usize>> = if args.max_piece_len.is_empty() {
                        vec![None]
                    } else {
                        let choice = |&len: &usize| (len > 0).then_some(len);
                        args.max_piece_len.iter().map(choice).collect()
                    };
                    for ((&algorithm, shape, tiles), max_piece_len) in
                        configurations(&algorithms, &args.shapes, &args.tiles)
                            .flat_map(|c| piece_lens.iter().map(move |&p| (c, p)))
                    {
                        let mut label = format!("{algorithm:?}");
                        if let Some(len) = max_piece_len {
                            label += &format!(" pieces of {len}");
                        }
                        if let Some((workgroup, items)) = shape {
                            label += &format!(" {workgroup}x{items}");
                        }
                        if let Some(tiles) = tiles {
                            label += &format!(" t{tiles}");
                        }
                        progress.set_message(format!("{step} {label}"));
                        let options = MergeOptions {
                            algorithm,
                            workgroup_size: shape.map(|s| s.0),
                            items_per_thread: shape.map(|s| s.1),
                            tiles_per_workgroup: tiles,
                            max_piece_len,
                            ..Default::default()
                        };
                        let values = (operation == Operation::Pairs)
                            .then_some((&a_values[..], &b_values[..]));
                        let (merge_row, types) = match values {
                            Some(_) => ("merge_pairs", U32_PAIRS),
                            None => ("merge", U32),
                        };
                        outcome.push(
                            bench_merge(&gpu, &a, &b, values, &options, &label, args, &want)
                                .map_err(Row::failing(merge_row, &label, types, n)),
                        );
                        progress.inc(1);
                    }
                }
            }
            if !matches!(operation, Operation::Merge | Operation::Pairs) {
                progress.inc(merges as u64);
            }
            for result in outcome {
                match result {
                    Ok(mut row) => {
                        share(&mut row);
                        record(&mut rows, row);
                    }
                    Err(row) => record(&mut rows, row),
                }
            }
        }
        if !args.no_cpu {
            progress.set_message(format!("2^{log2}: CPU baselines"));
            for row in cpu_baselines(&a, &b, args.repeats.min(3), &progress) {
                record(&mut rows, row);
            }
        }
    }
    progress.finish_and_clear();
    Ok((Report { adapter, rows }, timing::timer_name(&gpu)))
}

fn strategy_label(strategy: Option<ScanStrategy>) -> String {
    match strategy {
        None => "default".into(),
        Some(strategy) => format!("{strategy:?}"),
    }
}

/// The adapter the arguments name, or wgmerge's default, with runtime checks as asked.
fn open_gpu(args: &Args) -> Result<Gpu, Failure> {
    Ok(open_adapter(args)?.with_runtime_checks(args.runtime_checks))
}

/// The adapter the arguments name, or wgmerge's default.
fn open_adapter(args: &Args) -> Result<Gpu, Failure> {
    if args.adapter.is_none() && args.backend.is_none() && args.binding_limit.is_none() {
        return Ok(Gpu::new()?);
    }
    let backends = match &args.backend {
        Some(name) => wgpu::Backends::from_comma_list(name),
        None => wgpu::Backends::all(),
    };
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapters = pollster::block_on(instance.enumerate_adapters(backends));
    let wanted = args.adapter.as_deref().unwrap_or("").to_lowercase();
    let adapter = adapters
        .iter()
        .find(|a| a.get_info().name.to_lowercase().contains(&wanted))
        .ok_or_else(|| {
            format!(
                "no adapter matches: {:?}",
                adapters
                    .iter()
                    .map(|a| a.get_info().name)
                    .collect::<Vec<_>>()
            )
        })?;
    let Some(binding_limit) = args.binding_limit else {
        return Ok(pollster::block_on(Gpu::from_adapter(adapter))?);
    };
    let wanted = wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::SUBGROUP;
    let limits = adapter.limits();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: adapter.features() & wanted,
        required_limits: wgpu::Limits {
            max_storage_buffer_binding_size:
                limits.max_storage_buffer_binding_size.min(binding_limit),
            ..limits
        },
        ..Default::default()
    }))?;
    Ok(Gpu::from_device(device, queue))
}

/// The WGSL copy kernel over `n` words: the ceiling for a merge of `n` keys.
fn bench_copy(
    gpu: &Gpu,
    kernel: &copy::CopyKernel,
    n: usize,
    repeats: usize,
) -> Result<Row, Failure> {
    let source: Vec<u32> = (0..n as u32).collect();
    let (from, to) = (
        timing::storage_buffer(gpu, &source),
        timing::storage_buffer(gpu, &vec![0; n]),
    );
    let time = timing::median_gpu_time(gpu, repeats, |encoder| {
        kernel.encode(gpu, encoder, &from, &to, n)
    })?;
    let mut row = Row::new("copy", "wgsl vec4 copy", None, n, time, 8.0);
    row.correct = Some(timing::read_words(gpu, &to, n)? == source);
    Ok(row)
}

/// Every algorithm with every shape and tile count asked for, or with its own when none is.
fn configurations<'a>(
    algorithms: &'a [Algorithm],
    shapes: &'a [(u32, u32)],
    tiles: &'a [u32],
) -> impl Iterator<Item = (&'a Algorithm, Option<(u32, u32)>, Option<u32>)> + 'a {
    fn or_default<T: Copy>(asked: &[T]) -> Vec<Option<T>> {
        if asked.is_empty() {
            vec![None]
        } else {
            asked.iter().copied().map(Some).collect()
        }
    }
    let (shapes, tiles) = (or_default(shapes), or_default(tiles));
    algorithms.iter().flat_map(move |a| {
        let tiles = tiles.clone();
        shapes
            .clone()
            .into_iter()
            .flat_map(move |s| tiles.clone().into_iter().map(move |t| (a, s, t)))
    })
}

/// The most resident memory the process had (Linux: VmHWM), and a way to restart that count
/// from the current resident memory: what a call took beyond what was there before it.
mod peak {
    fn status(field: &str) -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with(field))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib << 10)
    }

    /// Runs `work` and returns what it took beyond the memory resident before it, in bytes.
    pub fn taken<T>(work: impl FnOnce() -> T) -> (Option<u64>, T) {
        // Writing 5 restarts VmHWM from the current resident memory.
        let restarted = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        let before = status("VmRSS:");
        let value = work();
        let peak = status("VmHWM:");
        match (restarted, before, peak) {
            (true, Some(before), Some(peak)) => (Some(peak.saturating_sub(before)), value),
            _ => (None, value),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn bench_merge(
    gpu: &Gpu,
    a: &[u32],
    b: &[u32],
    values: Option<(&[u32], &[u32])>,
    options: &MergeOptions,
    label: &str,
    args: &Args,
    want: &(Vec<u32>, Vec<u32>),
) -> Result<Row, Failure> {
    let n = a.len() + b.len();
    // The resident buffers go before the end-to-end runs.
    let (time, _) = time_resident_merge::<u32>(gpu, (a, b), values, options, args.repeats)?;

    let (operation, value_type, bytes) = if values.is_some() {
        ("merge_pairs", Some("u32"), 16.0)
    } else {
        ("merge", None, 8.0)
    };
    let mut row = Row::new(operation, label, value_type, n, time, bytes);
    // End to end into a new vector: what `gpu.merge` costs a caller (the check comes after the
    // clock stops).
    let merge = || -> Result<(Vec<u32>, Vec<u32>), wgmerge::Error> {
        match values {
            None => Ok((gpu.merge_with(a, b, options)?, Vec::new())),
            Some((a_values, b_values)) => gpu.merge_pairs_with(a, a_values, b, b_values, options),
        }
    };
    let (peak, result) = peak::taken(merge);
    row.peak_host_mib = peak.map(|bytes| bytes as f64 / f64::from(1 << 20));
    let mut correct = result? == *want;
    if args.end_to_end_repeats > 0 {
        let (end_to_end, result) = timing::median_wall_time(args.end_to_end_repeats, merge);
        row.end_to_end_ms = Some(end_to_end.as_secs_f64() * 1e3);
        correct &= result? == *want;
        // Into the caller's slices, touched already (as CUDA's anchor writes into a vector it
        // has written before).
        let mut keys = vec![0u32; n];
        let mut out_values = vec![0u32; if values.is_some() { n } else { 0 }];
        let (into, result) = timing::median_wall_time(args.end_to_end_repeats, || match values {
            None => gpu.merge_into(a, b, &mut keys, options),
            Some((a_values, b_values)) => gpu.merge_pairs_into(
                (a, a_values),
                (b, b_values),
                (&mut keys, &mut out_values),
                options,
            ),
        });
        result?;
        row.end_to_end_into_ms = Some(into.as_secs_f64() * 1e3);
        correct &= keys == want.0 && (values.is_none() || out_values == want.1);
    }
    row.correct = Some(correct);
    Ok(row)
}

/// The median device time of one merge of `a` and `b`, keys of `K` as u32 words (with u32
/// `values`), on resident buffers, and the buffer of the merged keys.
fn time_resident_merge<K: wgmerge::Key>(
    gpu: &Gpu,
    (a, b): (&[u32], &[u32]),
    values: Option<(&[u32], &[u32])>,
    options: &MergeOptions,
    repeats: usize,
) -> Result<(Duration, wgpu::Buffer), Failure> {
    let key_words = K::TYPE.size() as usize / 4;
    let (a_len, b_len) = (a.len() / key_words, b.len() / key_words);
    let buffer = |data: &[u32]| timing::storage_buffer(gpu, data);
    let (a_buffer, b_buffer) = (buffer(a), buffer(b));
    let out = output_buffer(gpu, a.len() + b.len());
    let value_buffers = values.map(|(a_values, b_values)| {
        let out = output_buffer(gpu, a_len + b_len);
        (buffer(a_values), buffer(b_values), out)
    });
    let buffers = MergeBuffers {
        a: &a_buffer,
        a_len,
        b: &b_buffer,
        b_len,
        out: &out,
        values: value_buffers.as_ref().map(|(a, b, out)| ValueBuffers {
            a,
            b,
            out,
            value_size: 4,
        }),
    };
    let scratch = gpu.create_scratch();
    let time = timing::median_gpu_time(gpu, repeats, |encoder| {
        gpu.encode_merge::<K>(encoder, &scratch, &buffers, options)
    })?;
    Ok((time, out))
}

/// A merge of u64 keys `a` and `b` in `shape` (wgmerge's own where None): device time on
/// resident buffers, checked against `want`. A row of its own operation (`merge_u64`), which no
/// u32 anchor matches.
fn bench_merge_wide(
    gpu: &Gpu,
    (a, b): (&[u64], &[u64]),
    want: &[u64],
    shape: Option<(u32, u32)>,
    label: &str,
    args: &Args,
) -> Result<Row, Failure> {
    let n = a.len() + b.len();
    let options = MergeOptions {
        workgroup_size: shape.map(|s| s.0),
        items_per_thread: shape.map(|s| s.1),
        ..Default::default()
    };
    let words = |keys| bytemuck::cast_slice(keys);
    let (time, out) =
        time_resident_merge::<u64>(gpu, (words(a), words(b)), None, &options, args.repeats)?;
    let got = timing::read_words(gpu, &out, 2 * n)?;
    let mut row = Row::new("merge_u64", label, None, n, time, 16.0);
    row.key_type = "u64".into();
    row.correct = Some(got == bytemuck::cast_slice::<u64, u32>(want));
    Ok(row)
}

/// A sort of `n` uniform random u32 keys on resident buffers with `algorithm`. Each timed
/// repetition copies the unsorted input into the keys buffer and sorts it there; the copy's own
/// time is taken off (without_input_copy). The result is checked once against the CPU.
fn bench_sort(gpu: &Gpu, n: usize, algorithm: SortAlgorithm, args: &Args) -> Result<Row, Failure> {
    let label = sort_label(algorithm);
    let options = SortOptions {
        algorithm,
        ..Default::default()
    };
    bench_sort_with(gpu, n, &options, label, args)
}

/// A sort's time without the copy of the unsorted input that each timed repetition starts with
/// (the sorts work in place): that copy timed alone and taken off, since CUB's sorts read their
/// input in their first pass as ours do.
fn without_input_copy(
    gpu: &Gpu,
    args: &Args,
    time: std::time::Duration,
    copy: impl Fn(&mut wgpu::CommandEncoder),
) -> Result<std::time::Duration, Failure> {
    let copy_time = timing::median_gpu_time(gpu, args.repeats, |encoder| {
        copy(encoder);
        Ok(())
    })?;
    Ok(time.saturating_sub(copy_time))
}

/// A sort's row label: the name its CUB anchor is matched on.
fn sort_label(algorithm: SortAlgorithm) -> &'static str {
    match algorithm {
        SortAlgorithm::Radix => "radix sort",
        SortAlgorithm::Merge => "merge sort",
    }
}

/// u32 keys sorted with `options`, labelled `label`.
fn bench_sort_with(
    gpu: &Gpu,
    n: usize,
    options: &SortOptions,
    label: &str,
    args: &Args,
) -> Result<Row, Failure> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64);
    let input: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let buffer = |usage| {
        use wgpu::util::DeviceExt;
        gpu.device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(&input),
                usage: wgpu::BufferUsages::STORAGE | usage,
            })
    };
    let (unsorted, keys, temp) = (
        buffer(wgpu::BufferUsages::COPY_SRC),
        buffer(wgpu::BufferUsages::COPY_DST),
        buffer(wgpu::BufferUsages::empty()),
    );
    let buffers = SortBuffers {
        keys: &keys,
        temp: &temp,
        len: n,
        values: None,
    };
    let scratch = gpu.create_scratch();
    let copy = |encoder: &mut wgpu::CommandEncoder| {
        encoder.copy_buffer_to_buffer(&unsorted, 0, &keys, 0, n as u64 * 4);
    };
    let time = timing::median_gpu_time(gpu, args.repeats, |encoder| {
        copy(encoder);
        gpu.encode_sort::<u32>(encoder, &scratch, &buffers, options)
    })?;
    let time = without_input_copy(gpu, args, time, copy)?;
    drop((unsorted, keys, temp));
    let mut row = Row::new("sort", label, None, n, time, 8.0);
    let mut want = input.clone();
    want.par_sort_unstable();
    let (end_to_end, sorted) = timing::median_wall_time(args.end_to_end_repeats.max(1), || {
        gpu.sort_with(&input, options)
    });
    row.end_to_end_ms = Some(end_to_end.as_secs_f64() * 1e3);
    row.correct = Some(sorted? == want);
    Ok(row)
}

/// The radix sorts measured beside u32 keys, each against its CUB anchor.
#[derive(Clone, Copy)]
enum RadixVariant {
    /// u32 keys with u32 values (CUB SortPairs).
    Pairs,
    /// u64 keys (CUB SortKeys on u64).
    U64,
    /// u32 keys on bits 0..16 (CUB SortKeys with end_bit 16).
    Low16,
    /// u32 keys below 2^16 sorted on all 32 bits: the two high passes only copy (no anchor).
    Below16,
}

impl RadixVariant {
    const ALL: [RadixVariant; 4] = [
        RadixVariant::Pairs,
        RadixVariant::U64,
        RadixVariant::Low16,
        RadixVariant::Below16,
    ];

    /// The row's operation: the name its CUB anchor is matched on.
    fn operation(self) -> &'static str {
        match self {
            RadixVariant::Pairs => "sort_pairs",
            RadixVariant::U64 => "sort_u64",
            RadixVariant::Low16 => "sort_16bit",
            RadixVariant::Below16 => "sort_below_2^16",
        }
    }
}

/// A radix sort variant (pairs and u64 keys also with merge sort) sorted with `options`, labelled
/// `label`, on the GPU, timed as CUB's SortKeys without the copy of its unsorted input; the slice
/// form's result checked against a stable CPU sort.
fn bench_radix<K: wgmerge::Key + Ord>(
    gpu: &Gpu,
    n: usize,
    variant: RadixVariant,
    options: &SortOptions,
    label: &str,
    args: &Args,
) -> Result<Row, Failure>
where
    rand::distr::StandardUniform: rand::distr::Distribution<K>,
{
    let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64 ^ 0x5eed);
    let mut keys: Vec<K> = (0..n).map(|_| rng.random()).collect();
    if matches!(variant, RadixVariant::Below16) {
        for key in &mut keys {
            bytemuck::bytes_of_mut(key)[2..].fill(0);
        }
    }
    let values: Vec<u32> = (0..n as u32).collect();
    let buffer = |contents: &[u8], usage| {
        use wgpu::util::DeviceExt;
        gpu.device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents,
                usage: wgpu::BufferUsages::STORAGE | usage,
            })
    };
    let key_bytes = bytemuck::cast_slice(&keys);
    let (unsorted, sorted, temp) = (
        buffer(key_bytes, wgpu::BufferUsages::COPY_SRC),
        buffer(key_bytes, wgpu::BufferUsages::COPY_DST),
        buffer(key_bytes, wgpu::BufferUsages::empty()),
    );
    let value_bytes = bytemuck::cast_slice(&values);
    let (original, moved, moved_temp) = (
        buffer(value_bytes, wgpu::BufferUsages::COPY_SRC),
        buffer(value_bytes, wgpu::BufferUsages::COPY_DST),
        buffer(value_bytes, wgpu::BufferUsages::empty()),
    );
    let pairs = matches!(variant, RadixVariant::Pairs);
    let buffers = SortBuffers {
        keys: &sorted,
        temp: &temp,
        len: n,
        values: pairs.then_some(SortValueBuffers {
            values: &moved,
            temp: &moved_temp,
            value_size: 4,
        }),
    };
    let options = SortOptions {
        bits: matches!(variant, RadixVariant::Low16).then_some(0..16),
        ..options.clone()
    };
    let scratch = gpu.create_scratch();
    let key_len = std::mem::size_of::<K>() as u64;
    let copy = |encoder: &mut wgpu::CommandEncoder| {
        encoder.copy_buffer_to_buffer(&unsorted, 0, &sorted, 0, n as u64 * key_len);
        if pairs {
            encoder.copy_buffer_to_buffer(&original, 0, &moved, 0, n as u64 * 4);
        }
    };
    let time = timing::median_gpu_time(gpu, args.repeats, |encoder| {
        copy(encoder);
        gpu.encode_sort::<K>(encoder, &scratch, &buffers, &options)
    })?;
    let time = without_input_copy(gpu, args, time, copy)?;
    drop((unsorted, sorted, temp, original, moved, moved_temp));
    let bytes = 2.0 * key_len as f64 + if pairs { 8.0 } else { 0.0 };
    let mut row = Row::new(
        variant.operation(),
        label,
        pairs.then_some("u32"),
        n,
        time,
        bytes,
    );
    row.key_type = K::TYPE.name().into();
    // The stable order on the sorted bits, the values saying where each key came from.
    let mut want: Vec<(K, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
    let low16 = |k: &K| bytemuck::bytes_of(k)[..2].to_vec();
    match variant {
        RadixVariant::Low16 => {
            want.par_sort_by_key(|(k, _)| u16::from_le_bytes(low16(k).try_into().unwrap()))
        }
        _ => want.par_sort_by_key(|&(k, _)| k),
    }
    let correct = if pairs {
        let (k, v) = gpu.sort_pairs_with(&keys, &values, &options)?;
        k.iter().copied().zip(v).eq(want.iter().copied())
    } else {
        gpu.sort_with(&keys, &options)? == want.iter().map(|&(k, _)| k).collect::<Vec<_>>()
    };
    row.correct = Some(correct);
    Ok(row)
}

/// A zeroed buffer of `words` u32 (at least one) that kernels write and tests read back.
fn output_buffer(gpu: &Gpu, words: usize) -> wgpu::Buffer {
    gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (words.max(1) * 4) as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// A set operation on resident buffers, with `values` moved with the keys if given: the median
/// device time (the count left on the GPU) and the kept keys' words and values read back.
fn time_resident_set<K: wgmerge::Key>(
    gpu: &Gpu,
    operation: SetOperation,
    (a, b): (&[K], &[K]),
    values: Option<(&[u32], &[u32])>,
    repeats: usize,
) -> Result<(Duration, Vec<u32>, Vec<u32>), Failure> {
    let n = a.len() + b.len();
    let key_words = std::mem::size_of::<K>() / 4;
    let buffer = |words: &[u32]| timing::storage_buffer(gpu, words);
    let (a_keys, b_keys) = (
        buffer(bytemuck::cast_slice(a)),
        buffer(bytemuck::cast_slice(b)),
    );
    let moved = values.map(|(a, b)| (buffer(a), buffer(b), output_buffer(gpu, n)));
    let (out, count) = (output_buffer(gpu, n * key_words), output_buffer(gpu, 1));
    let buffers = SetBuffers {
        a: &a_keys,
        a_len: a.len(),
        b: &b_keys,
        b_len: b.len(),
        out: &out,
        count: &count,
        values: moved.as_ref().map(|(a, b, out)| ValueBuffers {
            a,
            b,
            out,
            value_size: 4,
        }),
    };
    let scratch = gpu.create_scratch();
    let options = SetOptions::default();
    let time = timing::median_gpu_time(gpu, repeats, |encoder| {
        gpu.encode_set_operation::<K>(encoder, &scratch, operation, &buffers, &options)
    })?;
    let kept = timing::read_words(gpu, &count, 1)?[0] as usize;
    let keys = timing::read_words(gpu, &out, kept * key_words)?;
    let kept_values = match &moved {
        Some((_, _, out_values)) => timing::read_words(gpu, out_values, kept)?,
        None => Vec::new(),
    };
    Ok((time, keys, kept_values))
}

/// Each set operation on the two halves: device time on resident buffers (the count left on
/// the GPU), checked against the CPU, and end to end. It must read both inputs and write what
/// it keeps.
fn bench_set(
    gpu: &Gpu,
    operation: SetOperation,
    a: &[u32],
    b: &[u32],
    args: &Args,
) -> Result<Row, Failure> {
    let n = a.len() + b.len();
    let want = cpu::set_operation(operation, a, b);
    let (time, got, _) = time_resident_set(gpu, operation, (a, b), None, args.repeats)?;
    let resident_correct = got == want;
    let bytes = 4.0 * (n + want.len()) as f64 / n as f64;
    let mut row = Row::new("set", operation.name(), None, n, time, bytes);
    let (end_to_end, got) = timing::median_wall_time(args.end_to_end_repeats.clamp(1, 5), || {
        gpu.set_operation(operation, a, b)
    });
    row.end_to_end_ms = Some(end_to_end.as_secs_f64() * 1e3);
    row.correct = Some(resident_correct && got? == want);
    Ok(row)
}

/// A set operation on the two halves with u32 values (each key's index in the concatenated
/// input): device time on resident buffers, checked against the CPU. It must read both inputs'
/// keys and values and write the kept ones.
fn bench_set_pairs(
    gpu: &Gpu,
    operation: SetOperation,
    a: &[u32],
    b: &[u32],
    args: &Args,
) -> Result<Row, Failure> {
    let n = a.len() + b.len();
    let (a_values, b_values): (Vec<u32>, Vec<u32>) = (
        (0..a.len() as u32).collect(),
        (a.len() as u32..n as u32).collect(),
    );
    let (want_keys, want_values) =
        cpu::set_operation_pairs_ordered(operation, a, &a_values, b, &b_values, Order::Ascending);
    let values = Some((&a_values[..], &b_values[..]));
    let (time, keys, kept_values) =
        time_resident_set(gpu, operation, (a, b), values, args.repeats)?;
    let bytes = 8.0 * (n + want_keys.len()) as f64 / n as f64;
    let mut row = Row::new("set_pairs", operation.name(), Some("u32"), n, time, bytes);
    row.correct = Some(keys == want_keys && kept_values == want_values);
    Ok(row)
}

/// A set operation on the two halves as u64 keys, each u32 key spread over both words
/// (`spread_u64`): device time on resident buffers, checked against the CPU.
fn bench_set_wide(
    gpu: &Gpu,
    operation: SetOperation,
    a: &[u32],
    b: &[u32],
    args: &Args,
) -> Result<Row, Failure> {
    let n = a.len() + b.len();
    let want = spread_u64(&cpu::set_operation(operation, a, b));
    let (wide_a, wide_b) = (spread_u64(a), spread_u64(b));
    let (time, got, _) = time_resident_set(
        gpu,
        operation,
        (&wide_a[..], &wide_b[..]),
        None,
        args.repeats,
    )?;
    let bytes = 8.0 * (n + want.len()) as f64 / n as f64;
    // Its own operation (`set_u64`), which Thrust's u32 anchors do not match.
    let mut row = Row::new("set_u64", operation.name(), None, n, time, bytes);
    row.key_type = "u64".into();
    row.correct = Some(got == bytemuck::cast_slice::<u64, u32>(&want));
    Ok(row)
}

/// Each u32 key in both words of a u64 key, in the same order: both words vary and the high one
/// decides.
fn spread_u64(keys: &[u32]) -> Vec<u64> {
    keys.iter()
        .map(|&k| (u64::from(k) << 32) | u64::from(k.rotate_left(16)))
        .collect()
}

fn search_label(sorted: bool) -> &'static str {
    if sorted {
        "lower bound (sorted needles)"
    } else {
        "lower bound (shuffled needles)"
    }
}

/// search_sorted of `needles` (sorted, or shuffled) in `haystack`, device time: it reads both
/// and writes an index per needle.
fn bench_search(
    gpu: &Gpu,
    haystack: &[u32],
    needles: &[u32],
    sorted: bool,
    args: &Args,
) -> Result<Row, Failure> {
    use rand::seq::SliceRandom;
    let mut needles = needles.to_vec();
    if !sorted {
        let seed = needles.len() as u64;
        needles.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    }
    let n = haystack.len() + needles.len();
    let (h, k, out) = (
        timing::storage_buffer(gpu, haystack),
        timing::storage_buffer(gpu, &needles),
        output_buffer(gpu, needles.len()),
    );
    let buffers = SearchBuffers {
        haystack: &h,
        haystack_len: haystack.len(),
        needles: &k,
        needles_len: needles.len(),
        out: &out,
    };
    let scratch = gpu.create_scratch();
    let options = SearchOptions {
        bound: Bound::Lower,
        order: Order::Ascending,
    };
    let time = timing::median_gpu_time(gpu, args.repeats, |encoder| {
        gpu.encode_search_sorted::<u32>(encoder, &scratch, &buffers, &options)
    })?;
    let got = timing::read_words(gpu, &out, needles.len())?;
    let want: Vec<u32> = needles
        .par_iter()
        .map(|&x| haystack.partition_point(|&y| y < x) as u32)
        .collect();
    let bytes = 4.0 * (n + needles.len()) as f64 / n as f64;
    let mut row = Row::new("search", search_label(sorted), None, n, time, bytes);
    row.correct = Some(got == want);
    Ok(row)
}

/// What a dedup benchmark dedups: u32 keys, u32 keys with u32 values, or u64 keys.
#[derive(Clone, Copy, PartialEq)]
enum DedupShape {
    Keys,
    Pairs,
    WideKeys,
}

impl DedupShape {
    fn label(self) -> &'static str {
        match self {
            DedupShape::Keys => "keep first",
            DedupShape::Pairs => "keep first, pairs",
            DedupShape::WideKeys => "keep first, u64 keys",
        }
    }
}

/// dedup of `n` sorted keys drawn from n / 4 values (about 4 copies each, 25% kept), device
/// time: it reads the keys (and values) and writes the kept ones. u64 keys spread each value over
/// both words; pairs' values are the keys' indices.
fn bench_dedup(gpu: &Gpu, n: usize, shape: DedupShape, args: &Args) -> Result<Row, Failure> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64 + 5);
    let mut keys: Vec<u32> = (0..n)
        .map(|_| rng.random_range(0..(n / 4).max(1) as u32))
        .collect();
    keys.par_sort_unstable();
    let index: Vec<u32> = (0..n as u32).collect();
    let (want_keys, want_values) = cpu::dedup_pairs(&keys, &index, false);
    let wide = spread_u64(&keys);
    let key_words = if shape == DedupShape::WideKeys { 2 } else { 1 };
    let input = match shape {
        DedupShape::WideKeys => timing::storage_buffer(gpu, bytemuck::cast_slice(&wide)),
        _ => timing::storage_buffer(gpu, &keys),
    };
    let (out, count) = (output_buffer(gpu, n * key_words), output_buffer(gpu, 1));
    let (values, values_out) = (timing::storage_buffer(gpu, &index), output_buffer(gpu, n));
    let buffers = DedupBuffers {
        keys: &input,
        len: n,
        out: &out,
        count: &count,
        values: (shape == DedupShape::Pairs).then_some(KeptValueBuffers {
            values: &values,
            out: &values_out,
            value_size: 4,
        }),
    };
    let scratch = gpu.create_scratch();
    let options = DedupOptions::default();
    let time = timing::median_gpu_time(gpu, args.repeats, |encoder| match shape {
        DedupShape::WideKeys => gpu.encode_dedup::<u64>(encoder, &scratch, &buffers, &options),
        _ => gpu.encode_dedup::<u32>(encoder, &scratch, &buffers, &options),
    })?;
    let kept = timing::read_words(gpu, &count, 1)?[0] as usize;
    let got = timing::read_words(gpu, &out, kept * key_words)?;
    let correct = match shape {
        DedupShape::Keys => got == want_keys,
        DedupShape::Pairs => {
            got == want_keys && timing::read_words(gpu, &values_out, kept)? == want_values
        }
        DedupShape::WideKeys => got == bytemuck::cast_slice::<u64, u32>(&spread_u64(&want_keys)),
    };
    let element = 4.0 * key_words as f64 + if shape == DedupShape::Pairs { 4.0 } else { 0.0 };
    let bytes = element * (n + kept) as f64 / n as f64;
    let value_type = (shape == DedupShape::Pairs).then_some("u32");
    let mut row = Row::new("dedup", shape.label(), value_type, n, time, bytes);
    if shape == DedupShape::WideKeys {
        row.key_type = "u64".into();
    }
    row.correct = Some(correct);
    Ok(row)
}

fn merge_many_label(runs: usize) -> String {
    format!("{runs} runs")
}

/// merge_many of `runs` sorted runs of uniform random u32 totalling `n` keys, resident, device
/// time without the copy of its input (as the sorts): CUB's radix sort of n keys the anchor.
fn bench_merge_many(gpu: &Gpu, n: usize, runs: usize, args: &Args) -> Result<Row, Failure> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64 + 7);
    let mut keys: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let run_len = n.div_ceil(runs);
    keys.par_chunks_mut(run_len)
        .for_each(|run| run.sort_unstable());
    let starts: Vec<usize> = (0..runs).map(|r| (r * run_len).min(n)).collect();
    let buffer = |usage| {
        use wgpu::util::DeviceExt;
        gpu.device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(&keys),
                usage: wgpu::BufferUsages::STORAGE | usage,
            })
    };
    let (unmerged, merged, temp) = (
        buffer(wgpu::BufferUsages::COPY_SRC),
        buffer(wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC),
        buffer(wgpu::BufferUsages::empty()),
    );
    let buffers = MergeManyBuffers {
        runs: SortBuffers {
            keys: &merged,
            temp: &temp,
            len: n,
            values: None,
        },
        run_starts: &starts,
    };
    let scratch = gpu.create_scratch();
    let copy = |encoder: &mut wgpu::CommandEncoder| {
        encoder.copy_buffer_to_buffer(&unmerged, 0, &merged, 0, n as u64 * 4);
    };
    let time = timing::median_gpu_time(gpu, args.repeats, |encoder| {
        copy(encoder);
        gpu.encode_merge_many::<u32>(encoder, &scratch, &buffers, Order::Ascending)
    })?;
    // Read before the copy is timed alone, which leaves the runs unmerged.
    let got = timing::read_words(gpu, &merged, n)?;
    let time = without_input_copy(gpu, args, time, copy)?;
    keys.par_sort_unstable();
    let mut row = Row::new("merge_many", &merge_many_label(runs), None, n, time, 8.0);
    row.correct = Some(got == keys);
    Ok(row)
}

/// Uniform random u32 elements below 16, whose sums stay far from wrapping at every size.
fn scan_input(n: usize) -> Vec<u32> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64 + 3);
    (0..n).map(|_| rng.random_range(0..16)).collect()
}

/// Inclusive sum scan of `n` u32 on resident buffers (CUB's DeviceScan::InclusiveSum); the
/// slice form checked once against the CPU.
fn bench_scan(
    gpu: &Gpu,
    n: usize,
    strategy: Option<ScanStrategy>,
    args: &Args,
) -> Result<Row, Failure> {
    let input = scan_input(n);
    let (source, target) = (
        timing::storage_buffer(gpu, &input),
        timing::storage_buffer(gpu, &vec![0; n]),
    );
    let options = ScanOptions {
        strategy,
        ..Default::default()
    };
    let scratch = gpu.create_scratch();
    let buffers = ScanBuffers {
        input: &source,
        output: &target,
        len: n,
    };
    let (kind, op) = (ScanKind::Inclusive, ReduceOp::Sum);
    let time = timing::median_gpu_time(gpu, args.repeats, |encoder| {
        gpu.encode_scan::<u32>(encoder, &scratch, &buffers, kind, op, &options)
    })?;
    drop((source, target));
    let mut row = Row::new("scan", &strategy_label(strategy), None, n, time, 8.0);
    let (end_to_end, got) = timing::median_wall_time(args.end_to_end_repeats.max(1), || {
        gpu.scan_with(&input, kind, op, &options)
    });
    row.end_to_end_ms = Some(end_to_end.as_secs_f64() * 1e3);
    row.correct = Some(got? == cpu::scan(&input, kind, op));
    Ok(row)
}

/// Sum reduction of `n` u32 on a resident buffer (CUB's DeviceReduce::Sum).
fn bench_reduce(gpu: &Gpu, n: usize, args: &Args) -> Result<Row, Failure> {
    let input = scan_input(n);
    let source = timing::storage_buffer(gpu, &input);
    let result = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let scratch = gpu.create_scratch();
    let buffers = ReduceBuffers {
        input: &source,
        len: n,
        output: &result,
    };
    let options = ScanOptions::default();
    let time = timing::median_gpu_time(gpu, args.repeats, |encoder| {
        gpu.encode_reduce::<u32>(encoder, &scratch, &buffers, ReduceOp::Sum, &options)
    })?;
    drop(source);
    let mut row = Row::new("reduce", "sum", None, n, time, 4.0);
    let (end_to_end, got) = timing::median_wall_time(args.end_to_end_repeats.max(1), || {
        gpu.reduce(&input, ReduceOp::Sum)
    });
    row.end_to_end_ms = Some(end_to_end.as_secs_f64() * 1e3);
    row.correct = Some(got? == cpu::reduce(&input, ReduceOp::Sum));
    Ok(row)
}

/// wgpu's own transfers of `n` u32, each waited for, two ways. Plain: `queue.write_buffer` from
/// a vector, and a copy into a mapped buffer read into a new vector. Staged as wgmerge's host
/// driver does it: the vector written into a mapped staging buffer by several threads and copied
/// to the GPU buffer, and the mapped readback copied by several threads into a vector whose pages
/// are already in memory. The plain forms pay wgpu's own single-threaded copy and the new
/// vector's page faults; the staged forms show the bandwidth wgpu gives where those are avoided.
fn bench_transfer(gpu: &Gpu, n: usize, repeats: usize) -> Result<Vec<Row>, Failure> {
    /// Bytes each thread copies at a time.
    const CHUNK: usize = 1 << 20;
    let data: Vec<u32> = (0..n as u32).collect();
    let bytes = n as u64 * 4;
    let device = gpu.device();
    let buffer = |usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes,
            usage,
            mapped_at_creation: false,
        })
    };
    let target = buffer(
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    );
    let readback = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
    let staging = buffer(wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC);
    let wait = || device.poll(wgpu::PollType::wait_indefinitely()).map(|_| ());
    let copy = |from: &wgpu::Buffer, to: &wgpu::Buffer| {
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(from, 0, to, 0, bytes);
        gpu.queue().submit([encoder.finish()]);
    };
    let (upload, uploaded) = timing::median_wall_time(repeats.max(3), || {
        gpu.queue()
            .write_buffer(&target, 0, bytemuck::cast_slice(&data));
        gpu.queue().submit([]);
        wait()
    });
    uploaded?;
    let (download, read) =
        timing::median_wall_time(repeats.max(3), || -> Result<Vec<u32>, Failure> {
            copy(&target, &readback);
            readback.map_async(wgpu::MapMode::Read, .., |r| r.expect("mapped"));
            wait()?;
            let words = bytemuck::pod_collect_to_vec(&readback.get_mapped_range(..)?);
            readback.unmap();
            Ok(words)
        });
    let downloaded_plain = read? == data;
    let (staged_upload, uploaded) =
        timing::median_wall_time(repeats.max(3), || -> Result<(), Failure> {
            staging.map_async(wgpu::MapMode::Write, .., |r| r.expect("mapped"));
            wait()?;
            {
                // Parts of one size, one a thread at a time (as src/host.rs's write_parallel).
                let mut view = staging.get_mapped_range_mut(..)?;
                let (parts, mut tail) = view.slice(..).into_chunks::<CHUNK>();
                let data = bytemuck::cast_slice::<u32, u8>(&data);
                let (chunks, rest) = data.split_at(parts.len() * CHUNK);
                parts
                    .into_iter()
                    .collect::<Vec<_>>()
                    .into_par_iter()
                    .zip(chunks.par_chunks(CHUNK))
                    .for_each(|(to, from)| wgpu::WriteOnly::<[u8]>::from(to).copy_from_slice(from));
                tail.copy_from_slice(rest);
            }
            staging.unmap();
            copy(&staging, &target);
            Ok(wait()?)
        });
    uploaded?;
    // Zeroed, so that a readback that copied nothing cannot pass; its pages are in memory.
    let mut result = vec![0u32; n];
    let (staged_download, read) =
        timing::median_wall_time(repeats.max(3), || -> Result<(), Failure> {
            copy(&target, &readback);
            readback.map_async(wgpu::MapMode::Read, .., |r| r.expect("mapped"));
            wait()?;
            bytemuck::cast_slice_mut::<u32, u8>(&mut result)
                .par_chunks_mut(CHUNK)
                .zip(readback.get_mapped_range(..)?.par_chunks(CHUNK))
                .for_each(|(to, from)| to.copy_from_slice(from));
            readback.unmap();
            Ok(())
        });
    read?;
    let threads = rayon::current_num_threads();
    let mut rows = Vec::new();
    for (name, time, correct) in [
        ("upload (write_buffer)".to_string(), upload, true),
        (
            "download (mapped copy)".to_string(),
            download,
            downloaded_plain,
        ),
        (format!("upload ({threads} threads)"), staged_upload, true),
        (
            format!("download ({threads} threads)"),
            staged_download,
            result == data,
        ),
    ] {
        let mut row = Row::new("transfer", &format!("wgpu {name}"), None, n, time, 4.0);
        row.correct = Some(correct);
        rows.push(row);
    }
    Ok(rows)
}

/// The same merge on the CPU: std's sequential merge and sort, rayon's parallel sort, and a
/// rayon merge split by co-rank.
fn cpu_baselines(a: &[u32], b: &[u32], repeats: usize, progress: &ProgressBar) -> Vec<Row> {
    let n = a.len() + b.len();
    let concatenated = [a, b].concat();
    let mut rows = Vec::new();
    let mut add = |name: &str, time: Duration| {
        rows.push(Row::new("merge", name, None, n, time, 8.0));
        progress.inc(1);
    };
    add(
        "cpu std merge",
        timing::median_wall_time(repeats, || cpu::merge(a, b)).0,
    );
    add(
        "cpu std sort (stable)",
        timing::median_wall_time(repeats, || concatenated.clone().sort()).0,
    );
    add(
        "cpu rayon par_sort_unstable",
        timing::median_wall_time(repeats, || concatenated.clone().par_sort_unstable()).0,
    );
    add(
        "cpu rayon co-rank merge",
        timing::median_wall_time(repeats, || rayon_merge(a, b)).0,
    );
    rows
}

/// Parallel merge on the CPU: the output is cut into chunks, each chunk's inputs found by
/// co-rank, and the chunks merged in parallel.
fn rayon_merge(a: &[u32], b: &[u32]) -> Vec<u32> {
    let n = a.len() + b.len();
    let mut out = vec![0; n];
    let chunk = n.div_ceil(rayon::current_num_threads() * 4).max(1 << 14);
    out.par_chunks_mut(chunk)
        .enumerate()
        .for_each(|(index, piece)| {
            let k0 = index * chunk;
            let k1 = k0 + piece.len();
            let (i0, i1) = (cpu::co_rank(k0, a, b), cpu::co_rank(k1, a, b));
            piece.copy_from_slice(&cpu::merge(&a[i0..i1], &b[k0 - i0..k1 - i1]));
        });
    out
}

/// The CUDA anchors' numbers for one size, from any of the anchors' outputs: a line
/// `n=2^K ... | name T ms ... | name T GB/s ...`.
#[derive(Debug)]
struct Anchor {
    n: usize,
    /// (name, value, unit) for every "name value unit" the line holds.
    values: Vec<(String, f64, String)>,
}

fn parse_anchors(text: &str) -> Vec<Anchor> {
    text.lines()
        .filter_map(|line| {
            let exponent: u32 = line
                .strip_prefix("n=2^")?
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()?;
            let mut values = Vec::new();
            for part in line.split(" | ").skip(1) {
                // "cub merge end-to-end pageable 0.96 ms, pinned 0.19 ms": several values, the
                // later ones named after the first's name with their own qualifier.
                let mut base = String::new();
                for clause in part.split(", ") {
                    // The value is the first number followed by a unit; names hold digits too
                    // ("u32", "H2D").
                    let tokens: Vec<&str> = clause.split_whitespace().collect();
                    let Some(at) = (0..tokens.len()).find(|&i| {
                        tokens[i].parse::<f64>().is_ok()
                            && tokens
                                .get(i + 1)
                                .is_some_and(|u| u.starts_with("ms") || u.starts_with("GB/s"))
                    }) else {
                        continue;
                    };
                    let value: f64 = tokens[at].parse().expect("checked");
                    let unit = tokens[at + 1].trim_end_matches(',').to_string();
                    let name = tokens[..at].join(" ");
                    let name = if base.is_empty() {
                        base = name
                            .rsplit_once(' ')
                            .map_or(name.clone(), |(b, _)| b.to_string());
                        name
                    } else {
                        format!("{base} {name}")
                    };
                    values.push((name, value, unit));
                }
            }
            Some(Anchor {
                n: 1 << exponent,
                values,
            })
        })
        .collect()
}

/// Adds CUDA's rows for size `n` and each of our rows' ratio to its anchor.
fn add_anchors(rows: &mut Vec<Row>, anchors: &[Anchor], n: usize) {
    let value = |name: &str| {
        anchors
            .iter()
            .filter(|a| a.n == n)
            .flat_map(|a| &a.values)
            .find(|(v, _, _)| v == name)
            .map(|&(_, value, _)| value)
    };
    // (our operation, anchor's name, CUDA's row label, value type, bytes a key, whether our
    // rows' ratios are to it, our rows' label prefix that it compares with)
    let anchors_ms = [
        ("merge", "cub merge keys", "CUB (CUDA)", None, 8.0, true, ""),
        (
            "merge_pairs",
            "cub merge pairs",
            "CUB (CUDA)",
            Some("u32"),
            16.0,
            true,
            "",
        ),
        (
            "sort",
            "cub mergesort keys",
            "CUB merge sort",
            None,
            8.0,
            true,
            "merge sort",
        ),
        (
            "sort",
            "cub radix keys",
            "CUB radix sort",
            None,
            8.0,
            true,
            "radix sort",
        ),
        (
            "sort_pairs",
            "radix pairs",
            "CUB radix sort",
            Some("u32"),
            16.0,
            true,
            "radix sort",
        ),
        (
            "sort_u64",
            "cub radix u64 keys",
            "CUB radix sort",
            None,
            16.0,
            true,
            "radix sort",
        ),
        (
            "sort_16bit",
            "cub radix u32 16-bit keys",
            "CUB radix sort",
            None,
            8.0,
            true,
            "radix sort",
        ),
        ("copy", "copy", "CUDA copy", None, 8.0, false, ""),
        (
            "scan",
            "cub scan u32",
            "CUB InclusiveSum",
            None,
            8.0,
            true,
            "",
        ),
        (
            "reduce",
            "cub reduce u32",
            "CUB Reduce::Sum",
            None,
            4.0,
            true,
            "",
        ),
        (
            "set",
            "thrust set_union",
            "Thrust set_union (device)",
            None,
            8.0,
            true,
            "union",
        ),
        (
            "set",
            "thrust set_intersection",
            "Thrust set_intersection (device)",
            None,
            8.0,
            true,
            "intersection",
        ),
        (
            "merge_many",
            "cub radix keys",
            "CUB radix sort",
            None,
            8.0,
            true,
            "",
        ),
    ];
    for (operation, name, label, value_type, bytes, ratio, ours_prefix) in anchors_ms {
        let Some(cub_ms) = value(name) else {
            continue;
        };
        if ratio {
            let ours = |r: &&mut Row| {
                r.n == n
                    && r.operation == operation
                    && !r.algorithm.starts_with("cpu")
                    && r.algorithm != label
                    && r.algorithm.starts_with(ours_prefix)
                    && r.error.is_none()
            };
            for row in rows.iter_mut().filter(ours) {
                row.cub_ms = Some(cub_ms);
                row.ratio_to_cub = Some(cub_ms / row.time_ms);
            }
        }
        if !rows
            .iter()
            .any(|r| r.n == n && r.operation == operation && r.algorithm == label)
        {
            let mut row = Row::new(
                operation,
                label,
                value_type,
                n,
                Duration::from_secs_f64(cub_ms / 1e3),
                bytes,
            );
            row.cub_ms = (operation != "copy").then_some(cub_ms);
            row.ratio_to_cub = (operation != "copy").then_some(1.0);
            rows.push(row);
        }
    }
    // CUDA's merge from host memory: pageable and pinned; our merge rows' end-to-end ratio.
    if let Some(pageable) = value("cub merge end-to-end pageable") {
        for row in rows
            .iter_mut()
            .filter(|r| r.n == n && r.operation == "merge" && r.end_to_end_ms.is_some())
        {
            // The call most users make: gpu.merge, into a new vector.
            let ours = row.end_to_end_ms.unwrap_or(f64::MAX);
            row.ratio_to_cuda_end_to_end = Some(pageable / ours);
        }
        for (label, key) in [
            (
                "CUDA end to end (pageable)",
                "cub merge end-to-end pageable",
            ),
            ("CUDA end to end (pinned)", "cub merge end-to-end pinned"),
        ] {
            if let Some(ms) = value(key) {
                let mut row = Row::new(
                    "merge",
                    label,
                    None,
                    n,
                    Duration::from_secs_f64(ms / 1e3),
                    8.0,
                );
                row.end_to_end_ms = Some(ms);
                rows.push(row);
            }
        }
    }
    // CUDA's transfer bandwidth, next to wgpu's.
    for (label, key) in [
        ("CUDA H2D pageable", "H2D pageable"),
        ("CUDA H2D pinned", "H2D pinned"),
        ("CUDA D2H pageable", "D2H pageable"),
        ("CUDA D2H pinned", "D2H pinned"),
    ] {
        if let Some(gb_per_s) = value(key) {
            let seconds = n as f64 * 4.0 / (gb_per_s * 1e9);
            rows.push(Row::new(
                "transfer",
                label,
                None,
                n,
                Duration::from_secs_f64(seconds),
                4.0,
            ));
        }
    }
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<12} {:<30} {:>6} {:>11} {:>9} {:>10} {:>10} {:>7} {:>8} {:>8} {:>7} {:>7} {:>6}",
        "operation",
        "algorithm",
        "types",
        "n",
        "time ms",
        "e2e ms",
        "e2e into",
        "x CUDA",
        "peak MiB",
        "GB/s",
        "% copy",
        "x CUB",
        "check"
    );
    for r in rows {
        println!("{}", table_line(r));
    }
}

/// One row of the table.
fn table_line(r: &Row) -> String {
    let opt = |v: Option<f64>, precision: usize| {
        v.map_or("-".to_string(), |v| format!("{v:.precision$}"))
    };
    let types = match &r.value_type {
        Some(_) => format!("{}/32", r.key_type),
        None => r.key_type.clone(),
    };
    if let Some(error) = &r.error {
        return format!(
            "{:<12} {:<30} {:>6} {:>11} not run: {error}",
            r.operation, r.algorithm, types, r.n
        );
    }
    format!(
        "{:<12} {:<30} {:>6} {:>11} {:>9.4} {:>10} {:>10} {:>7} {:>8} {:>8.1} {:>7} {:>7} {:>6}",
        r.operation,
        r.algorithm,
        types,
        r.n,
        r.time_ms,
        opt(r.end_to_end_ms, 2),
        opt(r.end_to_end_into_ms, 2),
        opt(r.ratio_to_cuda_end_to_end, 2),
        opt(r.peak_host_mib, 0),
        r.gb_per_s,
        opt(r.percent_of_copy, 1),
        opt(r.ratio_to_cub, 2),
        r.correct.map_or("-", |c| if c { "ok" } else { "WRONG" }),
    )
}

/// GB/s against log2(n): one line per GPU operation and algorithm, CUB's where given, and the
/// copy kernel's as the ceiling.
fn plot(path: &std::path::Path, rows: &[Row], adapter: &str) -> Result<(), Failure> {
    use plotters::prelude::*;
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let plotted = |r: &&Row| {
        !r.algorithm.starts_with("cpu")
            && r.error.is_none()
            && matches!(
                r.operation.as_str(),
                "copy"
                    | "merge"
                    | "merge_pairs"
                    | "sort"
                    | "sort_pairs"
                    | "sort_u64"
                    | "scan"
                    | "reduce"
            )
            && !r.algorithm.contains("end to end")
    };
    for r in rows.iter().filter(plotted) {
        let name = if r.operation == "copy" {
            format!("copy: {} (ceiling)", r.algorithm)
        } else {
            format!("{} {}", r.operation, r.algorithm)
        };
        let point = ((r.n as f64).log2(), r.gb_per_s);
        match series.iter_mut().find(|(n, _)| *n == name) {
            Some((_, points)) => points.push(point),
            None => series.push((name, vec![point])),
        }
    }
    let xs = || series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0));
    let x_min = xs().fold(f64::MAX, f64::min);
    let x_max = xs().fold(f64::MIN, f64::max);
    let y_max = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(0.0, f64::max)
        * 1.1;
    let root = SVGBackend::new(path, (1000, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("wgmerge on {adapter}"), ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d((x_min - 0.5)..(x_max + 0.5), 0.0..y_max.max(1e-3))?;
    chart
        .configure_mesh()
        .x_desc("elements (log2)")
        .y_desc("GB/s (bytes the operation must move)")
        .draw()?;
    for (index, (name, points)) in series.iter().enumerate() {
        // Ceilings in black (our copy) and grey (CUDA's copy), the rest from a palette.
        let color = match name.as_str() {
            n if n.contains("CUDA copy") => RGBColor(140, 140, 140).to_rgba(),
            n if n.starts_with("copy") => BLACK.to_rgba(),
            _ => Palette99::pick(index).to_rgba(),
        };
        let style = color.stroke_width(if name.starts_with("copy") { 3 } else { 2 });
        chart
            .draw_series(LineSeries::new(points.iter().copied(), style))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    root.present()?;
    Ok(())
}
