// Sorted search: for each needle, the index at which it would go in the sorted haystack, as
// `slice::partition_point` gives it: the first index whose key is not before the needle
// (lower bound), or the first whose key is after it (UPPER), in the operation's order. Kernels:
//
// search_sorted  one invocation per needle, each a binary search of the haystack
//                (lib/search.wgsl): for few needles, or needles in no order.
// search_tiles   the merge path: the partition pass (partition.wgsl) co-ranks the tile
//                boundaries of the merge of needles and haystack, and each workgroup merges its
//                tile in workgroup memory (lib/merge_tile.wgsl); search_tiles_in_turn merges
//                several tiles a workgroup. A needle's place in the merge, less its own index, is
//                the number of haystack keys before it: its lower bound when needles take ties
//                first (NEEDLES_A, needles as A), its upper bound when the haystack does. Sorted
//                needles thus cost about a merge that writes one index per needle instead of a
//                binary search each (run 78: 3.6x merge's time at 2^28).
// search_fix     after the tiles, where some tile found its needles out of order (below).
//
// The tiles write every answer the merge gives (staged in the tile, so the writes coalesce) and
// check that the tile's needles are in order (each against the next as the merge takes it, the
// first against the needle before the tile) and that they are those its cuts give it. Where some
// tile's are not, it sets `unsorted`; then search_fix, one invocation per needle, checks every
// answer against the haystack (the keys at place - 1 and place) and binary-searches each that
// fails (run 125: 11% faster for sorted needles than checking each answer in the tiles).
// So needles in any order are answered right, sorted ones in one pass (search_fix's workgroups
// read the flag and stop), others at about a binary search each. The haystack's order is the
// caller's promise: out of order, it makes the answers unspecified, never out of range (run 315,
// H200: checking it too cost 1% at 2^24 and 2^26, 0.2532-0.2533 ms against 0.2508-0.2509 at
// 2^26; level at 2^28).
// A tile's needles are [x_g, x_g+1), x_g the needles before its first output by the cuts: x_0 = 0
// and the last is every needle, so tiles that all find their needles where the cuts say cover
// every needle once. Every index is bounded by the lengths whatever the input.

#import lib/dispatch
#import lib/merge_tile
#import lib/search

struct SearchParams {
    haystack_len: u32,
    needles_len: u32,
    // search_tiles_in_turn: consecutive tiles each workgroup answers.
    tiles_per_group: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: SearchParams;
// search_sorted: the haystack in a_keys, the needles in b_keys. search_tiles: the needles in
// a_keys with NEEDLES_A, otherwise in b_keys, the haystack in the other.
@group(0) @binding(1) var<storage, read> a_keys: array<Key>;
@group(0) @binding(2) var<storage, read> b_keys: array<Key>;
@group(0) @binding(3) var<storage, read_write> found: array<u32>;
// search_tiles: the partition's boundaries (cuts[g] = A's keys before output g * TILE).
@group(0) @binding(7) var<storage, read> cuts: array<u32>;
// Set by search_tiles when some needle is left for search_fix (zeroed by the partition before it).
@group(0) @binding(8) var<storage, read_write> unsorted: atomic<u32>;

override UPPER: bool = false;
override NEEDLES_A: bool = true;
override WORKGROUP_SIZE: u32 = 256u;
override ITEMS_PER_THREAD: u32 = 5u;

fn read_side(side: u32, i: u32) -> Key {
    if side == SIDE_A { return a_keys[i]; }
    return b_keys[i];
}

// The binary search of `needle` in the haystack, on `side`.
fn search(side: u32, needle: Key) -> u32 {
    if UPPER {
        return upper_bound(side, needle, 0u, params.haystack_len);
    }
    return lower_bound(side, needle, 0u, params.haystack_len);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn search_sorted(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                 @builtin(num_workgroups) num_workgroups: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let i = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE + lid;
    if i >= params.needles_len {
        return;
    }
    found[i] = search(SIDE_A, b_keys[i]);
}

fn haystack_side() -> u32 {
    return select(SIDE_A, SIDE_B, NEEDLES_A);
}

// Whether `place` is the needle's answer, given the haystack keys at place - 1 and place (where
// they exist): the keys before it go before the needle (before it for the lower bound, not after
// it for the upper) and the key at it does not.
fn is_answer(needle: Key, place: u32, before: Key, at: Key) -> bool {
    let h = params.haystack_len;
    let before_goes = select(key_before(before, needle), !key_before(needle, before), UPPER);
    let at_stays = select(!key_before(at, needle), key_before(needle, at), UPPER);
    let before_ok = (place == 0u) | before_goes;
    let at_ok = (place >= h) | at_stays;
    return (place <= h) & before_ok & at_ok;
}

// The tile's needles: slots [n_slot, n_slot + n_len) hold needles [n0, n0 + n_len); its first
// output is merge output k0. Set by search_tiles before the merge.
var<private> n_slot: u32;
var<private> n_len: u32;
var<private> n0: u32;
var<private> k0: u32;

// The tile slot of the invocation's r-th output where that output is a needle, else TILE: its
// answer is staged there once the tile has been read. (One mask of the needles' steps instead,
// from which their slots follow, was 6% slower in run 186.)
var<private> needle_slot: array<u32, MAX_ITEMS>;
// Where each invocation's walk through the tile's A stopped (merge_tile's walk_a.y).
var<workgroup> walk_ends: array<u32, WORKGROUP_SIZE>;

// merge_tile puts only the invocation's own outputs: a step past them could mark the next
// invocation's needles.
const PUT_PAST_END: bool = false;

// merge_tile's output, tile output k from tile slot `slot`.
fn put_output(r: u32, k: u32, key: Key, slot: u32) {
    needle_slot[r] = select(TILE, slot, (slot >= n_slot) & (slot - n_slot < n_len));
}

// Puts each of the invocation's needles' answers (its place in the merge, tile output d0 + r,
// less its own index) in the needle's own slot of the tile, once every invocation has read it,
// then writes the tile's answers in needle order, coalesced. Every invocation calls it. Run 183
// (2^26 needles in 2^26 keys, H100): 0.540 ms in 256 x 7 tiles against 0.561 for each answer
// written from the merge in 512 x 5 (scattered writes, which cost more the more items an
// invocation merges: 512 x 11 took 1.52 ms at 2^28 in run 127).
fn write_answers(d0: u32, lid: u32) {
    workgroupBarrier();
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let slot = needle_slot[r];
        if slot < TILE {
            tile[slot] = Key(k0 + d0 + r - (n0 + slot - n_slot));
        }
    }
    workgroupBarrier();
    for (var x = lid; x < n_len; x += WORKGROUP_SIZE) {
        found[n0 + x] = key_word(tile[n_slot + x]);
    }
}

// Needles before output k by the partition's cut there.
fn needles_before(k: u32, cut: u32) -> u32 {
    return select(k - cut, cut, NEEDLES_A);
}

// Tile g of the merge of needles and haystack, with its boundaries from the partition.
fn search_range(g: u32) -> TileRange {
    let total = params.haystack_len + params.needles_len;
    let a_len = select(params.haystack_len, params.needles_len, NEEDLES_A);
    let segment = segment_of(g * TILE, a_len, total - a_len, 0u);
    return tile_range(g * TILE, cuts[g], cuts[g + 1u], segment);
}

// Merges staged tile g (`range`) and writes every needle's place in the merge, less its index,
// as its answer; returns whether the invocation's checks held. Those are the answers when needles
// and haystack are sorted: then the cuts are exact and each tile's merge puts out each of its
// needles once. So each tile checks that its needles are in order (each against the next, the
// first against the needle before the tile, `prior` from needle_before) and that they are those
// its cuts give it. Every invocation calls it (it holds barriers).
fn answer_tile(g: u32, range: TileRange, lid: u32, prior: Key) -> bool {
    let total = params.haystack_len + params.needles_len;
    n_slot = select(range.a_len, 0u, NEEDLES_A);
    n_len = select(range.count - range.a_len, range.a_len, NEEDLES_A);
    n0 = select(range.b0, range.a0, NEEDLES_A);
    k0 = range.k0;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        needle_slot[r] = TILE;
    }
    let outputs = invocation_outputs(range.count, lid);
    merge_tile(outputs.x, outputs.y, range.a_len, range.count - range.a_len);
    workgroupBarrier();
    // The tile's needles in order (the merge compared each needle it took with the next:
    // CHECK_ORDER), the invocations' walks through A meeting end to start (so that each key was
    // taken, and each needle compared, once; the walk of invocation 0 starts at 0, as co-rank 0
    // is 0), ...
    walk_ends[lid] = walk_a.y;
    var in_order = walk_in_order;
    if lid + 1u == WORKGROUP_SIZE {
        in_order = in_order && walk_a.y == range.a_len;
    }
    if lid == 0u {
        // ... the tile's first needle after the needle before it, ...
        if NEEDLES_A && range.a_len > 0u && range.a0 > 0u {
            in_order = in_order && !key_before(tile[0], prior);
        }
        if !NEEDLES_A && range.count > range.a_len && range.b0 > 0u {
            in_order = in_order && !key_before(tile[range.a_len], prior);
        }
        // ... and the tile's needles those its cuts give it.
        let first = needles_before(g * TILE, cuts[g]);
        let end = needles_before(min((g + 1u) * TILE, total), cuts[g + 1u]);
        in_order = in_order && first == n0 && end == n0 + n_len;
    }
    write_answers(outputs.x, lid);
    // (write_answers' barriers made walk_ends visible.)
    if lid > 0u {
        in_order = in_order && walk_a.x == walk_ends[lid - 1u];
    }
    return in_order;
}

// The needle before the tile's first, for invocation 0 (answer_tile's check), loaded with the
// tile so that its latency is not added to the merge's (run 328, H200: 2^26 sorted needles in
// 0.2498 ms against 0.2508 loaded after the merge).
fn needle_before(range: TileRange, lid: u32) -> Key {
    var key: Key;
    if lid == 0u {
        if NEEDLES_A && range.a0 > 0u { key = a_keys[range.a0 - 1u]; }
        if !NEEDLES_A && range.b0 > 0u { key = b_keys[range.b0 - 1u]; }
    }
    return key;
}

// Tiles of the merge of needles and haystack. (Dispatched only with needles, so the total is not
// 0; no sum overflows this way.)
fn search_tile_count() -> u32 {
    return (params.haystack_len + params.needles_len - 1u) / TILE + 1u;
}

// One tile per workgroup. Where the tile's checks fail it sets `unsorted`, and search_fix checks
// every written answer (one never written included).
@compute @workgroup_size(WORKGROUP_SIZE)
fn search_tiles(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                @builtin(num_workgroups) num_workgroups: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let g = group_index(workgroup_id, num_workgroups);
    if g >= search_tile_count() {
        return;
    }
    let range = search_range(g);
    load_range(range, lid);
    let prior = needle_before(range, lid);
    stage_loaded(range, lid);
    // (answer_tile first: every invocation calls it.)
    if !answer_tile(g, range, lid, prior) {
        atomicOr(&unsorted, 1u);
    }
}

// params.tiles_per_group consecutive tiles per workgroup, each loaded while the workgroup answers
// the one before, as merge_path_tiles (merge_path.wgsl) merges: for long searches
// (tuning::search_tiles_per_workgroup), as search_tiles is faster for short ones.
@compute @workgroup_size(WORKGROUP_SIZE)
fn search_tiles_in_turn(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                        @builtin(num_workgroups) num_workgroups: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32) {
    let tiles = search_tile_count();
    var g = group_index(workgroup_id, num_workgroups) * params.tiles_per_group;
    if g >= tiles {
        return;
    }
    let last = min(g + params.tiles_per_group, tiles) - 1u;
    var range = search_range(g);
    load_range(range, lid);
    var prior = needle_before(range, lid);
    var in_order = true;
    loop {
        stage_loaded(range, lid);
        var next = range;
        var next_prior = prior;
        if g < last {
            next = search_range(g + 1u);
            load_range(next, lid);
            next_prior = needle_before(next, lid);
        }
        in_order = answer_tile(g, range, lid, prior) && in_order;
        if g >= last { break; }
        // Everyone has written this tile's answers before the next tile overwrites it.
        workgroupBarrier();
        range = next;
        prior = next_prior;
        g += 1u;
    }
    if !in_order {
        atomicOr(&unsorted, 1u);
    }
}

var<workgroup> fix_needed: u32;

// After search_tiles, where it left needles: each needle whose answer fails the check is
// binary-searched. A few workgroups stride over the needles, so that when every tile answered
// (the flag clear) the pass costs a few thousand workgroups reading one word.
@compute @workgroup_size(WORKGROUP_SIZE)
fn search_fix(@builtin(workgroup_id) workgroup_id: vec3<u32>,
              @builtin(num_workgroups) num_workgroups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    // One read of the flag a workgroup, not one an invocation: with every invocation's atomic
    // read of the one word the time followed the invocations dispatched, not the workgroups
    // (run 329); run 330 (H200, sorted needles at 2^20 / 2^24 / 2^26): 0.0190 / 0.0851 / 0.2443
    // ms against 0.0248 / 0.0874 / 0.2467.
    if lid == 0u { fix_needed = atomicLoad(&unsorted); }
    if workgroupUniformLoad(&fix_needed) == 0u {
        return;
    }
    let stride = num_workgroups.x * num_workgroups.y * WORKGROUP_SIZE;
    for (var i = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE + lid;
         i < params.needles_len; i += stride) {
        let needle = read_side(1u - haystack_side(), i);
        let place = found[i];
        var before: Key;
        var at: Key;
        if place > 0u && place <= params.haystack_len {
            before = read_side(haystack_side(), place - 1u);
        }
        if place < params.haystack_len {
            at = read_side(haystack_side(), place);
        }
        if !is_answer(needle, place, before, at) {
            found[i] = search(haystack_side(), needle);
        }
    }
}
