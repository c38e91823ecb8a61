// The merge-path partition, the one pass that cuts every merge-shaped operation into independent
// parts: it co-ranks the boundaries of a merge's output every `spacing` outputs, in parallel, into
// `splits`: splits[b] = the elements of A (of the boundary's segment) among the outputs before
// boundary b, the last boundary closing the output. Boundary b is the start of tile b of the
// merge pass that reads it, as the `tiling` parameter places tiles (lib/tiling/runs.wgsl: every
// `spacing` outputs, in segments of params.run_len; lib/tiling/table.wgsl: from each listed
// segment's start). Merge path's merge passes, merge sort's and the many-way merge's passes, set
// operations (each cut moved to the balanced path, BALANCED) and resident merges in pieces all
// read their cuts from it.
//
// Each boundary is searched by one invocation alone (binary search), or by LANES invocations
// together (a k-ary search), which waits on far fewer loads one after another: the loads that
// miss every cache are what a partition costs (docs/tuning-log.md).

#import lib/dispatch
#import lib/co_rank
#import lib/balanced_path
#import tiling

struct PartitionParams {
    a_len: u32,
    b_len: u32,
    // Outputs between boundaries: a merge's tile, a piece's length.
    spacing: u32,
    // As MergeParams.run_len (lib/segments.wgsl): 0 for one merge of A and B.
    run_len: u32,
    // Words of `splits` from zero_at, beyond the boundaries, that the partition zeroes: the
    // state the next pass starts from (set operations' look-back), with no clear before it.
    zero_at: u32,
    zero_len: u32,
}

@group(0) @binding(0) var<uniform> params: PartitionParams;
@group(0) @binding(1) var<storage, read> a_keys: array<Key>;
@group(0) @binding(2) var<storage, read> b_keys: array<Key>;
@group(0) @binding(3) var<storage, read_write> splits: array<u32>;
// A word the next pass counts in (merge_path_chunks' chunks taken, sorted search's flag of
// needles left to search_fix), zeroed by partition_splits_reset_counter only.
@group(0) @binding(4) var<storage, read_write> counter: atomic<u32>;

// Invocations per workgroup: small workgroups spread the searches over every compute unit.
override WORKGROUP_SIZE: u32 = 64u;
// Invocations that search each boundary together (tuning.rs: partition_lanes), 1 for alone.
override LANES: u32 = 1u;
// Set operations: each boundary moved to the balanced path (lib/balanced_path.wgsl) and written
// as two words, splits[2b] = elements of A and splits[2b + 1] = elements of B before it.
override BALANCED: bool = false;

// Where the boundary's segment starts in a_keys and b_keys.
var<private> a_base: u32;
var<private> b_base: u32;

// co_rank.wgsl's accessors: the partition reads global memory only.
fn read_a(space: u32, i: u32) -> Key {
    return a_keys[a_base + i];
}
fn read_b(space: u32, j: u32) -> Key {
    return b_keys[b_base + j];
}
fn emit(space: u32, k: u32, key: Key, from_a: bool, src: u32) {}
// lib/search.wgsl's accessor, for the balanced path.
fn read_side(side: u32, i: u32) -> Key {
    if side == SIDE_A { return a_keys[a_base + i]; }
    return b_keys[b_base + i];
}

// Writes boundary `boundary`, output k of `segment`, whose co-rank is i.
fn write_split(boundary: u32, k: u32, i: u32, segment: Segment) {
    if BALANCED {
        let split = balanced_split(i, k - i, segment.a_len, segment.b_len);
        splits[2u * boundary] = split.x;
        splits[2u * boundary + 1u] = split.y;
    } else {
        splits[boundary] = i;
    }
}

fn total_len() -> u32 {
    return params.a_len + params.b_len;
}

// The last boundary: the one that closes the output.
fn last_boundary() -> u32 {
    return tile_count(total_len(), params.spacing);
}

// Where `boundary` is (lib/tiling: its output and segment); sets its segment's A and B as a_base
// and b_base.
fn place_boundary(boundary: u32) -> PlacedTile {
    let placed = place_tile(boundary, params.spacing, params.a_len, params.b_len, params.run_len);
    a_base = placed.segment.a_base;
    b_base = placed.segment.b_base;
    return placed;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn partition_splits(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                    @builtin(num_workgroups) num_workgroups: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let group = group_index(workgroup_id, num_workgroups);
    zero_words(group, num_workgroups, lid);
    partition_boundaries(group, lid);
}

// The same, which also zeroes `counter` (the next pass, a later dispatch, sees it zeroed): so
// no clear of its own goes before the pass (run 328, sorted search at 2^24 / 2^26 on the H200:
// 5.8 us less than a clear_buffer).
@compute @workgroup_size(WORKGROUP_SIZE)
fn partition_splits_reset_counter(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                                  @builtin(num_workgroups) num_workgroups: vec3<u32>,
                                  @builtin(local_invocation_index) lid: u32) {
    let group = group_index(workgroup_id, num_workgroups);
    if group == 0u && lid == 0u { atomicStore(&counter, 0u); }
    zero_words(group, num_workgroups, lid);
    partition_boundaries(group, lid);
}

// Zeroes params.zero_len words of `splits` from params.zero_at, each invocation of the dispatch
// every so many.
fn zero_words(group: u32, num_workgroups: vec3<u32>, lid: u32) {
    let stride = num_workgroups.x * num_workgroups.y * WORKGROUP_SIZE;
    for (var w = group * WORKGROUP_SIZE + lid; w < params.zero_len; w += stride) {
        splits[params.zero_at + w] = 0u;
    }
}

fn partition_boundaries(group: u32, lid: u32) {
    if LANES <= 1u {
        partition_alone(group * WORKGROUP_SIZE + lid);
    } else {
        partition_together(group, lid, LANES);
    }
}

// One invocation per boundary: co_rank.wgsl's search over all of A's indices, not only those the
// boundary allows (CO_RANK_WIDE), so that the first steps of every search probe the same A
// elements, which the cache serves.
fn partition_alone(boundary: u32) {
    if boundary > last_boundary() { return; }
    // Co-rank within the boundary's segment; a tile ending at its segment's end takes the rest
    // of the segment instead of reading this.
    let placed = place_boundary(boundary);
    let segment = placed.segment;
    let k = placed.k0 - segment.start;
    let fewest = co_rank_fewest(k, segment.a_len, segment.b_len);
    let most = co_rank_most(k, segment.a_len);
    // CO_RANK_WIDE is set for this pipeline (partition.rs).
    write_split(boundary, k, co_rank_search(SPACE_GLOBAL, k, fewest, most, 0u, segment.a_len),
                segment);
}

// Co-rank searches that the invocations of a workgroup run together, several at once: each
// search (a slot) has `lanes` invocations, which probe `lanes` points of its interval in one step
// and keep the part between the last probe that is not past the co-rank and the first that is.
// A step thus cuts the interval by lanes + 1, not 2. A workgroup uses WORKGROUP_SIZE / LANES of
// the slots, with at least 2 lanes each.
const SEARCH_SLOTS: u32 = 32u;
// A search's interval is [search_lo, search_hi]; at its end search_lo is the co-rank.
var<workgroup> search_lo: array<u32, SEARCH_SLOTS>;
var<workgroup> search_hi: array<u32, SEARCH_SLOTS>;
// Probes of the current step that are not past the co-rank.
var<workgroup> search_before: array<atomic<u32>, SEARCH_SLOTS>;

// The s-th of `lanes` probes that cut [lo, lo + width) into lanes + 1 parts:
// lo + floor(s * width / (lanes + 1)), without overflowing.
fn probe(lo: u32, width: u32, s: u32, lanes: u32) -> u32 {
    let parts = lanes + 1u;
    return lo + s * (width / parts) + s * (width % parts) / parts;
}

// Steps that narrow an interval of `width` + 1 candidates to one: each step leaves at most
// floor(width / (lanes + 1)).
fn search_steps(width: u32, lanes: u32) -> u32 {
    var w = width;
    var steps = 0u;
    while w > 0u {
        w /= lanes + 1u;
        steps += 1u;
    }
    return steps;
}

// Runs `steps` steps of the workgroup's searches. Every invocation calls it, with the same
// `steps` and `lanes`: it holds barriers. A `searching` invocation is lane `lane` of the search in
// `slot`, for the co-rank of output k of its merge of m and n elements (a_base and b_base set),
// in the interval the caller has put in the slot, with search_before zeroed (workgroup memory
// is not zeroed for us, pipeline.rs), before a barrier. With unsorted input the result is still
// within that interval.
fn search_together(searching: bool, slot: u32, lane: u32, lanes: u32, k: u32, m: u32, n: u32,
                   steps: u32) {
    let fewest = co_rank_fewest(k, m, n);
    let most = co_rank_most(k, m);
    for (var step = 0u; step < steps; step++) {
        if searching {
            let lo = search_lo[slot];
            let width = search_hi[slot] - lo;
            if width > 0u
                && !past_co_rank(SPACE_GLOBAL, probe(lo, width, lane + 1u, lanes), k, fewest, most) {
                atomicAdd(&search_before[slot], 1u);
            }
        }
        workgroupBarrier();
        if searching && lane == 0u {
            let lo = search_lo[slot];
            let hi = search_hi[slot];
            // Probes 1..=before are not past the co-rank, the rest are (for sorted input).
            let before = atomicExchange(&search_before[slot], 0u);
            if hi > lo {
                var new_hi = hi;
                if before < lanes { new_hi = probe(lo, hi - lo, before + 1u, lanes); }
                var new_lo = lo;
                if before > 0u { new_lo = min(probe(lo, hi - lo, before, lanes) + 1u, new_hi); }
                search_lo[slot] = new_lo;
                search_hi[slot] = new_hi;
            }
        }
        workgroupBarrier();
    }
}

// `lanes` invocations per boundary, searching together.
fn partition_together(group: u32, lid: u32, lanes: u32) {
    let slot = lid / lanes;
    let lane = lid % lanes;
    let boundary = group * (WORKGROUP_SIZE / lanes) + slot;
    let searching = slot < WORKGROUP_SIZE / lanes && boundary <= last_boundary();
    let placed = place_boundary(boundary);
    let segment = placed.segment;
    let k = placed.k0 - segment.start;
    if searching && lane == 0u {
        search_lo[slot] = 0u;
        search_hi[slot] = segment.a_len;
        atomicStore(&search_before[slot], 0u);
    }
    workgroupBarrier();
    // Every segment's A is at most this long.
    let longest = select(params.a_len, params.run_len, params.run_len > 0u);
    search_together(searching, slot, lane, lanes, k, segment.a_len, segment.b_len,
                    search_steps(longest, lanes));
    if searching && lane == 0u { write_split(boundary, k, search_lo[slot], segment); }
}
