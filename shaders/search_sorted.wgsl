// Sorted search: for each needle, the index at which it would go in the sorted haystack, as
// `slice::partition_point` gives it: the first index whose key is not before the needle
// (lower bound), or the first whose key is after it (UPPER), in the operation's order. Two
// kernels:
//
// search_sorted  one invocation per needle, each a binary search of the haystack
//                (lib/search.wgsl): for few needles, or needles in no order.
// search_tiles   the merge path: the partition pass (partition.wgsl) co-ranks the tile
//                boundaries of the merge of needles and haystack, and each workgroup merges its
//                tile in workgroup memory (lib/merge_tile.wgsl). A needle's place in the merge,
//                less its own index, is the number of haystack keys before it: its lower bound
//                when needles take ties first (NEEDLES_A, needles as A), its upper bound when the
//                haystack does. Sorted needles thus cost about a merge that writes one index per
//                needle instead of a binary search each (run 78: 3.6x merge's time at 2^28).
//
// search_tiles checks each answer against the haystack (the keys at place - 1 and place) and
// binary-searches any needle whose answer fails, so needles in no order, or runs of them, are
// still answered right, only more slowly. Tile g answers needles [x_g, x_g+1), x_g the needles
// before its first output by the partition: x_0 = 0 and the last is every needle, so each needle
// lies in some tile's range even when unsorted needles make the ranges overlap. Every index is
// bounded by the lengths whatever the input.

#import lib/dispatch
#import lib/merge_tile
#import lib/search

struct SearchParams {
    haystack_len: u32,
    needles_len: u32,
}

@group(0) @binding(0) var<uniform> params: SearchParams;
// search_sorted: the haystack in a_keys, the needles in b_keys. search_tiles: the needles in
// a_keys with NEEDLES_A, otherwise in b_keys, the haystack in the other.
@group(0) @binding(1) var<storage, read> a_keys: array<Key>;
@group(0) @binding(2) var<storage, read> b_keys: array<Key>;
@group(0) @binding(3) var<storage, read_write> found: array<u32>;
// search_tiles: the partition's boundaries (cuts[g] = A's keys before output g * TILE).
@group(0) @binding(7) var<storage, read> cuts: array<u32>;

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

// Whether `place` is the needle's answer: the haystack keys before it go before the needle
// (before it for the lower bound, not after it for the upper) and the key at it does not.
fn answers(needle: Key, place: u32) -> bool {
    let side = haystack_side();
    if place > params.haystack_len {
        return false;
    }
    if place > 0u {
        let key = read_side(side, place - 1u);
        if select(!key_before(key, needle), key_before(needle, key), UPPER) {
            return false;
        }
    }
    if place < params.haystack_len {
        let key = read_side(side, place);
        return select(!key_before(key, needle), key_before(needle, key), UPPER);
    }
    return true;
}

// merge_tile's output: the tile slot of each output, in output order.
var<workgroup> staged: array<u32, TILE>;
fn put_output(r: u32, k: u32, key: Key, slot: u32) {
    staged[k] = slot;
}
// Each of the tile's needles' place in the merge less its index (NO_PLACE if the merge gave it
// none, as unsorted needles can).
var<workgroup> places: array<u32, TILE>;
const NO_PLACE: u32 = 0xffffffffu;

// Needles before output k by the partition's cut there.
fn needles_before(k: u32, cut: u32) -> u32 {
    return select(k - cut, cut, NEEDLES_A);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn search_tiles(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                @builtin(num_workgroups) num_workgroups: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let total = params.haystack_len + params.needles_len;
    let g = group_index(workgroup_id, num_workgroups);
    if g * TILE >= total {
        return;
    }
    let a_len = select(params.haystack_len, params.needles_len, NEEDLES_A);
    let segment = segment_of(g * TILE, a_len, total - a_len, 0u);
    let range = tile_range(g, total, cuts[g], cuts[g + 1u], segment);
    for (var x = lid; x < TILE; x += WORKGROUP_SIZE) {
        places[x] = NO_PLACE;
    }
    load_range(range, lid);
    stage_loaded(range, lid);
    let d0 = min(lid * ITEMS_PER_THREAD, range.count);
    let d1 = min(d0 + ITEMS_PER_THREAD, range.count);
    merge_tile(d0, d1, range.a_len, range.count - range.a_len);
    workgroupBarrier();
    // The tile's needles: slots [n_slot, n_slot + n_len) hold needles [n0, n0 + n_len).
    let n_slot = select(range.a_len, 0u, NEEDLES_A);
    let n_len = select(range.count - range.a_len, range.a_len, NEEDLES_A);
    let n0 = select(range.b0, range.a0, NEEDLES_A);
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        if d0 + r < d1 {
            let slot = min(staged[d0 + r], range.count - 1u);
            if slot >= n_slot && slot - n_slot < n_len {
                places[slot - n_slot] = range.k0 + d0 + r - (n0 + slot - n_slot);
            }
        }
    }
    workgroupBarrier();
    let first = needles_before(g * TILE, cuts[g]);
    let end = needles_before(min((g + 1u) * TILE, total), cuts[g + 1u]);
    for (var m = first + lid; m < end; m += WORKGROUP_SIZE) {
        var answer = NO_PLACE;
        if m >= n0 && m - n0 < n_len {
            let place = places[m - n0];
            if answers(tile[n_slot + m - n0], place) {
                answer = place;
            }
        }
        if answer == NO_PLACE {
            answer = search(haystack_side(), read_side(1u - haystack_side(), m));
        }
        found[m] = answer;
    }
}
