// Merge path in two passes. merge_path_partition co-ranks every workgroup's output boundary in
// parallel, one search per boundary, into `splits`. merge_path then gives each workgroup
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
// and loads each while merging the one before; merge_path_chunks does the same with chunks of
// consecutive tiles that its workgroups take from a counter until none is left.
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

// co_rank.wgsl's accessors: merge path co-ranks only inside the tile.
fn read_a(space: u32, i: u32) -> Key {
    return tile[i];
}
fn read_b(space: u32, j: u32) -> Key {
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

// Co-rank searches that the invocations of a workgroup run together, several at once: each
// search (a slot) has `lanes` invocations, which probe `lanes` points of its interval in one step
// and keep the part between the last probe that is not past the co-rank and the first that is.
// A step thus cuts the interval by lanes + 1, not 2, so a search waits on far fewer loads one
// after another: the loads that miss every cache are what a partition costs (docs/benchmarks.md).
// A partition workgroup uses PARTITION_WORKGROUP_SIZE / PARTITION_LANES of the slots, with at
// least 2 lanes each.
const SEARCH_SLOTS: u32 = 32u;
// A search's interval is [search_lo, search_hi]; at its end search_lo is the co-rank.
var<workgroup> search_lo: array<u32, SEARCH_SLOTS>;
var<workgroup> search_hi: array<u32, SEARCH_SLOTS>;
// Probes of the current step that are not past the co-rank.
var<workgroup> search_before: array<atomic<u32>, SEARCH_SLOTS>;

// Whether A[i] is not among the first k outputs of the merge of a_keys[a_base..][..m] with
// b_keys[b_base..][..n] (for any i in [0, m]: outside [fewest, most], the indices output k allows,
// the answer is known without a load). Searches over all of A's indices, not only those output k
// allows, probe the same A elements in their first steps whatever k is, which the cache serves.
fn past_co_rank(i: u32, k: u32, fewest: u32, most: u32) -> bool {
    if i >= most { return true; }
    if i < fewest { return false; }
    return key_before(b_keys[b_base + k - 1u - i], a_keys[a_base + i]);
}

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
// is not zeroed for us, gpu.rs), before a barrier. With unsorted input the result is still within
// that interval.
fn search_together(searching: bool, slot: u32, lane: u32, lanes: u32, k: u32, m: u32, n: u32,
                   steps: u32) {
    let fewest = select(0u, k - n, k > n);
    let most = min(k, m);
    for (var step = 0u; step < steps; step++) {
        if searching {
            let lo = search_lo[slot];
            let width = search_hi[slot] - lo;
            if width > 0u && !past_co_rank(probe(lo, width, lane + 1u, lanes), k, fewest, most) {
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

// Invocations per workgroup of the partition pass, apart from the merge's: small workgroups
// spread the searches over every compute unit.
override PARTITION_WORKGROUP_SIZE: u32 = 64u;
// Invocations that search each boundary together (merge.rs: partition_lanes), 1 for alone.
override PARTITION_LANES: u32 = 1u;

// Co-ranks the boundaries of the merge's tiles into `splits`.
@compute @workgroup_size(PARTITION_WORKGROUP_SIZE)
fn merge_path_partition(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                        @builtin(num_workgroups) num_workgroups: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32) {
    partition_boundaries(group_index(workgroup_id, num_workgroups), lid);
}

// The same for merge_path_chunks, whose chunk counter it also zeroes (the merge pass, a later
// dispatch, sees it zeroed).
@compute @workgroup_size(PARTITION_WORKGROUP_SIZE)
fn merge_path_partition_chunks(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                               @builtin(num_workgroups) num_workgroups: vec3<u32>,
                               @builtin(local_invocation_index) lid: u32) {
    let group = group_index(workgroup_id, num_workgroups);
    if group == 0u && lid == 0u { atomicStore(&chunk_counter, 0u); }
    partition_boundaries(group, lid);
}

fn partition_boundaries(group: u32, lid: u32) {
    if PARTITION_LANES <= 1u {
        partition_alone(group * PARTITION_WORKGROUP_SIZE + lid);
    } else {
        partition_together(group, lid, PARTITION_LANES);
    }
}

// The segment of tile boundary `boundary`, whose A and B it sets as a_base and b_base.
fn boundary_segment(boundary: u32) -> Segment {
    let total = params.a_len + params.b_len;
    let k = min(boundary * TILE, total);
    let segment = segment_of(k);
    a_base = segment.a_base;
    b_base = segment.b_base;
    return segment;
}

// One invocation per boundary, binary search.
fn partition_alone(boundary: u32) {
    let total = params.a_len + params.b_len;
    if boundary > (total + TILE - 1u) / TILE { return; }
    // Co-rank within the boundary's segment; a tile ending at its segment's end takes the rest
    // of the segment instead of reading this.
    let segment = boundary_segment(boundary);
    let k = min(boundary * TILE, total) - segment.start;
    let fewest = select(0u, k - segment.b_len, k > segment.b_len);
    let most = min(k, segment.a_len);
    var lo = 0u;
    var hi = segment.a_len;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if past_co_rank(mid, k, fewest, most) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    splits[boundary] = lo;
}

// `lanes` invocations per boundary, searching together.
fn partition_together(group: u32, lid: u32, lanes: u32) {
    let total = params.a_len + params.b_len;
    let slot = lid / lanes;
    let lane = lid % lanes;
    let boundary = group * (PARTITION_WORKGROUP_SIZE / lanes) + slot;
    let searching = slot < PARTITION_WORKGROUP_SIZE / lanes
        && boundary <= (total + TILE - 1u) / TILE;
    let segment = boundary_segment(boundary);
    let k = min(boundary * TILE, total) - segment.start;
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
    if searching && lane == 0u { splits[boundary] = search_lo[slot]; }
}

// One tile's outputs and where its inputs are.
struct TileRange {
    k0: u32,
    count: u32,
    a0: u32,
    a_len: u32,
    b0: u32,
}

// Tile g, whose first and last outputs have co-ranks a_split and a_next in their segment.
fn tile_range(g: u32, total: u32, a_split: u32, a_next: u32) -> TileRange {
    let k0 = g * TILE;
    let count = min(TILE, total - k0);
    let segment = segment_of(k0);
    let segment_end = segment.start + segment.a_len + segment.b_len;
    let a_end = select(a_next, segment.a_len, k0 + count >= segment_end);
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
    let range = tile_range(g, total, splits[g], splits[g + 1u]);
    load_range(range, lid);
    stage_loaded(range, lid);
    merge_staged(range, lid);
}

// params.tiles_per_group consecutive tiles per workgroup. Each tile's loads are issued before the
// previous tile is merged, so memory stays busy while the workgroup merges; this pays for long
// merges (docs/benchmarks.md, runs 19-23), while a workgroup per tile (merge_path) is better for
// short ones, which need every workgroup they can get.
@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_path_tiles(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                    @builtin(num_workgroups) num_workgroups: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let total = params.a_len + params.b_len;
    let tiles = (total + TILE - 1u) / TILE;
    var g = group_index(workgroup_id, num_workgroups) * params.tiles_per_group;
    if g >= tiles { return; }
    let last = min(g + params.tiles_per_group, tiles) - 1u;
    var range = tile_range(g, total, splits[g], splits[g + 1u]);
    load_range(range, lid);
    loop {
        stage_loaded(range, lid);
        var next = range;
        if g < last {
            next = tile_range(g + 1u, total, splits[g + 1u], splits[g + 2u]);
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

// Chunks taken by merge_path_chunks' workgroups so far (merge.rs binds it for that kernel only).
@group(0) @binding(8) var<storage, read_write> chunk_counter: atomic<u32>;
// A chunk taken by invocation 0, for the whole workgroup.
var<workgroup> next_chunk: u32;
// Most tiles a workgroup takes chunks up to (merge.rs: most_tiles_per_workgroup, which sets it
// and says why: llvmpipe stops an invocation's loops after about 65,535 iterations in all). The
// chunks a workgroup leaves go to later ones; a GPU runs about 90 tiles per workgroup of a 2^28
// keys merge, below this for every shape.
override MOST_TILES: u32 = 1u;

// params.tiles_per_group consecutive tiles at a time: each workgroup takes a chunk from the
// counter, merges its tiles as merge_path_tiles does, and takes the next chunk while it merges
// the first tile of this one, until no chunk is left. So the workgroups the device runs at once
// share the work in one wave, whatever their number, and each loads its next tile while it
// merges (docs/benchmarks.md, runs 32 and 37-39). One workgroup is dispatched per chunk, so every
// chunk is taken whether or not the device runs them at once; those that find none left stop.
@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_path_chunks(@builtin(local_invocation_index) lid: u32) {
    let total = params.a_len + params.b_len;
    let tiles = (total + TILE - 1u) / TILE;
    let size = params.tiles_per_group;
    let chunks = (tiles + size - 1u) / size;
    if lid == 0u { next_chunk = atomicAdd(&chunk_counter, 1u); }
    let chunk = workgroupUniformLoad(&next_chunk);
    if chunk >= chunks { return; }
    var g = chunk * size;
    // The current chunk's first and last tiles, and the tiles taken so far.
    var first = g;
    var last = min(g + size, tiles) - 1u;
    var taken = last + 1u - g;
    var range = tile_range(g, total, splits[g], splits[g + 1u]);
    load_range(range, lid);
    loop {
        stage_loaded(range, lid);
        // Everyone has read next_chunk since it was last written (barriers since).
        if lid == 0u && g == first {
            var taking = chunks;
            if taken + size <= MOST_TILES { taking = atomicAdd(&chunk_counter, 1u); }
            next_chunk = taking;
        }
        var next_g = g + 1u;
        var more = g < last;
        if g >= last {
            let taking = workgroupUniformLoad(&next_chunk);
            more = taking < chunks;
            next_g = taking * size;
        }
        var next = range;
        if more {
            next = tile_range(next_g, total, splits[next_g], splits[next_g + 1u]);
            load_range(next, lid);
        }
        merge_staged(range, lid);
        if !more { break; }
        // Everyone has written this tile's outputs before the next tile overwrites it.
        workgroupBarrier();
        if g >= last {
            first = next_g;
            last = min(next_g + size, tiles) - 1u;
            taken += last + 1u - next_g;
        }
        range = next;
        g = next_g;
    }
}
