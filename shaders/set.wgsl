// Set operations on two sorted inputs, as multisets, in the merge order. For a key found m times
// in A and n times in B (the C++ library's std::set_* rule):
//   union                 A's m copies, then B's last n - m (when n > m);
//   intersection          A's first min(m, n);
//   difference (A - B)    A's last m - n;
//   symmetric difference  A's last m - n, or B's last n - m.
// The kept elements come out in the stable merge's order (ties take A first), values with them.
//
// The work is cut on the balanced path (lib/balanced_path.wgsl), as Thrust and ModernGPU cut
// theirs: A's r-th copy of a key and B's r-th copy are never parted. The partition pass
// (partition.wgsl, BALANCED) cuts the inputs into tiles of at most TILE elements at such splits,
// one every TILE - 1 merge outputs (a split may take one more input than merge path's). Each
// workgroup loads its tile into workgroup memory and cuts it again, one balanced split per
// invocation; each invocation then runs the serial set operation over its part (at most
// ITEMS_PER_THREAD + 1 elements), which meets every copy of a key in A together with its pair in
// B and so decides each element as the whole inputs' would, with no read outside the tile (run
// 136's pass, which decided each element of the merged tile from its neighbours and searched the
// runs of equal keys in global memory, took 2.2x Thrust's time at 2^28; this one 0.63x that
// pass's time in run 152). One pass does the rest: each tile counts its kept elements, learns
// how many were kept before it by decoupled look-back (lib/look_back.wgsl; run 84 found a count
// pass, a scan and a write pass cost 7.5 ms at 2^28), and writes them from there, compacted back
// into the tile and written coalesced. The last tile writes the total after the look-back state.
// It holds as little workgroup memory as it can: one tile of keys, slots only with values, and
// one word an invocation for its part and then its count. The H100's driver gives an SM's
// workgroups 48 KiB in all (run 292: 2 KiB more a workgroup cost a third of the workgroups an SM,
// and this pass 29%; runs 296-297: 1 KiB less let a fourth in, 5-12% faster).
// Every index is bounded by the lengths whatever the input: unsorted input gives an unspecified
// result, never an access out of bounds.

#import lib/dispatch
#import lib/merge_tile
#import lib/balanced_path
#import lib/look_back
#import values

// Which operation the pipeline does.
override SET_OPERATION: u32 = 0u;
const SET_UNION: u32 = 0u;
const SET_INTERSECTION: u32 = 1u;
const SET_DIFFERENCE: u32 = 2u;

override WORKGROUP_SIZE: u32 = 256u;
override ITEMS_PER_THREAD: u32 = 7u;

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
// The partition's balanced splits (words 2g and 2g + 1: elements of A and of B before tile g),
// then from params.state_at lib/look_back.wgsl's words and the number kept after them: one
// buffer, so that keys-only set operations bind four storage buffers.
@group(0) @binding(8) var<storage, read_write> state: array<atomic<u32>>;

fn cut(word: u32) -> u32 {
    return atomicLoad(&state[word]);
}

// lib/search.wgsl's accessor, for the balanced splits inside the tile: A's elements in slots
// [0, a_count), B's after them.
fn read_side(side: u32, i: u32) -> Key {
    if side == SIDE_A { return tile[min(i, TILE - 1u)]; }
    return tile[min(a_count + i, TILE - 1u)];
}
// merge_tile's hooks, for its merge, which set operations do not run.
const PUT_PAST_END: bool = true;
fn put_output(r: u32, k: u32, key: Key, slot: u32) {}

// Tile g: the elements between the balanced splits g and g + 1, at most TILE of them.
fn set_tile(g: u32) -> TileRange {
    let a0 = cut(2u * g);
    let b0 = cut(2u * g + 1u);
    let a_len = min(remaining(cut(2u * g + 2u), a0), TILE);
    let b_len = min(remaining(cut(2u * g + 3u), b0), TILE - a_len);
    return TileRange(a0 + b0, a_len + b_len, a0, a_len, b0);
}

// Each invocation's part of the tile starts at the balanced split of its first merge output
// (the part at place p: p * ITEMS_PER_THREAD), as A's and B's elements before it, each as one
// word: A's elements in the low half, B's in the high (a tile holds fewer than 2^16). The part
// after the last closes at the tile's end. Once every part is read, the same words scan the
// parts' counts (exclusive_count): one word an invocation for both, so that four workgroups of
// 256 fit an SM on the H100 (runs 295-297). TILE may be less than WORKGROUP_SIZE *
// ITEMS_PER_THREAD (tuning::set_tiling: 2800 of 256 x 11 for union, 1400 of 256 x 6 with values,
// each for a fourth workgroup an SM; 3833 of 256 x 15 for intersection, 1916 of 256 x 8 for
// 64-bit keys, each for a third): parts past the tile's end are empty.
var<workgroup> wg_words: array<u32, WORKGROUP_SIZE>;
fn pack_part(split: vec2<u32>) -> u32 {
    return split.x | (split.y << 16u);
}
fn unpack_part(word: u32) -> vec2<u32> {
    return vec2(word & 0xffffu, word >> 16u);
}
// The kept elements' keys go back into `tile`, compacted in output order, once every part is
// decided; with values, their tile slots go to `staged` (STAGED is TILE then, else 1: see the
// head of this file on workgroup memory).
override STAGED: u32 = TILE;
var<workgroup> staged: array<u32, STAGED>;
// The kept keys of the invocation's part, by step, held from its serial set operation until the
// tile is compacted.
var<private> kept_keys: array<Key, MAX_ITEMS + 1u>;

// Whether the serial set operation keeps an element it meets: the next of A alone (a_first),
// the next of B alone (b_first), or the two together when they are equal (paired; A's is kept).
fn keeps(a_first: bool, b_first: bool, paired: bool) -> bool {
    if SET_OPERATION == SET_UNION { return true; }
    if SET_OPERATION == SET_INTERSECTION { return paired; }
    if SET_OPERATION == SET_DIFFERENCE { return a_first; }
    // Symmetric difference.
    return a_first | b_first;
}

// Loads tile g (unless its loads were issued ahead: `loaded_ahead`), cuts it into the
// invocations' parts and runs the serial set operation over each; puts the kept keys back into
// `tile`, compacted in order (with values their slots in `staged`), and returns how many the tile
// keeps. Every invocation calls it (it holds barriers).
fn decide_tile(g: u32, lid: u32, loaded_ahead: bool) -> u32 {
    let range = set_tile(g);
    if !loaded_ahead {
        load_range(range, lid);
    }
    stage_loaded(range, lid);
    let a_len = range.a_len;
    let b_len = range.count - a_len;
    // Invocation lid takes part lid.
    let d = min(lid * ITEMS_PER_THREAD, range.count);
    let split = co_rank(SPACE_TILE, d, a_len, b_len);
    wg_words[lid] = pack_part(balanced_split(split, d - split, a_len, b_len));
    workgroupBarrier();
    let start = unpack_part(wg_words[lid]);
    var end = vec2(a_len, b_len);
    if lid + 1u < WORKGROUP_SIZE {
        end = unpack_part(wg_words[lid + 1u]);
    }
    var i = start.x;
    var j = start.y;
    // Clamped so that unsorted input gives parts that never run backwards.
    let i_end = max(end.x, i);
    let j_end = max(end.y, j);
    // Each step meets one element, or a pair, so a part of at most ITEMS_PER_THREAD + 1
    // elements takes at most that many steps; the loop runs them all, so the driver unrolls it.
    // Bit r of `mask` says whether step r kept an element, of `a_moves` and `b_moves` which
    // inputs it moved on: the kept elements' slots follow from them, so no array of slots is
    // held (run 149: with one, this pass took twice as long). As in merge_tile, a step reads one
    // key, from the input it moved on (clamped into the tile, so the invocations of a wave never
    // split on which input they read), and a second only where a pair moved both on.
    var mask = 0u;
    var a_moves = 0u;
    var b_moves = 0u;
    var key_a = tile[min(i, TILE - 1u)];
    var key_b = tile[min(a_len + j, TILE - 1u)];
    for (var r = 0u; r <= ITEMS_PER_THREAD; r++) {
        let has_a = i < i_end;
        let has_b = j < j_end;
        let a_first = has_a & (!has_b | key_before(key_a, key_b));
        let b_first = has_b & (!has_a | key_before(key_b, key_a));
        let paired = has_a & has_b & !a_first & !b_first;
        let moves_a = a_first | paired;
        let moves_b = b_first | paired;
        if (moves_a | moves_b) & keeps(a_first, b_first, paired) {
            mask |= 1u << r;
        }
        kept_keys[r] = select(key_b, key_a, moves_a);
        a_moves |= select(0u, 1u << r, moves_a);
        b_moves |= select(0u, 1u << r, moves_b);
        i += select(0u, 1u, moves_a);
        j += select(0u, 1u, moves_b);
        let next = tile[min(select(a_len + j, i, moves_a), TILE - 1u)];
        key_a = select(key_a, next, moves_a);
        key_b = select(next, key_b, moves_a);
        if paired {
            key_b = tile[min(a_len + j, TILE - 1u)];
        }
    }
    // Every part is decided once the scan returns (it ends at a barrier): the tile's slots may
    // be overwritten.
    let scan = exclusive_count(countOneBits(mask), lid);
    // The kept keys, and with values their slots (walked again from the part's start).
    var place = scan.x;
    i = start.x;
    j = start.y;
    for (var r = 0u; r <= ITEMS_PER_THREAD; r++) {
        let moves_a = (a_moves & (1u << r)) != 0u;
        if (mask & (1u << r)) != 0u {
            tile[min(place, TILE - 1u)] = kept_keys[r];
            if STAGED == TILE {
                staged[min(place, TILE - 1u)] = select(a_len + j, i, moves_a);
            }
            place++;
        }
        i += select(0u, 1u, moves_a);
        j += select(0u, 1u, (b_moves & (1u << r)) != 0u);
    }
    return min(scan.y, TILE);
}

// The sum of `count` over the parts before part `place`, and over all: Hillis and Steele's scan
// in the parts' words, each step a read and a write behind their own barriers (two words an
// invocation, one barrier a step, were 1-2% faster in run 201, but took 1 KiB more and so a
// workgroup an SM: run 296). Every invocation calls it (it holds barriers).
fn exclusive_count(count: u32, place: u32) -> vec2<u32> {
    // Every part's words are read.
    workgroupBarrier();
    var sum = count;
    wg_words[place] = sum;
    workgroupBarrier();
    for (var step = 1u; step < WORKGROUP_SIZE; step <<= 1u) {
        if place >= step {
            sum += wg_words[place - step];
        }
        workgroupBarrier();
        wg_words[place] = sum;
        workgroupBarrier();
    }
    let all = wg_words[WORKGROUP_SIZE - 1u];
    // Everyone has read the sums before the words are written again.
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
    return decide_tile(g, local_index, false);
}
fn look_back_origin() -> u32 {
    return 0u;
}

// Each workgroup takes tiles from the look-back's counter in turn (at most MOST_TILES) until none
// is left: the host dispatches about as many workgroups as the device holds at once. A tile's
// successor is taken, and its loads issued, before the tile waits on its predecessors (run 151:
// union of 2^27 keys 1.13 ms against 2.20 with the loads issued after the tile is written).
@compute @workgroup_size(WORKGROUP_SIZE)
fn set_tiles(@builtin(local_invocation_index) lid: u32) {
    local_index = lid;
    var g = take_tile(lid);
    var loaded_ahead = false;
    loop {
        if g >= params.tiles { break; }
        let tile_kept = decide_tile(g, lid, loaded_ahead);
        var start = 0u;
        if g == 0u {
            publish_first(tile_kept, lid);
        } else {
            look_back_start(g, tile_kept, lid);
        }
        let next = take_tile(lid);
        loaded_ahead = next < params.tiles;
        if loaded_ahead {
            load_range(set_tile(next), lid);
        }
        if g > 0u {
            start = look_back_finish(g, tile_kept, lid);
            // A fallback decided another tile in this workgroup's memory (and its registers):
            // this one's again, and the next is loaded when it comes. Waiting, no tile falls
            // back (lib/look_back.wgsl).
            if MODE != MODE_LOOK_BACK {
                if workgroupUniformLoad(&wg_fell_back) != 0u {
                    loaded_ahead = false;
                    _ = decide_tile(g, lid, false);
                }
            }
        }
        write_tile(g, start, tile_kept, lid);
        // Everyone has read this tile's memory before the next tile overwrites it.
        workgroupBarrier();
        g = next;
    }
}

// Writes tile g's kept elements from output `start` on. Every invocation calls it (it holds a
// barrier).
fn write_tile(g: u32, start: u32, tile_kept: u32, lid: u32) {
    // Unsorted input may keep more than the inputs hold: the output stops at their length.
    let total = params.a_len + params.b_len;
    if g + 1u == params.tiles && lid == 0u {
        atomicStore(&state[params.state_at + 1u + 4u * params.tiles], min(start + tile_kept, total));
    }
    // Every kept key is in `tile` (and with values its slot in `staged`).
    workgroupBarrier();
    let range = set_tile(g);
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < tile_kept && start + x < total {
            out_keys[start + x] = tile[x];
            if STAGED == TILE {
                let slot = min(staged[x], range.count - 1u);
                let from_a = slot < range.a_len;
                write_value(start + x, from_a,
                            select(range.b0 + slot - range.a_len, range.a0 + slot, from_a));
            }
        }
    }
}
