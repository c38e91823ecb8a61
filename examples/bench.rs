//! wgmerge's benchmark program: each operation and algorithm over a size sweep on one adapter,
//! with a WGSL copy kernel as the bandwidth ceiling and CPU baselines, printed as a table and
//! optionally written as JSON and an SVG plot.
//!
//!     cargo run --release --example bench -- --sizes 16,20,24 --json bench.json --plot bench.svg
//!
//! `--sizes` are log2 of the merged length (two sorted halves of uniform random u32 keys).
//! `--cub FILE` reads the output of `../shared/anchors/cub_bench.cu` from the same run and adds
//! CUB's rows and the ratio to CUB. `--help` lists every option.

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
    cpu, Algorithm, Gpu, MergeBuffers, MergeOptions, SetOperation, SortBuffers, ValueBuffers,
};

#[derive(Parser, Debug)]
#[command(about = "Benchmark wgmerge's operations over a size sweep")]
struct Args {
    /// Build the kernels with naga's runtime checks (bounds checks, loop bounding), as
    /// `Gpu::with_runtime_checks(true)` does; off by default, as in wgmerge.
    #[arg(long)]
    runtime_checks: bool,
    /// log2 of the merged lengths to run.
    #[arg(long, value_delimiter = ',', default_value = "16,20,22")]
    sizes: Vec<u32>,
    /// Operations to run.
    #[arg(long, value_delimiter = ',', default_value = "merge,pairs")]
    ops: Vec<Operation>,
    /// Workgroup shapes to run each algorithm with, as WORKGROUPxITEMS (e.g. 256x15); default:
    /// each algorithm's own.
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
    /// Merge algorithms to run (default: all).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<AlgorithmArg>,
    /// Timed repeats (median reported), after a warm-up.
    #[arg(long, default_value_t = 10)]
    repeats: usize,
    /// Use the adapter whose name contains this text (case-insensitive).
    #[arg(long)]
    adapter: Option<String>,
    /// Use this backend: vulkan, metal, dx12, gl.
    #[arg(long)]
    backend: Option<String>,
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
    /// wgpu's memory allocation strategy for the device: performance (wgpu's default) or
    /// memory-usage. Given, the bench opens its own device with it.
    #[arg(long)]
    memory_hints: Option<MemoryHintsArg>,
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
    /// Merge u32 keys.
    Merge,
    /// Merge u32 keys with u32 values.
    Pairs,
    /// Sort u32 keys (merge sort), timed from a copy of unsorted input as CUB's SortKeysCopy.
    Sort,
    /// Each set operation on the two halves, end to end (upload, four passes, readback of the
    /// kept keys): there is no resident form to time alone yet.
    Set,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum MemoryHintsArg {
    Performance,
    MemoryUsage,
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
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Row {
    operation: String,
    algorithm: String,
    key_type: String,
    value_type: Option<String>,
    n: usize,
    /// Device time of one operation (GPU rows), or wall time (CPU rows).
    time_ms: f64,
    /// Upload, operation and readback.
    end_to_end_ms: Option<f64>,
    keys_per_s: f64,
    /// Least bytes the operation must move, per second.
    gb_per_s: f64,
    percent_of_copy: Option<f64>,
    cub_ms: Option<f64>,
    /// CUB's time over ours: above 1 is faster than CUB.
    ratio_to_cub: Option<f64>,
    correct: Option<bool>,
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
            end_to_end_ms: None,
            keys_per_s: n as f64 / seconds,
            gb_per_s: n as f64 * bytes_per_key / seconds / 1e9,
            percent_of_copy: None,
            cub_ms: None,
            ratio_to_cub: None,
            correct: None,
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    env_logger::init();
    let args = Args::parse();
    let cub = match &args.cub {
        Some(path) => parse_cub(&std::fs::read_to_string(path)?),
        None => Vec::new(),
    };
    let (mut report, timer) = match &args.input {
        Some(path) => (
            serde_json::from_str::<Report>(&std::fs::read_to_string(path)?)?,
            "as recorded",
        ),
        None => run(&args)?,
    };
    let sizes: Vec<usize> = report.rows.iter().map(|r| r.n).collect();
    for n in sizes {
        add_cub(&mut report.rows, &cub, n);
    }
    report.rows.sort_by_key(|r| r.n);

    let a = &report.adapter;
    println!(
        "adapter: {} ({}, {}, driver {} {})",
        a.name, a.backend, a.device_type, a.driver, a.driver_info
    );
    println!(
        "GPU time: median of {} batches after warm-up, {timer}; CPU: median wall time",
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
fn run(args: &Args) -> Result<(Report, &'static str), Box<dyn std::error::Error>> {
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
    let steps_per_size = 1
        + args.ops.len() * configurations(&algorithms, &args.shapes, &args.tiles).count()
        + if args.no_cpu { 0 } else { 4 };
    let progress = ProgressBar::new((args.sizes.len() * steps_per_size) as u64);
    progress.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")?);
    let mut rows = Vec::new();
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
        let copy = bench_copy(&gpu, n, args.repeats)?;
        let copy_gb_per_s = copy.gb_per_s;
        rows.push(copy);
        progress.inc(1);

        for &operation in &args.ops {
            if operation == Operation::Set {
                for set_operation in SetOperation::ALL {
                    progress.set_message(format!("2^{log2}: {}", set_operation.name()));
                    let (time, got) = timing::median_wall_time(args.repeats, || {
                        gpu.set_operation(set_operation, &a, &b)
                    });
                    let label = format!("{} (end to end)", set_operation.name());
                    let mut row = Row::new("set", &label, None, n, time, 8.0);
                    row.end_to_end_ms = Some(time.as_secs_f64() * 1e3);
                    row.correct = Some(got? == cpu::set_operation(set_operation, &a, &b));
                    rows.push(row);
                }
                progress.inc(configurations(&algorithms, &args.shapes, &args.tiles).count() as u64);
                continue;
            }
            if operation == Operation::Sort {
                progress.set_message(format!("2^{log2}: sort"));
                let mut row = bench_sort(&gpu, n, args)?;
                row.percent_of_copy = Some(100.0 * row.gb_per_s / copy_gb_per_s);
                rows.push(row);
                progress.inc(configurations(&algorithms, &args.shapes, &args.tiles).count() as u64);
                continue;
            }
            let want = match operation {
                Operation::Merge => (cpu::merge(&a, &b), Vec::new()),
                Operation::Pairs => cpu::merge_pairs(&a, &a_values, &b, &b_values),
                Operation::Sort | Operation::Set => unreachable!("handled above"),
            };
            for (&algorithm, shape, tiles) in configurations(&algorithms, &args.shapes, &args.tiles)
            {
                let mut label = format!("{algorithm:?}");
                if let Some((workgroup, items)) = shape {
                    label += &format!(" {workgroup}x{items}");
                }
                if let Some(tiles) = tiles {
                    label += &format!(" t{tiles}");
                }
                progress.set_message(format!("2^{log2}: {operation:?} {label}"));
                let options = MergeOptions {
                    algorithm,
                    workgroup_size: shape.map(|s| s.0),
                    items_per_thread: shape.map(|s| s.1),
                    tiles_per_workgroup: tiles,
                    ..Default::default()
                };
                let values =
                    (operation == Operation::Pairs).then_some((&a_values[..], &b_values[..]));
                let mut row = bench_merge(&gpu, &a, &b, values, &options, &label, args, &want)?;
                row.percent_of_copy = Some(100.0 * row.gb_per_s / copy_gb_per_s);
                rows.push(row);
                progress.inc(1);
            }
        }
        if !args.no_cpu {
            progress.set_message(format!("2^{log2}: CPU baselines"));
            rows.extend(cpu_baselines(&a, &b, args.repeats.min(3), &progress));
        }
    }
    progress.finish_and_clear();
    Ok((Report { adapter, rows }, timing::timer_name(&gpu)))
}

/// The adapter the arguments name, or wgmerge's default, with runtime checks as asked.
fn open_gpu(args: &Args) -> Result<Gpu, Box<dyn std::error::Error>> {
    Ok(open_adapter(args)?.with_runtime_checks(args.runtime_checks))
}

/// The adapter the arguments name, or wgmerge's default.
fn open_adapter(args: &Args) -> Result<Gpu, Box<dyn std::error::Error>> {
    if args.adapter.is_none() && args.backend.is_none() && args.memory_hints.is_none() {
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
    let Some(hints) = args.memory_hints else {
        return Ok(pollster::block_on(Gpu::from_adapter(adapter))?);
    };
    let timestamps =
        wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: adapter.features() & timestamps,
        required_limits: adapter.limits(),
        memory_hints: match hints {
            MemoryHintsArg::Performance => wgpu::MemoryHints::Performance,
            MemoryHintsArg::MemoryUsage => wgpu::MemoryHints::MemoryUsage,
        },
        ..Default::default()
    }))?;
    Ok(Gpu::from_device(device, queue))
}

/// The WGSL copy kernel over `n` words: the ceiling for a merge of `n` keys.
fn bench_copy(gpu: &Gpu, n: usize, repeats: usize) -> Result<Row, Box<dyn std::error::Error>> {
    let (from, to) = (
        timing::storage_buffer(gpu, &vec![1; n]),
        timing::storage_buffer(gpu, &vec![0; n]),
    );
    let kernel = copy::CopyKernel::new(gpu);
    let time = timing::median_gpu_time(gpu, repeats, |encoder| {
        kernel.encode(gpu, encoder, &from, &to, n)
    })?;
    Ok(Row::new("copy", "wgsl vec4 copy", None, n, time, 8.0))
}

/// One merge configuration: GPU time on resident buffers, then end-to-end time and a check.
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
) -> Result<Row, Box<dyn std::error::Error>> {
    let repeats = args.repeats;
    let n = a.len() + b.len();
    let buffer = |data: &[u32]| timing::storage_buffer(gpu, data);
    let (a_buffer, b_buffer, out) = (buffer(a), buffer(b), buffer(&vec![0; n]));
    let value_buffers = values
        .map(|(a_values, b_values)| (buffer(a_values), buffer(b_values), buffer(&vec![0; n])));
    let buffers = MergeBuffers {
        a: &a_buffer,
        a_len: a.len(),
        b: &b_buffer,
        b_len: b.len(),
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
        gpu.encode_merge::<u32>(encoder, &scratch, &buffers, options)
    })?;
    drop((a_buffer, b_buffer, out, value_buffers));

    let (operation, value_type, bytes) = if values.is_some() {
        ("merge_pairs", Some("u32"), 16.0)
    } else {
        ("merge", None, 8.0)
    };
    let mut row = Row::new(operation, label, value_type, n, time, bytes);
    let check = || -> Result<bool, wgmerge::Error> {
        Ok(match values {
            None => gpu.merge_with(a, b, options)? == want.0,
            Some((a_values, b_values)) => {
                gpu.merge_pairs_with(a, a_values, b, b_values, options)? == *want
            }
        })
    };
    row.correct = Some(if args.end_to_end_repeats == 0 {
        check()?
    } else {
        let (end_to_end, correct) = timing::median_wall_time(args.end_to_end_repeats, check);
        row.end_to_end_ms = Some(end_to_end.as_secs_f64() * 1e3);
        correct?
    });
    Ok(row)
}

/// Merge sort of `n` uniform random u32 keys on resident buffers. Each timed repetition copies
/// the unsorted input into the keys buffer and sorts it there, as CUB's SortKeysCopy reads one
/// buffer and writes another; the result is checked once against the CPU.
fn bench_sort(gpu: &Gpu, n: usize, args: &Args) -> Result<Row, Box<dyn std::error::Error>> {
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
    let options = Default::default();
    let time = timing::median_gpu_time(gpu, args.repeats, |encoder| {
        encoder.copy_buffer_to_buffer(&unsorted, 0, &keys, 0, n as u64 * 4);
        gpu.encode_sort::<u32>(encoder, &scratch, &buffers, &options)
    })?;
    drop((unsorted, keys, temp));
    let mut row = Row::new("sort", "merge sort", None, n, time, 8.0);
    let mut want = input.clone();
    want.par_sort_unstable();
    row.correct = Some(gpu.sort(&input)? == want);
    Ok(row)
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

/// CUB's numbers for one size, from cub_bench.cu's output: `n=2^K (N) ... | name T ms ... | ...`.
#[derive(Debug)]
struct CubLine {
    n: usize,
    times: Vec<(String, f64)>,
}

fn parse_cub(text: &str) -> Vec<CubLine> {
    text.lines()
        .filter_map(|line| {
            let n = line.split_once('(')?.1.split_once(')')?.0.parse().ok()?;
            let times = line
                .split(" | ")
                .skip(1)
                .filter_map(|part| {
                    // "cub merge keys 0.070 ms (...)": a name, a number, then "ms".
                    let start = part.find(|c: char| c.is_ascii_digit())?;
                    let number: String = part[start..]
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '.')
                        .collect();
                    let unit = part[start + number.len()..].trim_start();
                    unit.starts_with("ms").then_some(())?;
                    Some((part[..start].trim().to_string(), number.parse().ok()?))
                })
                .collect();
            Some(CubLine { n, times })
        })
        .collect()
}

/// Adds CUB's rows for size `n` (merge keys, merge pairs and CUDA's copy, once) and each GPU
/// merge row's ratio to CUB.
fn add_cub(rows: &mut Vec<Row>, cub: &[CubLine], n: usize) {
    let Some(line) = cub.iter().find(|l| l.n == n) else {
        return;
    };
    let time = |name: &str| {
        line.times
            .iter()
            .find(|(t, _)| t == name)
            .map(|&(_, ms)| ms)
    };
    // (operation, CUB's name, our label, value type, bytes a key, whether ratios are to it)
    let anchors = [
        ("merge", "cub merge keys", "CUB (CUDA)", None, 8.0, true),
        (
            "merge_pairs",
            "cub merge pairs",
            "CUB (CUDA)",
            Some("u32"),
            16.0,
            true,
        ),
        (
            "sort",
            "cub mergesort keys",
            "CUB merge sort",
            None,
            8.0,
            true,
        ),
        ("sort", "cub radix keys", "CUB radix sort", None, 8.0, false),
        ("copy", "copy", "CUDA copy", None, 8.0, false),
    ];
    for (operation, cub_name, algorithm, value_type, bytes, ratio) in anchors {
        let Some(cub_ms) = time(cub_name) else {
            continue;
        };
        if ratio {
            let ours = |r: &&mut Row| {
                r.n == n
                    && r.operation == operation
                    && !r.algorithm.starts_with("cpu")
                    && r.algorithm != algorithm
            };
            for row in rows.iter_mut().filter(ours) {
                row.cub_ms = Some(cub_ms);
                row.ratio_to_cub = Some(cub_ms / row.time_ms);
            }
        }
        if !rows
            .iter()
            .any(|r| r.n == n && r.operation == operation && r.algorithm == algorithm)
        {
            let mut row = Row::new(
                operation,
                algorithm,
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
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<12} {:<28} {:>6} {:>11} {:>11} {:>13} {:>9} {:>8} {:>7} {:>7} {:>6}",
        "operation",
        "algorithm",
        "types",
        "n",
        "time ms",
        "end-to-end ms",
        "Gkeys/s",
        "GB/s",
        "% copy",
        "x CUB",
        "check"
    );
    let opt = |v: Option<f64>, precision: usize| {
        v.map_or("-".to_string(), |v| format!("{v:.precision$}"))
    };
    for r in rows {
        let types = if r.value_type.is_some() {
            "u32/32"
        } else {
            "u32"
        };
        println!(
            "{:<12} {:<28} {:>6} {:>11} {:>11.4} {:>13} {:>9.2} {:>8.1} {:>7} {:>7} {:>6}",
            r.operation,
            r.algorithm,
            types,
            r.n,
            r.time_ms,
            opt(r.end_to_end_ms, 2),
            r.keys_per_s / 1e9,
            r.gb_per_s,
            opt(r.percent_of_copy, 1),
            opt(r.ratio_to_cub, 2),
            r.correct.map_or("-", |c| if c { "ok" } else { "WRONG" }),
        );
    }
}

/// GB/s against log2(n): one line per GPU operation and algorithm, CUB's where given, and the
/// copy kernel's as the ceiling.
fn plot(
    path: &std::path::Path,
    rows: &[Row],
    adapter: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for r in rows.iter().filter(|r| !r.algorithm.starts_with("cpu")) {
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
    let x_min = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .fold(f64::MAX, f64::min);
    let x_max = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .fold(f64::MIN, f64::max);
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
        .x_desc("merged length (log2 keys)")
        .y_desc("GB/s (bytes a merge must move)")
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
