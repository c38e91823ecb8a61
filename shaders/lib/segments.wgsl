// A merge pass may run many merges at once, each over its own segment of the output. Merge
// sort's passes merge every pair of consecutive sorted runs of `run_len` keys of A (B is unused);
// run_len = 0 means one plain merge of A and B. How a pass's tiles fall into its segments is the
// `tiling` parameter of the kernels that take one: lib/tiling/runs.wgsl (segments of run_len, or
// one merge) or lib/tiling/table.wgsl (segments of any lengths, listed by the host).

// One merge within the output: outputs [start, start + a_len + b_len) merge
// a_keys[a_base..][..a_len] with b_keys[b_base..][..b_len].
struct Segment {
    start: u32,
    a_base: u32,
    a_len: u32,
    b_base: u32,
    b_len: u32,
}

// A tile of a pass (or a partition boundary): its first output, and the segment it lies in.
struct PlacedTile {
    k0: u32,
    segment: Segment,
}

// The segment that output rank k belongs to: the whole merge, or in a sort pass the pair of runs
// k falls in (the second run may be short or empty at the end).
fn segment_of(k: u32, a_len: u32, b_len: u32, run_len: u32) -> Segment {
    if run_len == 0u {
        return Segment(0u, 0u, a_len, 0u, b_len);
    }
    let total = a_len;
    let start = min(k / (2u * run_len) * (2u * run_len), total);
    let first = min(run_len, total - start);
    let second = min(run_len, total - start - first);
    return Segment(start, start, first, start + first, second);
}
