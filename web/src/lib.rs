//! wgmerge in the browser: the functions `web/index.html` calls through wasm-bindgen.
//!
//! Every operation generates sorted inputs from a seed, runs on the page's GPU through wgpu's
//! WebGPU backend, checks the result against [`wgmerge::cpu`] compiled to wasm and reports as
//! JSON. [`merge_path`] runs a tiny merge with a tiny workgroup shape and returns what the page
//! draws: the grid of A against B, the path the GPU's merge took and the co-rank splits.

use std::cell::RefCell;
use std::rc::Rc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wgmerge::{
    cpu, Algorithm, Gpu, Key, MergeOptions, Order, SetOperation, SetOptions, SortAlgorithm,
    SortOptions,
};

thread_local! {
    /// The page's one GPU, opened by [`open`].
    static GPU: RefCell<Option<Rc<Gpu>>> = const { RefCell::new(None) };
}

fn gpu() -> Result<Rc<Gpu>, JsError> {
    GPU.with(|gpu| gpu.borrow().clone())
        .ok_or_else(|| JsError::new("call open() first"))
}

fn js_error(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("reports serialize")
}

/// Opens the browser's GPU and returns the adapter as JSON: `{name, backend, driver}`.
#[wasm_bindgen]
pub async fn open() -> Result<String, JsError> {
    let gpu = Gpu::new_async().await.map_err(js_error)?;
    let info = gpu.adapter_info();
    let adapter = json(&serde_json::json!({
        "name": info.name,
        "backend": format!("{:?}", info.backend),
        "driver": format!("{} {}", info.driver, info.driver_info).trim(),
        "maxStorageBufferBindingSize": gpu.limits().max_storage_buffer_binding_size,
    }));
    GPU.with(|slot| *slot.borrow_mut() = Some(Rc::new(gpu)));
    Ok(adapter)
}

/// The operations the page offers, as JSON: `[{id, label}]`. Each id is `merge:<algorithm>`,
/// `merge_pairs:<algorithm>`, `sort:<radix|merge>`, `sort_pairs:<radix|merge>` or
/// `set:<operation>`.
#[wasm_bindgen]
pub fn operations() -> String {
    let mut ops: Vec<_> = ["merge", "merge_pairs"]
        .into_iter()
        .flat_map(|op| {
            Algorithm::ALL.into_iter().map(move |algorithm| {
                let what = if op == "merge" {
                    "keys"
                } else {
                    "keys + u32 values"
                };
                serde_json::json!({
                    "id": format!("{op}:{}", algorithm.name()),
                    "label": format!("{op}, {} ({what})", algorithm.name()),
                })
            })
        })
        .collect();
    for (op, what) in [("sort", "keys"), ("sort_pairs", "keys + u32 values")] {
        for (algorithm, name) in [("radix", "radix sort"), ("merge", "merge sort")] {
            ops.push(serde_json::json!({
                "id": format!("{op}:{algorithm}"),
                "label": format!("{op}, {name} ({what})"),
            }));
        }
    }
    for operation in SetOperation::ALL {
        ops.push(serde_json::json!({
            "id": format!("set:{}", operation.name()),
            "label": format!("set operation, {} (keys + u32 values)", operation.name()),
        }));
    }
    ops.push(serde_json::json!({
        "id": format!("merge_many:{MANY_RUNS}"),
        "label": format!("merge_many, {MANY_RUNS} runs (keys + u32 values)"),
    }));
    json(&ops)
}

/// The key types, as JSON names.
#[wasm_bindgen]
pub fn key_types() -> String {
    json(
        &wgmerge::KeyType::ALL
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>(),
    )
}

/// A key the demo can generate: `draw(x)` for `x` in `0..range` is monotone in `x`, so sorting
/// the draws sorts the keys, and equal draws give equal keys (duplicates on purpose).
trait DemoKey: Key + PartialEq {
    fn draw(x: u64, range: u64) -> Self;
}

impl DemoKey for u32 {
    fn draw(x: u64, _: u64) -> Self {
        x as u32
    }
}

impl DemoKey for i32 {
    fn draw(x: u64, range: u64) -> Self {
        (x as i64 - (range / 2) as i64) as i32
    }
}

impl DemoKey for f32 {
    /// Halves and negatives, with -0.0 and +0.0 and the infinities at the ends, so the page shows
    /// `total_cmp` order at work.
    fn draw(x: u64, range: u64) -> Self {
        match x {
            0 => f32::NEG_INFINITY,
            x if x + 1 == range && range > 2 => f32::INFINITY,
            x => {
                let v = (x as f32 - (range / 2) as f32) / 2.0;
                if v == 0.0 && x % 2 == 1 {
                    -0.0
                } else {
                    v
                }
            }
        }
    }
}

impl DemoKey for u64 {
    /// Both 32-bit words vary, so the two-word comparison in WGSL is exercised.
    fn draw(x: u64, _: u64) -> Self {
        (x << 31) | ((x & 1) * 0x7fff_ffff)
    }
}

impl DemoKey for i64 {
    fn draw(x: u64, range: u64) -> Self {
        (x as i64 - (range / 2) as i64) << 33
    }
}

fn parse_order(order: &str) -> Result<Order, JsError> {
    match order {
        "ascending" => Ok(Order::Ascending),
        "descending" => Ok(Order::Descending),
        other => Err(JsError::new(&format!("unknown order {other:?}"))),
    }
}

/// Sorted inputs of `a_len` and `b_len` keys from `0..range` (so about two keys per value).
fn inputs<K: DemoKey>(rng: &mut SmallRng, a_len: usize, b_len: usize, order: Order) -> [Vec<K>; 2] {
    let range = ((a_len + b_len) as u64 / 2).max(1);
    [a_len, b_len].map(|len| {
        let mut keys: Vec<K> = (0..len)
            .map(|_| K::draw(rng.random_range(0..range), range))
            .collect();
        cpu::sort_ordered(&mut keys, order);
        keys
    })
}

fn same_bits<K: Key>(a: &[K], b: &[K]) -> bool {
    bytemuck::cast_slice::<K, u8>(a) == bytemuck::cast_slice::<K, u8>(b)
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

#[derive(Serialize)]
struct RunReport {
    operation: String,
    key: String,
    order: String,
    /// `|A| + |B|` for a merge, the length for a sort.
    sizes: String,
    /// Upload, merge and readback, as the page waited for it.
    gpu_ms: f64,
    cpu_ms: f64,
    correct: bool,
    detail: String,
}

/// Runs `operation` (an id from [`operations`]) on `size` keys of type `key` in `order`,
/// generated from `seed`; returns a JSON report with `correct` from the CPU reference.
#[wasm_bindgen]
pub async fn run(
    operation: String,
    key: String,
    order: String,
    size: u32,
    seed: u32,
) -> Result<String, JsError> {
    let gpu = gpu()?;
    let order_value = parse_order(&order)?;
    let (op, algorithm) = operation.split_once(':').unwrap_or((&operation, ""));
    let unknown = || JsError::new(&format!("unknown operation {operation:?}"));
    let task = match op {
        "merge" | "merge_pairs" => Task::Merge(MergeOptions {
            algorithm: Algorithm::from_name(algorithm).ok_or_else(unknown)?,
            order: order_value,
            ..Default::default()
        }),
        "sort" | "sort_pairs" => Task::Sort(SortOptions {
            algorithm: match algorithm {
                "radix" | "" => SortAlgorithm::Radix,
                "merge" => SortAlgorithm::Merge,
                _ => return Err(unknown()),
            },
            order: order_value,
            ..Default::default()
        }),
        "set" => Task::Set(
            SetOperation::from_name(algorithm).ok_or_else(unknown)?,
            SetOptions {
                order: order_value,
                ..Default::default()
            },
        ),
        "merge_many" => Task::MergeMany(algorithm.parse().map_err(|_| unknown())?, order_value),
        _ => return Err(unknown()),
    };
    let pairs = op.ends_with("_pairs") || op == "set" || op == "merge_many";
    let mut rng = SmallRng::seed_from_u64(u64::from(seed));
    let size = size as usize;
    let a_len = size / 2 + rng.random_range(0..=size / 8);
    let b_len = size - a_len;
    let (gpu_ms, cpu_ms, correct, detail) = match key.as_str() {
        "u32" => check::<u32>(&gpu, &mut rng, a_len, b_len, pairs, &task).await,
        "i32" => check::<i32>(&gpu, &mut rng, a_len, b_len, pairs, &task).await,
        "f32" => check::<f32>(&gpu, &mut rng, a_len, b_len, pairs, &task).await,
        "u64" => check::<u64>(&gpu, &mut rng, a_len, b_len, pairs, &task).await,
        "i64" => check::<i64>(&gpu, &mut rng, a_len, b_len, pairs, &task).await,
        other => return Err(JsError::new(&format!("unknown key type {other:?}"))),
    }
    .map_err(js_error)?;
    Ok(json(&RunReport {
        operation,
        key,
        order,
        sizes: match task {
            Task::Merge(_) | Task::Set(..) => format!("{a_len} + {b_len}"),
            Task::Sort(_) | Task::MergeMany(..) => size.to_string(),
        },
        gpu_ms,
        cpu_ms,
        correct,
        detail,
    }))
}

/// What [`run`] does with its two generated inputs.
enum Task {
    /// Merge them.
    Merge(MergeOptions),
    /// Sort them, B's keys first and then A's, shuffled.
    Sort(SortOptions),
    /// A set operation on them, with values.
    Set(SetOperation, SetOptions),
    /// Cut them into this many sorted runs of unequal lengths and merge those, with values.
    MergeMany(usize, Order),
}

/// Runs the demo's many-way merge merges: a merge tree of three passes, the last alone.
const MANY_RUNS: usize = 7;

/// Runs `task` on generated inputs on the GPU and on the CPU: (gpu ms, cpu ms, equal, what
/// differed). Pairs carry each key's provenance (A's index, or `a_len` + B's index; for a sort,
/// its input position), so equality with the stable CPU merge or sort proves stability and that
/// nothing was lost or duplicated.
async fn check<K: DemoKey>(
    gpu: &Gpu,
    rng: &mut SmallRng,
    a_len: usize,
    b_len: usize,
    pairs: bool,
    task: &Task,
) -> Result<(f64, f64, bool, String), wgmerge::Error> {
    let options = match task {
        Task::Merge(options) => options,
        Task::Sort(options) => {
            return check_sort::<K>(gpu, rng, a_len + b_len, pairs, options).await
        }
        Task::Set(operation, options) => {
            return check_set::<K>(gpu, rng, a_len, b_len, *operation, options).await
        }
        Task::MergeMany(runs, order) => {
            return check_merge_many::<K>(gpu, rng, a_len + b_len, *runs, *order).await
        }
    };
    let [a, b] = inputs::<K>(rng, a_len, b_len, options.order);
    if !pairs {
        return against_cpu(
            async { Ok((gpu.merge_async(&a, &b, options).await?, Vec::new())) },
            || (cpu::merge_ordered(&a, &b, options.order), Vec::new()),
        )
        .await;
    }
    let [a_values, b_values] = provenance(a_len, b_len);
    against_cpu(
        gpu.merge_pairs_async(&a, &a_values, &b, &b_values, options),
        || cpu::merge_pairs_ordered(&a, &a_values, &b, &b_values, options.order),
    )
    .await
}

/// Each key's provenance as its value: A's index, or `a_len` + B's index.
fn provenance(a_len: usize, b_len: usize) -> [Vec<u32>; 2] {
    [
        (0..a_len as u32).collect(),
        (a_len as u32..(a_len + b_len) as u32).collect(),
    ]
}

/// [`check`] for a set operation, with each key's provenance as its value.
async fn check_set<K: DemoKey>(
    gpu: &Gpu,
    rng: &mut SmallRng,
    a_len: usize,
    b_len: usize,
    operation: SetOperation,
    options: &SetOptions,
) -> Result<(f64, f64, bool, String), wgmerge::Error> {
    let [a, b] = inputs::<K>(rng, a_len, b_len, options.order);
    let [a_values, b_values] = provenance(a_len, b_len);
    against_cpu(
        gpu.set_operation_pairs_async(operation, &a, &a_values, &b, &b_values, options),
        || cpu::set_operation_pairs_ordered(operation, &a, &a_values, &b, &b_values, options.order),
    )
    .await
}

/// `len` keys in no order, each about twice.
fn unsorted_keys<K: DemoKey>(rng: &mut SmallRng, len: usize) -> Vec<K> {
    let range = (len as u64 / 2).max(1);
    (0..len)
        .map(|_| K::draw(rng.random_range(0..range), range))
        .collect()
}

/// [`check`] for a many-way merge of `len` keys cut into `runs` sorted runs, each key's input
/// position as its value, against the stable sort of the runs end to end.
async fn check_merge_many<K: DemoKey>(
    gpu: &Gpu,
    rng: &mut SmallRng,
    len: usize,
    runs: usize,
    order: Order,
) -> Result<(f64, f64, bool, String), wgmerge::Error> {
    let mut cuts: Vec<usize> = (1..runs).map(|_| rng.random_range(0..=len)).collect();
    cuts.extend([0, len]);
    cuts.sort_unstable();
    let mut keys = unsorted_keys::<K>(rng, len);
    for run in cuts.windows(2) {
        cpu::sort_ordered(&mut keys[run[0]..run[1]], order);
    }
    let values: Vec<u32> = (0..len as u32).collect();
    let run_pairs: Vec<(&[K], &[u32])> = cuts
        .windows(2)
        .map(|run| (&keys[run[0]..run[1]], &values[run[0]..run[1]]))
        .collect();
    against_cpu(gpu.merge_many_pairs_async(&run_pairs, order), || {
        cpu::sort_pairs_ordered(&keys, &values, order)
    })
    .await
}

/// [`check`] for a sort of `len` unsorted keys.
async fn check_sort<K: DemoKey>(
    gpu: &Gpu,
    rng: &mut SmallRng,
    len: usize,
    pairs: bool,
    options: &SortOptions,
) -> Result<(f64, f64, bool, String), wgmerge::Error> {
    let keys = unsorted_keys::<K>(rng, len);
    let values: Vec<u32> = (0..len as u32).collect();
    let sorted = async {
        if pairs {
            gpu.sort_pairs_async(&keys, &values, options).await
        } else {
            Ok((gpu.sort_async(&keys, options).await?, Vec::new()))
        }
    };
    against_cpu(sorted, || {
        let (want_keys, mut want_values) = cpu::sort_pairs_ordered(&keys, &values, options.order);
        if !pairs {
            want_values.clear();
        }
        (want_keys, want_values)
    })
    .await
}

/// Times the GPU's keys and values (`gpu`, not started until awaited here) and the CPU's
/// (`cpu`), and compares them: [`check`]'s result. Keys-only tasks give no values on both sides.
async fn against_cpu<K: Key>(
    gpu: impl std::future::Future<Output = Result<(Vec<K>, Vec<u32>), wgmerge::Error>>,
    cpu: impl FnOnce() -> (Vec<K>, Vec<u32>),
) -> Result<(f64, f64, bool, String), wgmerge::Error> {
    let start = now_ms();
    let (got_keys, got_values) = gpu.await?;
    let gpu_ms = now_ms() - start;
    let start = now_ms();
    let (want_keys, want_values) = cpu();
    let cpu_ms = now_ms() - start;
    let (correct, detail) = compare_pairs((&got_keys, &got_values), (&want_keys, &want_values));
    Ok((gpu_ms, cpu_ms, correct, detail))
}

/// Whether the keys and values `got` are bit for bit those `wanted`, and where they first differ
/// (the keys first).
fn compare_pairs<K: Key>(got: (&[K], &[u32]), wanted: (&[K], &[u32])) -> (bool, String) {
    if !same_bits(got.0, wanted.0) {
        return (false, first_difference(got.0, wanted.0));
    }
    (got.1 == wanted.1, first_difference(got.1, wanted.1))
}

fn first_difference<K: Key>(got: &[K], expected: &[K]) -> String {
    if got.len() != expected.len() {
        return format!("{} outputs, expected {}", got.len(), expected.len());
    }
    let bytes = std::mem::size_of::<K>();
    let got_bytes = bytemuck::cast_slice::<K, u8>(got);
    let expected_bytes = bytemuck::cast_slice::<K, u8>(expected);
    match (0..got.len()).find(|&i| {
        got_bytes[i * bytes..(i + 1) * bytes] != expected_bytes[i * bytes..(i + 1) * bytes]
    }) {
        Some(i) => format!(
            "first difference at {i}: {:?}, expected {:?}",
            got[i], expected[i]
        ),
        None => String::new(),
    }
}

/// One co-rank split: output rank `k` takes `i` keys of A and `j = k - i` of B.
#[derive(Serialize)]
struct Split {
    k: usize,
    i: usize,
    j: usize,
}

#[derive(Serialize)]
struct MergePathPicture {
    a: Vec<u32>,
    b: Vec<u32>,
    workgroup_size: u32,
    items_per_thread: u32,
    /// For each output in order, whether the GPU's merge took it from B (`true`) or A.
    from_b: Vec<bool>,
    /// Where each workgroup's output range starts (and the end).
    workgroup_splits: Vec<Split>,
    /// Where each invocation's output range starts, inside its workgroup.
    invocation_splits: Vec<Split>,
    /// The GPU's merge equals the CPU's, keys and provenance.
    correct: bool,
}

/// Merges `a_len` and `b_len` small keys from `seed` with merge path in workgroups of
/// `workgroup_size` invocations of `items_per_thread` outputs each, and returns JSON for the
/// page's drawing: the keys, the path read off the GPU's output (each value says which side the
/// key came from) and the co-rank split of every workgroup and invocation.
#[wasm_bindgen]
pub async fn merge_path(
    a_len: u32,
    b_len: u32,
    workgroup_size: u32,
    items_per_thread: u32,
    seed: u32,
) -> Result<String, JsError> {
    let gpu = gpu()?;
    let mut rng = SmallRng::seed_from_u64(u64::from(seed));
    let (a_len, b_len) = (a_len as usize, b_len as usize);
    let [a, b] = inputs::<u32>(&mut rng, a_len, b_len, Order::Ascending);
    let [a_values, b_values] = provenance(a_len, b_len);
    let options = MergeOptions {
        algorithm: Algorithm::MergePath,
        workgroup_size: Some(workgroup_size),
        items_per_thread: Some(items_per_thread),
        ..Default::default()
    };
    let (keys, values) = gpu
        .merge_pairs_async(&a, &a_values, &b, &b_values, &options)
        .await
        .map_err(js_error)?;
    let (expected_keys, expected_values) = cpu::merge_pairs(&a, &a_values, &b, &b_values);
    let correct = keys == expected_keys && values == expected_values;

    // The same split points the kernel's partition pass and its invocations compute.
    let total = a_len + b_len;
    let split = |k: usize| {
        let i = cpu::co_rank(k, &a, &b);
        Split { k, i, j: k - i }
    };
    let tile = (workgroup_size * items_per_thread) as usize;
    let mut workgroup_splits: Vec<Split> = (0..total).step_by(tile).map(split).collect();
    workgroup_splits.push(split(total));
    let invocation_splits = (0..total)
        .step_by(items_per_thread as usize)
        .filter(|k| k % tile != 0)
        .map(split)
        .collect();
    Ok(json(&MergePathPicture {
        from_b: values.iter().map(|&v| v as usize >= a_len).collect(),
        a,
        b,
        workgroup_size,
        items_per_thread,
        workgroup_splits,
        invocation_splits,
        correct,
    }))
}
