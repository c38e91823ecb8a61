// Merge path in two passes. merge_path_partition co-ranks every workgroup's output boundary in
// parallel, one binary search per boundary, into `splits`. merge_path then gives each workgroup
// TILE consecutive outputs: it loads the A and B elements they come from into workgroup memory
// with coalesced loads, every invocation co-ranks the start of its ITEMS_PER_THREAD outputs (its
// diagonal) inside workgroup memory and merges them, and the workgroup writes its outputs back
// coalesced. Every key is read once and written once.
//
// What the merge keeps of each output and how it is written back comes from merge_path_keys.wgsl
// (the key, in registers until it goes back into the tile's own memory) or merge_path_pairs.wgsl
// (its tile slot, straight into workgroup memory, for its key and value). ITEMS_PER_THREAD is
// best odd: invocations store their outputs at that stride, and an odd stride touches every
// memory bank once.
//
// merge_path gives each workgroup one tile; merge_path_tiles gives it several consecutive tiles
// and loads each while merging the one before.
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
// The invocation's loads of a tile, held until they are stored to `tile`.
var<private> loaded: array<Key, MAX_ITEMS>;

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

// Merges the tile's outputs [d0, d1), handing each to put_output: co_rank.wgsl's sequential
// merge without its branches. Only the start is co-ranked: merging on from the right start point
// takes exactly the outputs d0.. of the whole tile's merge, bounded by the tile's A and B (never
// beyond them, even for unsorted input, as d1 <= a_len + b_len). Each step reads one key, from A
// or B as the step decided, at an index clamped into the tile, so the invocations of a wave never
// split on which input they read. The loop runs ITEMS_PER_THREAD steps whatever d1 is (steps past
// d1 put nothing), so the driver unrolls it.
fn merge_tile(d0: u32, d1: u32, a_len: u32, b_len: u32) {
    var i = co_rank(SPACE_TILE, d0, a_len, b_len);
    var j = d0 - i;
    var key_a = tile[min(i, TILE - 1u)];
    var key_b = tile[min(a_len + j, TILE - 1u)];
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let take_a = i < a_len && (j >= b_len || !key_before(key_b, key_a));
        if d0 + r < d1 {
            put_output(r, d0 + r, select(key_b, key_a, take_a), select(a_len + j, i, take_a));
        }
        i += select(0u, 1u, take_a);
        j += select(1u, 0u, take_a);
        let next = tile[min(select(a_len + j, i, take_a), TILE - 1u)];
        key_a = select(key_a, next, take_a);
        key_b = select(next, key_b, take_a);
    }
}

// Invocations per workgroup of the partition pass, apart from the merge's: each invocation
// co-ranks one boundary, and small workgroups spread the few thousand searches over every SM.
override PARTITION_WORKGROUP_SIZE: u32 = 64u;

@compute @workgroup_size(PARTITION_WORKGROUP_SIZE)
fn merge_path_partition(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                        @builtin(num_workgroups) num_workgroups: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32) {
    let total = params.a_len + params.b_len;
    let boundary = group_index(workgroup_id, num_workgroups) * PARTITION_WORKGROUP_SIZE + lid;
    if boundary > (total + TILE - 1u) / TILE { return; }
    // Co-rank within the boundary's segment; a workgroup ending at its segment's end takes
    // the rest of the segment instead of reading this.
    let k = min(boundary * TILE, total);
    let segment = segment_of(k);
    a_base = segment.a_base;
    b_base = segment.b_base;
    splits[boundary] = co_rank_global(k - segment.start, segment.a_len, segment.b_len);
}

// co_rank() over global memory, for the partition pass, whose cost is its loads that miss every
// cache. The binary search runs over all of A's indices [0, m], not only over those output k
// allows (A[i] with k - n <= i <= k): outside them the answer is known without a load, and inside
// them the A elements of the first levels are the same for every boundary (A[m/2], then A[m/4] or
// A[3m/4], ...), which the cache serves. Only the B element of those steps is a boundary's own.
fn co_rank_global(k: u32, m: u32, n: u32) -> u32 {
    let fewest = select(0u, k - n, k > n);
    let most = min(k, m);
    var lo = 0u;
    var hi = m;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        // Whether fewer than mid + 1 elements of A are among the first k outputs.
        var below = mid >= most;
        if mid >= fewest && mid < most {
            below = key_before(b_keys[b_base + k - 1u - mid], a_keys[a_base + mid]);
        }
        if below {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    return lo;
}

// One tile's outputs and where its inputs are.
struct TileRange {
    k0: u32,
    count: u32,
    a0: u32,
    a_len: u32,
    b0: u32,
}

fn tile_range(g: u32, total: u32) -> TileRange {
    let k0 = g * TILE;
    let count = min(TILE, total - k0);
    let segment = segment_of(k0);
    let segment_end = segment.start + segment.a_len + segment.b_len;
    let a_split = splits[g];
    let a_end = select(splits[g + 1u], segment.a_len, k0 + count >= segment_end);
    // Clamped so that unsorted input (where co-rank need not grow with rank) stays in the tile.
    let a_len = min(remaining(a_end, a_split), count);
    return TileRange(k0, count, segment.a_base + a_split, a_len,
                     segment.b_base + (k0 - segment.start - a_split));
}

// Issues every load of the invocation's items of `range` into `loaded`.
fn load_range(range: TileRange, lid: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < range.a_len {
            loaded[r] = a_keys[range.a0 + x];
        } else if x < range.count {
            loaded[r] = b_keys[range.b0 + x - range.a_len];
        }
    }
}

// Stores the invocation's loads of `range` into the tile, for the whole workgroup to merge.
fn stage_loaded(range: TileRange, lid: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < range.count { tile[x] = loaded[r]; }
    }
    a_count = range.a_len;
    workgroupBarrier();
}

// Merges the staged tile of `range` and writes its outputs.
fn merge_staged(range: TileRange, lid: u32) {
    let d0 = min(lid * ITEMS_PER_THREAD, range.count);
    let d1 = min(d0 + ITEMS_PER_THREAD, range.count);
    merge_tile(d0, d1, range.a_len, range.count - range.a_len);
    store_merged(d0, d1 - d0);
    workgroupBarrier();
    write_back(lid, range.k0, range.count, range.a_len, range.a0, range.b0);
}

// One tile per workgroup.
@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_path(@builtin(workgroup_id) workgroup_id: vec3<u32>,
              @builtin(num_workgroups) num_workgroups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let total = params.a_len + params.b_len;
    let g = group_index(workgroup_id, num_workgroups);
    if g * TILE >= total { return; }
    let range = tile_range(g, total);
    load_range(range, lid);
    stage_loaded(range, lid);
    merge_staged(range, lid);
}

// params.tiles_per_group consecutive tiles per workgroup. Each tile's loads are issued before the
// previous tile is merged, so memory stays busy while the workgroup merges; this pays for long
// keys-only merges (docs/benchmarks.md, run 19), while a workgroup per tile (merge_path) is
// better for short ones and for pairs, which need the registers.
@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_path_tiles(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                    @builtin(num_workgroups) num_workgroups: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let total = params.a_len + params.b_len;
    let tiles = (total + TILE - 1u) / TILE;
    var g = group_index(workgroup_id, num_workgroups) * params.tiles_per_group;
    if g >= tiles { return; }
    let last = min(g + params.tiles_per_group, tiles) - 1u;
    var range = tile_range(g, total);
    load_range(range, lid);
    loop {
        stage_loaded(range, lid);
        var next = range;
        if g < last {
            next = tile_range(g + 1u, total);
            load_range(next, lid);
        }
        merge_staged(range, lid);
        if g >= last { break; }
        // Everyone has written this tile's outputs before the next tile overwrites it.
        workgroupBarrier();
        range = next;
        g += 1u;
    }
}
