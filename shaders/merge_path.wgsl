// Merge path in two passes. merge_path_partition co-ranks every workgroup's output boundary in
// parallel, one binary search per boundary, into `splits`. merge_path then gives each workgroup
// TILE consecutive outputs: it loads the A and B elements they come from into workgroup memory
// with coalesced loads, every invocation co-ranks the start of its ITEMS_PER_THREAD outputs (its
// diagonal) inside workgroup memory and merges them into registers (`merged`), and the workgroup
// writes its outputs back coalesced. Every key is read once and written once.
//
// What is merged per output, where it is staged and how it is written back comes from
// merge_path_keys.wgsl (the key, staged in the tile's own memory) or merge_path_pairs.wgsl (its
// tile slot, for its value). ITEMS_PER_THREAD is best odd: invocations stage their outputs at that
// stride, and an odd stride touches every memory bank once.
//
// Sort's merge passes use the same two passes on many merges at once (params.run_len): the
// output is cut into segments, one per pair of runs, and each workgroup's tile lies in one
// segment because TILE divides the segment length.

override TILE: u32 = WORKGROUP_SIZE * ITEMS_PER_THREAD;
// Largest ITEMS_PER_THREAD (merge.rs: MAX_ITEMS_PER_THREAD): the length of the private arrays
// that hold an invocation's loads. Loops over them run ITEMS_PER_THREAD steps, a constant when the
// pipeline is built, so the driver unrolls them and keeps the used elements in registers.
const MAX_ITEMS: u32 = 64u;

// splits[g] = elements of A before output g * TILE; the last entry closes the last tile.
@group(0) @binding(7) var<storage, read_write> splits: array<u32>;

// The workgroup's A elements, then its B elements.
var<workgroup> tile: array<Key, TILE>;
// What the invocation's merge produced, one stage() record per output, until store_merged()
// puts it in workgroup memory.
var<private> merged: array<Staged, MAX_ITEMS>;

// Elements of A in the tile (B's start at this slot).
var<private> a_count: u32;
// Where the segment's A and B start in a_keys and b_keys.
var<private> a_base: u32;
var<private> b_base: u32;

fn read_a(space: u32, i: u32) -> Key {
    if space == SPACE_GLOBAL { return a_keys[a_base + i]; }
    return tile[i];
}
fn read_b(space: u32, j: u32) -> Key {
    if space == SPACE_GLOBAL { return b_keys[b_base + j]; }
    return tile[a_count + j];
}

// One merge within the output: outputs [start, start + a_len + b_len) merge a_keys[a_base..]
// with b_keys[b_base..].
struct Segment {
    start: u32,
    a_base: u32,
    a_len: u32,
    b_base: u32,
    b_len: u32,
}

// The segment that output rank k belongs to: the whole merge, or in a sort pass the pair of runs
// k falls in (the second run may be short or empty at the end).
fn segment_of(k: u32) -> Segment {
    let run = params.run_len;
    if run == 0u {
        return Segment(0u, 0u, params.a_len, 0u, params.b_len);
    }
    let total = params.a_len;
    let start = min(k / (2u * run) * (2u * run), total);
    let a_len = min(run, total - start);
    let b_len = min(run, total - start - a_len);
    return Segment(start, start, a_len, start + a_len, b_len);
}
// co_rank.wgsl's sequential merge, which calls this, is not used here: merge_tile merges.
fn emit(space: u32, k: u32, key: Key, from_a: bool, src: u32) {}

// Merges the tile's outputs [d0, d1) into `merged`: co_rank.wgsl's sequential merge without its
// branches. Only the start is co-ranked: merging on from the right start point takes exactly the
// outputs d0.. of the whole tile's merge, bounded by the tile's A and B (never beyond them, even
// for unsorted input, as d1 <= a_len + b_len). Each step reads one key, from A or B as the step
// decided, at an index clamped into the tile, so the invocations of a wave never split on which
// input they read.
fn merge_tile(d0: u32, d1: u32, a_len: u32, b_len: u32) {
    var i = co_rank(SPACE_TILE, d0, a_len, b_len);
    var j = d0 - i;
    var key_a = tile[min(i, TILE - 1u)];
    var key_b = tile[min(a_len + j, TILE - 1u)];
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let k = d0 + r;
        if k >= d1 { break; }
        let take_a = i < a_len && (j >= b_len || !key_before(key_b, key_a));
        merged[r] = stage(select(key_b, key_a, take_a), select(a_len + j, i, take_a));
        i += select(0u, 1u, take_a);
        j += select(1u, 0u, take_a);
        let next = tile[min(select(a_len + j, i, take_a), TILE - 1u)];
        key_a = select(key_a, next, take_a);
        key_b = select(next, key_b, take_a);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_path_partition(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                        @builtin(num_workgroups) num_workgroups: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32) {
    let total = params.a_len + params.b_len;
    let boundary = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE + lid;
    if boundary > (total + TILE - 1u) / TILE { return; }
    // Co-rank within the boundary's segment; a workgroup ending at its segment's end takes
    // the rest of the segment instead of reading this.
    let k = min(boundary * TILE, total);
    let segment = segment_of(k);
    a_base = segment.a_base;
    b_base = segment.b_base;
    splits[boundary] = co_rank(SPACE_GLOBAL, k - segment.start, segment.a_len, segment.b_len);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_path(@builtin(workgroup_id) workgroup_id: vec3<u32>,
              @builtin(num_workgroups) num_workgroups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let total = params.a_len + params.b_len;
    let group = group_index(workgroup_id, num_workgroups);
    let k0 = group * TILE;
    if k0 >= total { return; }
    let count = min(TILE, total - k0);
    let segment = segment_of(k0);
    let segment_end = segment.start + segment.a_len + segment.b_len;
    let a_split = splits[group];
    let a_end = select(splits[group + 1u], segment.a_len, k0 + count >= segment_end);
    // Global starts of the tile's A and B elements.
    let a0 = segment.a_base + a_split;
    let b0 = segment.b_base + (k0 - segment.start - a_split);
    // Clamped so that unsorted input (where co-rank need not grow with rank) stays in the tile.
    let a_len = min(remaining(a_end, a_split), count);
    let b_len = count - a_len;

    // Every load of the invocation is issued before its first store to workgroup memory, so all
    // of them are in flight at once and the load costs one memory latency, not one per item.
    var loaded: array<Key, MAX_ITEMS>;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < a_len {
            loaded[r] = a_keys[a0 + x];
        } else if x < count {
            loaded[r] = b_keys[b0 + x - a_len];
        }
    }
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count { tile[x] = loaded[r]; }
    }
    a_count = a_len;
    workgroupBarrier();

    let d0 = min(lid * ITEMS_PER_THREAD, count);
    let d1 = min(d0 + ITEMS_PER_THREAD, count);
    merge_tile(d0, d1, a_len, b_len);
    store_merged(d0, d1 - d0);
    workgroupBarrier();

    write_back(lid, k0, count, a_len, a0, b0);
}
