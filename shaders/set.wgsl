// Set operations on two sorted inputs, as multisets, in the merge order. For a key found m times
// in A and n times in B (the C++ library's std::set_* rule):
//   union                 A's m copies, then B's last n - m (when n > m);
//   intersection          A's first min(m, n);
//   difference (A - B)    A's last m - n;
//   symmetric difference  A's last m - n, or B's last n - m.
// The kept elements come out in the stable merge's order (ties take A first), values with them.
//
// The work is cut like a merge: the partition pass (partition.wgsl) co-ranks every tile boundary
// of the merged order, and each workgroup merges its tile in workgroup memory
// (lib/merge_tile.wgsl). Each output of the merge is then decided: its rank among the copies of its
// key in its own input against the copies in the other. Its two neighbours settle that unless
// both equal its key (decide_by_neighbours); then the runs are searched in global memory from
// their end, galloping, so no tile boundary changes an answer and a run of r keys costs about
// log2(r) nearby reads (run 78's whole-input binary searches made a union of 2^28 keys 25x slower
// than Thrust's, 6% of random keys meeting an equal neighbour). One pass does the rest: each tile
// counts its kept elements, learns how many were kept before it by decoupled look-back
// (lib/look_back.wgsl; run 84 found a count pass, a scan and a write pass cost 7.5 ms at 2^28
// with no decision at all), and writes them from there, compacted in workgroup memory and
// written coalesced. The last tile writes the total after the look-back state.
// Every index is bounded by the lengths whatever the input: unsorted input gives an unspecified
// result, never an access out of bounds.

#import lib/dispatch
#import lib/merge_tile
#import lib/search
#import lib/look_back
#import values

// Which operation the pipeline does.
override SET_OPERATION: u32 = 0u;
const SET_UNION: u32 = 0u;
const SET_INTERSECTION: u32 = 1u;
const SET_DIFFERENCE: u32 = 2u;

override WORKGROUP_SIZE: u32 = 256u;
override ITEMS_PER_THREAD: u32 = 3u;

struct SetParams {
    a_len: u32,
    b_len: u32,
    tiles: u32,
    // Where lib/look_back.wgsl's words start in `state`.
    state_at: u32,
}

@group(0) @binding(0) var<uniform> params: SetParams;
@group(0) @binding(1) var<storage, read> a_keys: array<Key>;
@group(0) @binding(2) var<storage, read> b_keys: array<Key>;
@group(0) @binding(3) var<storage, read_write> out_keys: array<Key>;
// The partition's boundaries (word g: elements of A before output g * TILE), then from
// params.state_at lib/look_back.wgsl's words and the number kept after them: one buffer, so that
// keys-only set operations bind four storage buffers.
@group(0) @binding(8) var<storage, read_write> state: array<atomic<u32>>;

fn cut(g: u32) -> u32 {
    return atomicLoad(&state[g]);
}

fn read_side(side: u32, i: u32) -> Key {
    if side == SIDE_A { return a_keys[i]; }
    return b_keys[i];
}

// merge_tile's output: the tile slot of each output, in output order.
var<workgroup> staged: array<u32, TILE>;
fn put_output(r: u32, k: u32, key: Key, slot: u32) {
    staged[k] = slot;
}

// Tile g of the merged order.
fn set_tile(g: u32) -> TileRange {
    let segment = segment_of(g * TILE, params.a_len, params.b_len, 0u);
    return tile_range(g * TILE, cut(g), cut(g + 1u), segment);
}

// Output k's index in its own input and its merge position in the other (tile slot `slot` of
// `range`): for A's elements the B elements before it in the merge are exactly those before its
// key, for B's the A elements before it are those through its key.
fn own_and_other(slot: u32, range: TileRange, k: u32) -> vec2<u32> {
    if slot < range.a_len {
        let i = range.a0 + slot;
        return vec2(i, min(remaining(k, i), params.b_len));
    }
    let j = range.b0 + slot - range.a_len;
    return vec2(j, min(remaining(k, j), params.a_len));
}

// The decision from the output's two neighbours alone: the key before it in its own input, and
// the key at its merge position in the other input (for A's elements the next of B, for B's the
// last of A before it). Unless both equal its key, its rank among its copies in its own input or
// the other's count of copies is 0, which settles the rule; when both do, kept() counts the runs.
const DROP: u32 = 0u;
const KEEP: u32 = 1u;
const SEARCH: u32 = 2u;
fn decide_by_neighbours(slot: u32, range: TileRange, k: u32) -> u32 {
    let key = tile[slot];
    // A union keeps all of A (run 87: 3% at 2^28 without its reads).
    if SET_OPERATION == SET_UNION && slot < range.a_len {
        return KEEP;
    }
    let at = own_and_other(slot, range, k);
    if slot < range.a_len {
        let i = at.x;
        let j = at.y;
        let in_other = j < params.b_len && !key_before(key, b_keys[j]);
        let after_own = i > 0u && !key_before(a_keys[i - 1u], key);
        if in_other && after_own {
            return SEARCH;
        }
        // Rank 0 or no copies in B: an intersection keeps it if B has a copy, a difference if not.
        return select(DROP, KEEP, in_other == (SET_OPERATION == SET_INTERSECTION));
    }
    if SET_OPERATION == SET_INTERSECTION || SET_OPERATION == SET_DIFFERENCE {
        return DROP;
    }
    let j = at.x;
    let i = at.y;
    let in_other = i > 0u && !key_before(a_keys[i - 1u], key);
    let after_own = j > 0u && !key_before(b_keys[j - 1u], key);
    if in_other && after_own {
        return SEARCH;
    }
    // Rank 0 or no copies in A: kept unless A has a copy.
    return select(DROP, KEEP, !in_other);
}

// Whether an output decide_by_neighbours leaves to SEARCH is kept. Both its neighbours equal its
// key (so they exist, and every search stays within its input): its rank among its copies in its
// own input and the other's copies are counted.
fn kept(slot: u32, range: TileRange, k: u32) -> bool {
    let key = tile[slot];
    let at = own_and_other(slot, range, k);
    if slot < range.a_len {
        if SET_OPERATION == SET_UNION {
            return true;
        }
        let i = at.x;
        let j = at.y;
        let copies = upper_bound_near_start(SIDE_B, key, j + 1u, params.b_len) - j;
        let rank = i - lower_bound_near_end(SIDE_A, key, 0u, i);
        if SET_OPERATION == SET_INTERSECTION {
            return rank < copies;
        }
        return rank >= copies;
    }
    let j = at.x;
    let i = at.y;
    let copies = i - lower_bound_near_end(SIDE_A, key, 0u, i);
    let rank = j - lower_bound_near_end(SIDE_B, key, 0u, j);
    return rank >= copies;
}

// Marks a kept output's slot in `staged`: slots are below TILE, far below this bit.
const KEPT: u32 = 0x80000000u;

// Loads and merges tile g, and decides the invocation's outputs; returns how many it keeps, each
// marked KEPT in its word of `staged`: in workgroup memory rather than in registers held through
// the look-back (run 131: symmetric difference 13% faster at 2^28, the others 1.4-1.9%). Every
// invocation calls it (it holds barriers).
fn decide_tile(g: u32, lid: u32) -> u32 {
    let range = set_tile(g);
    let outputs = merge_whole_tile(range, lid);
    let d0 = outputs.x;
    let d1 = outputs.y;
    var count = 0u;
    var searches = 0u;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        if d0 + r < d1 {
            // Clamped so that unsorted input stays in the tile.
            let slot = min(staged[d0 + r], range.count - 1u);
            let decision = decide_by_neighbours(slot, range, range.k0 + d0 + r);
            var word = slot;
            if decision == KEEP {
                word |= KEPT;
                count++;
            }
            if decision == SEARCH {
                searches |= 1u << r;
            }
            staged[d0 + r] = word;
        }
    }
    // The few outputs whose neighbours both equal their key count their runs, in a loop the
    // driver does not unroll: one copy of the searches' code, not ITEMS_PER_THREAD (run 134: 20%
    // faster for union at 2^28, 30% for symmetric difference).
    while searches != 0u {
        let r = firstTrailingBit(searches);
        searches &= searches - 1u;
        let slot = staged[d0 + r];
        if kept(slot, range, range.k0 + d0 + r) {
            staged[d0 + r] = slot | KEPT;
            count++;
        }
    }
    return count;
}

// The scan of each invocation's count: one word per invocation, in local_invocation_index
// order, which is the outputs' order. Run 84: with the crate's vec4 Blelloch scan
// (lib/workgroup_scan/plain) this cost more than the merge.
var<workgroup> wg_sums: array<u32, WORKGROUP_SIZE>;

// The sum of `count` over the invocations before lid, and over all (Hillis and Steele's scan).
// Every invocation calls it (it holds barriers).
fn exclusive_count(count: u32, lid: u32) -> vec2<u32> {
    var sum = count;
    wg_sums[lid] = sum;
    workgroupBarrier();
    for (var step = 1u; step < WORKGROUP_SIZE; step <<= 1u) {
        var before = 0u;
        if lid >= step {
            before = wg_sums[lid - step];
        }
        workgroupBarrier();
        sum += before;
        wg_sums[lid] = sum;
        workgroupBarrier();
    }
    let all = wg_sums[WORKGROUP_SIZE - 1u];
    // Everyone has read the sums before they are written again.
    workgroupBarrier();
    return vec2(sum - count, all);
}

// lib/look_back.wgsl's hooks. The fallback decides another tile in this workgroup's memory,
// so a tile that fell back decides its own again.
fn look_back_base() -> u32 {
    return params.state_at;
}
var<private> local_index: u32;
fn look_back_fallback(g: u32) -> u32 {
    return min(exclusive_count(decide_tile(g, local_index), local_index).y, TILE);
}
fn look_back_origin() -> u32 {
    return 0u;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn set_tiles(@builtin(local_invocation_index) lid: u32) {
    local_index = lid;
    let g = take_tile(lid);
    if g >= params.tiles { return; }
    let scan = exclusive_count(decide_tile(g, lid), lid);
    let rank = scan.x;
    let tile_kept = min(scan.y, TILE);
    var start = 0u;
    if g == 0u {
        publish_first(tile_kept, lid);
    } else {
        start = look_back(g, tile_kept, lid);
        // A fallback decided another tile in this workgroup's memory: this one's marks again.
        // Waiting, no tile falls back (lib/look_back.wgsl).
        if MODE != MODE_LOOK_BACK {
            if workgroupUniformLoad(&wg_fell_back) != 0u {
                _ = decide_tile(g, lid);
            }
        }
    }
    if g + 1u == params.tiles && lid == 0u {
        atomicStore(&state[params.state_at + 1u + 4u * params.tiles], start + tile_kept);
    }
    // The invocation's outputs, read before any is moved: the kept ones go to the front, in
    // order.
    let range = set_tile(g);
    let outputs = invocation_outputs(range.count, lid);
    var words: array<u32, MAX_ITEMS>;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        words[r] = 0u;
        if outputs.x + r < outputs.y {
            words[r] = staged[outputs.x + r];
        }
    }
    workgroupBarrier();
    var place = rank;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        if (words[r] & KEPT) != 0u {
            staged[min(place, TILE - 1u)] = words[r] & ~KEPT;
            place++;
        }
    }
    workgroupBarrier();
    for (var x = lid; x < tile_kept; x += WORKGROUP_SIZE) {
        let slot = min(staged[x], range.count - 1u);
        let from_a = slot < range.a_len;
        out_keys[start + x] = tile[slot];
        write_value(start + x, from_a, select(range.b0 + slot - range.a_len, range.a0 + slot, from_a));
    }
}
