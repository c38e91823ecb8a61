// LSD radix sort, one pass per digit of up to 8 bits of the keys' order-preserving bits
// (lib/keys: key_order_bits), in the portable reduce-then-scan form of the radix-sort chapter:
//
// 1. radix_histogram: each workgroup counts the digits of its tile of TILE keys and writes the
//    counts digit-major (`counts[digit * tiles + tile]`);
// 2. the crate's scan turns them into each (digit, tile)'s first place in the output (an
//    exclusive sum: every tile's digit 0 first, then digit 1, ...);
// 3. radix_scatter: each workgroup ranks its tile's keys (rank_tile), sorts them by digit in
//    workgroup memory, and writes them out in that order, so the keys of one digit leave as one
//    run of consecutive places (about TILE / 256 keys): writes in runs, not one word each.
//
// No workgroup ever waits on another, so this is safe on every adapter. The rank needs no
// subgroup operations: the tile goes in rounds of WORKGROUP_SIZE keys (key r * WORKGROUP_SIZE +
// lid in round r, so rounds and lanes follow input order), and in each round every invocation
// sets its lane's bit in its digit's mask in workgroup memory; its rank is the count of lower
// lanes in its mask plus the keys of its digit in earlier rounds. Stable, so descending order is
// the ascending sort of each digit's complement.

// key_len() is params.len, or a count that earlier GPU work wrote (lib/key_count): the dispatch
// and the histograms' layout are params.len's, and tiles beyond the count find no keys.

#import lib/dispatch
#import key
#import move_values
#import key_count

struct RadixParams {
    len: u32,
    tiles: u32,
    // The digit's first bit in the 64-bit order-preserving pattern, and its mask (0-8 bits).
    shift: u32,
    mask: u32,
}

@group(0) @binding(0) var<uniform> params: RadixParams;
@group(0) @binding(1) var<storage, read> keys_in: array<Key>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<Key>;
@group(0) @binding(3) var<storage, read_write> counts: array<u32>;
@group(0) @binding(6) var<storage, read> offsets: array<u32>;

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

@compute @workgroup_size(256)
fn radix_histogram(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                   @builtin(num_workgroups) num_workgroups: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let tile = group_index(workgroup_id, num_workgroups);
    if tile >= params.tiles {
        return;
    }
    atomicStore(&wg_histogram[lid], 0u);
    workgroupBarrier();
    let span = tile_span(tile);
    for (var round = 0u; round < ROUNDS; round++) {
        let k = round * WORKGROUP_SIZE + lid;
        if k < span.y {
            atomicAdd(&wg_histogram[digit_of(keys_in[span.x + k])], 1u);
        }
    }
    workgroupBarrier();
    counts[lid * params.tiles + tile] = atomicLoad(&wg_histogram[lid]);
}

// Lane masks of one round, word-major (`[word * RADIX + digit]`: the lanes of one 32-lane
// word reach 32 banks through their random digits, and each digit's owner walks its words
// without conflicts). Bit i of word w: lane 32w + i has the digit.
var<workgroup> wg_masks: array<atomic<u32>, RADIX * MASK_WORDS>;
// Per word pair and digit (`[word / 2 * RADIX + digit]`), two 16-bit halves: the tile's keys of
// the digit before word `word`'s lanes of this round; after the ranks, per digit: where its run
// in the tile sorted by digit goes in the output, less its first slot there.
var<workgroup> wg_before: array<u32, RADIX * MASK_WORDS / 2>;
// Per digit: its first slot in the tile sorted by digit.
var<workgroup> wg_start: array<u32, RADIX>;
// The tile sorted by digit.
var<workgroup> wg_keys: array<Key, TILE>;

// The invocation's keys of the tile (round r's in [r]), their digits, and their ranks among the
// tile's keys of the same digit (NO_KEY beyond the input).
var<private> own_keys: array<Key, MAX_ROUNDS>;
var<private> own_digits: array<u32, MAX_ROUNDS>;
var<private> own_ranks: array<u32, MAX_ROUNDS>;

// Loads and ranks the tile's keys (into own_*); returns the tile's number of keys of digit `lid`
// (invocation d owns digit d's count and mask rows). Three barriers a round: the lanes set their
// bits; each owner counts its digit's lanes before each word (and each lane the lower lanes of
// its own word); each lane adds the two while the owners clear their rows.
fn rank_tile(span: vec2<u32>, lid: u32) -> u32 {
    for (var w = 0u; w < MASK_WORDS; w++) {
        atomicStore(&wg_masks[w * RADIX + lid], 0u);
    }
    // Every load first, so that they are all in flight at once.
    for (var round = 0u; round < ROUNDS; round++) {
        let k = round * WORKGROUP_SIZE + lid;
        if k < span.y {
            own_keys[round] = keys_in[span.x + k];
        }
    }
    workgroupBarrier();
    let word = lid / 32u;
    let bit = 1u << (lid % 32u);
    var count = 0u;
    for (var round = 0u; round < ROUNDS; round++) {
        let valid = round * WORKGROUP_SIZE + lid < span.y;
        var digit = 0u;
        if valid {
            digit = digit_of(own_keys[round]);
            atomicOr(&wg_masks[word * RADIX + digit], bit);
        }
        own_digits[round] = digit;
        workgroupBarrier();
        var below = 0u;
        if valid {
            below = countOneBits(atomicLoad(&wg_masks[word * RADIX + digit]) & (bit - 1u));
        }
        var running = count;
        for (var w = 0u; w < MASK_WORDS; w += 2u) {
            let first = countOneBits(atomicLoad(&wg_masks[w * RADIX + lid]));
            let second = countOneBits(atomicLoad(&wg_masks[(w + 1u) * RADIX + lid]));
            wg_before[w / 2u * RADIX + lid] = running | ((running + first) << 16u);
            running += first + second;
        }
        workgroupBarrier();
        var rank = NO_KEY;
        if valid {
            let before = wg_before[word / 2u * RADIX + digit] >> (16u * (word & 1u));
            rank = (before & 0xffffu) + below;
        }
        own_ranks[round] = rank;
        for (var w = 0u; w < MASK_WORDS; w++) {
            atomicStore(&wg_masks[w * RADIX + lid], 0u);
        }
        count = running;
        workgroupBarrier();
    }
    return count;
}

// wg_start: the exclusive sum of `count` over the digits (invocation d passes digit d's).
fn start_digits(count: u32, lid: u32) {
    var sum = count;
    wg_start[lid] = sum;
    workgroupBarrier();
    for (var step = 1u; step < RADIX; step <<= 1u) {
        var before = 0u;
        if lid >= step {
            before = wg_start[lid - step];
        }
        workgroupBarrier();
        sum += before;
        wg_start[lid] = sum;
        workgroupBarrier();
    }
    wg_start[lid] = sum - count;
    workgroupBarrier();
}

// Sorts the ranked tile by digit in workgroup memory, then writes it out: invocation d sets
// digit d's place in the output (`first`) beforehand.
fn scatter_tile(span: vec2<u32>, lid: u32, first: u32) {
    for (var round = 0u; round < ROUNDS; round++) {
        let rank = own_ranks[round];
        if rank != NO_KEY {
            let slot = wg_start[own_digits[round]] + rank;
            wg_keys[slot] = own_keys[round];
            stage_value(slot, span.x + round * WORKGROUP_SIZE + lid);
        }
    }
    // Wrapping arithmetic: first - start + slot is the place.
    wg_before[lid] = first - wg_start[lid];
    workgroupBarrier();
    for (var round = 0u; round < ROUNDS; round++) {
        let slot = round * WORKGROUP_SIZE + lid;
        if slot < span.y {
            let key = wg_keys[slot];
            let place = wg_before[digit_of(key)] + slot;
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
    let span = tile_span(tile);
    let count = rank_tile(span, lid);
    start_digits(count, lid);
    scatter_tile(span, lid, offsets[lid * params.tiles + tile]);
}
