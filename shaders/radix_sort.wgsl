// LSD radix sort, one pass per digit of up to 8 bits of the keys' order-preserving bits
// (lib/keys: key_order_bits), in the portable reduce-then-scan form of the radix-sort chapter:
//
// 1. radix_histogram: each workgroup counts the digits of its group of params.tiles_per_group
//    tiles of TILE keys, one tile after another: it writes each tile's counts of the group's
//    keys of each digit before it (`within[tile * RADIX + digit]`, coalesced), then the group's
//    counts digit-major (`counts[digit * groups + group]`);
// 2. the crate's scan turns those into each (digit, group)'s first place in the output (an
//    exclusive sum: every group's digit 0 first, then digit 1, ...);
// 3. radix_scatter: each workgroup ranks its tile's keys (rank_tile, from the `rank` module:
//    lib/radix_rank/masks.wgsl without subgroups, lib/radix_rank/subgroups.wgsl with them),
//    sorts them by digit in workgroup memory, and writes them out in that order, so the keys of
//    one digit leave as one run of consecutive places (about TILE / 256 keys). A digit's first
//    place is its group's plus its `within`.
//
// Groups of tiles keep the scanned histograms to 256 words a group: one word per (digit, tile),
// written and read scattered and scanned, moved as many bytes as the keys (run 63). The scatter
// still takes one tile a workgroup: workgroups that run at once write neighbouring places, and
// one workgroup taking a group's tiles in turn was 1.7 times slower (run 64).
//
// No workgroup ever waits on another, so this is safe on every adapter. Ranks are stable, so
// descending order is the ascending sort of each digit's complement.

// key_len() is params.len, or a count that earlier GPU work wrote (lib/key_count): the dispatch
// and the histograms' layout are params.len's, and tiles beyond the count find no keys.

#import lib/dispatch
#import key
#import move_values
#import key_count
#import rank

struct RadixParams {
    len: u32,
    tiles: u32,
    // Workgroups, and the tiles each takes (the last may find fewer).
    groups: u32,
    tiles_per_group: u32,
    // The digit's first bit in the 64-bit order-preserving pattern, and its mask (0-8 bits).
    shift: u32,
    mask: u32,
    pad: vec2<u32>,
}

@group(0) @binding(0) var<uniform> params: RadixParams;
@group(0) @binding(1) var<storage, read> keys_in: array<Key>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<Key>;
@group(0) @binding(3) var<storage, read_write> counts: array<u32>;
@group(0) @binding(6) var<storage, read> offsets: array<u32>;
@group(0) @binding(7) var<storage, read_write> within: array<u32>;

// Sorting in descending order: each digit is complemented.
override DESCENDING: bool = false;
// Rounds of WORKGROUP_SIZE keys per tile (tuning.rs: radix_rounds), at most MAX_ROUNDS.
override ROUNDS: u32 = 8u;

const WORKGROUP_SIZE: u32 = 256u;
const RADIX: u32 = 256u;
// Mask words per digit: one bit per lane.
const MASK_WORDS: u32 = WORKGROUP_SIZE / 32u;
// Length of the private arrays holding an invocation's keys of a tile. Loops over them run
// ROUNDS steps, a constant when the pipeline is built, so the driver keeps them in registers.
const MAX_ROUNDS: u32 = 16u;
override TILE: u32 = WORKGROUP_SIZE * ROUNDS;
// Tile slots of keys beyond the input.
const NO_KEY: u32 = 0xffffffffu;

fn digit_of(key: Key) -> u32 {
    let bits = key_order_bits(key);
    let shift = params.shift;
    var shifted: u32;
    if shift >= 32u {
        shifted = bits.y >> (shift - 32u);
    } else if shift == 0u {
        shifted = bits.x;
    } else {
        shifted = (bits.x >> shift) | (bits.y << (32u - shift));
    }
    let digit = shifted & params.mask;
    return select(digit, digit ^ params.mask, DESCENDING);
}

// The tile's first key and its number of keys.
fn tile_span(tile: u32) -> vec2<u32> {
    let base = tile * TILE;
    let len = key_len();
    return vec2(base, select(0u, min(len - base, TILE), base < len));
}

var<workgroup> wg_histogram: array<atomic<u32>, RADIX>;

// The tiles of workgroup `group`.
fn group_tiles(group: u32) -> vec2<u32> {
    let first = group * params.tiles_per_group;
    return vec2(first, min(first + params.tiles_per_group, params.tiles));
}

@compute @workgroup_size(256)
fn radix_histogram(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                   @builtin(num_workgroups) num_workgroups: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let group = group_index(workgroup_id, num_workgroups);
    if group >= params.groups {
        return;
    }
    atomicStore(&wg_histogram[lid], 0u);
    own_base = lid;
    own_step = WORKGROUP_SIZE;
    let tiles = group_tiles(group);
    // The group's keys of digit lid before the tile.
    var before = 0u;
    for (var tile = tiles.x; tile < tiles.y; tile++) {
        let span = tile_span(tile);
        load_own_keys(span);
        // The previous tile's counts are all taken before this one's are added.
        workgroupBarrier();
        for (var round = 0u; round < ROUNDS; round++) {
            if own_slot(round) < span.y {
                atomicAdd(&wg_histogram[digit_of(own_keys[round])], 1u);
            }
        }
        workgroupBarrier();
        within[tile * RADIX + lid] = before;
        before += atomicExchange(&wg_histogram[lid], 0u);
    }
    counts[lid * params.groups + group] = before;
}

// Per digit: its first slot in the tile sorted by digit.
var<workgroup> wg_start: array<u32, RADIX>;
// The tile sorted by digit.
var<workgroup> wg_keys: array<Key, TILE>;

// The invocation's keys of the tile (round r's in [r]: tile key own_base + r * own_step), their
// digits, and their ranks among the tile's keys of the same digit (NO_KEY beyond the input),
// set by the rank module's rank_tile.
var<private> own_keys: array<Key, MAX_ROUNDS>;
var<private> own_digits: array<u32, MAX_ROUNDS>;
var<private> own_ranks: array<u32, MAX_ROUNDS>;
var<private> own_base: u32;
var<private> own_step: u32;

// The tile slot of the invocation's key of round `round`.
fn own_slot(round: u32) -> u32 {
    return own_base + round * own_step;
}

// Loads the invocation's keys of the tile (own_base and own_step set), every load before any
// use, so that all are in flight at once (run 61: loads between the histogram's atomics waited
// one after another, 1.4 ms a pass at 2^28 keys).
fn load_own_keys(span: vec2<u32>) {
    for (var round = 0u; round < ROUNDS; round++) {
        let slot = own_slot(round);
        if slot < span.y {
            own_keys[round] = keys_in[span.x + slot];
        }
    }
}

// Sorts the ranked tile by digit in workgroup memory, then writes it out: invocation d sets
// digit d's place in the output (`first`) beforehand.
fn scatter_tile(span: vec2<u32>, lid: u32, first: u32) {
    for (var round = 0u; round < ROUNDS; round++) {
        let rank = own_ranks[round];
        if rank != NO_KEY {
            let slot = wg_start[own_digits[round]] + rank;
            wg_keys[slot] = own_keys[round];
            stage_value(slot, span.x + own_slot(round));
        }
    }
    // Wrapping arithmetic: first - start + slot is the place.
    set_place(lid, first - wg_start[lid]);
    workgroupBarrier();
    for (var round = 0u; round < ROUNDS; round++) {
        let slot = round * WORKGROUP_SIZE + lid;
        if slot < span.y {
            let key = wg_keys[slot];
            let place = place_of(digit_of(key)) + slot;
            keys_out[place] = key;
            move_staged_value(slot, place);
        }
    }
}

@compute @workgroup_size(256)
fn radix_scatter(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                 @builtin(num_workgroups) num_workgroups: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let tile = group_index(workgroup_id, num_workgroups);
    if tile >= params.tiles {
        return;
    }
    let group = tile / params.tiles_per_group;
    let first = offsets[lid * params.groups + group] + within[tile * RADIX + lid];
    let span = tile_span(tile);
    rank_tile(span, lid);
    scatter_tile(span, lid, first);
}
