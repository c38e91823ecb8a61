// LSD radix sort, one pass per digit of up to 8 bits of the keys' order-preserving bits
// (lib/keys: key_order_bits), in the portable reduce-then-scan form of the radix-sort chapter:
//
// 1. radix_histogram: each workgroup counts the digits of its tile of TILE keys and writes the
//    counts digit-major (`counts[digit * tiles + tile]`);
// 2. the crate's scan turns them into each (digit, tile)'s first place in the output (an
//    exclusive sum: every tile's digit 0 first, then digit 1, ...);
// 3. radix_scatter: each workgroup ranks its keys among the tile's keys of the same digit, in
//    input order, and writes each key (and value) to its place.
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
    // The digit's first bit in the 64-bit order-preserving pattern, and its mask (1-8 bits).
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
// Rounds of WORKGROUP_SIZE keys per tile.
override ROUNDS: u32 = 8u;


const WORKGROUP_SIZE: u32 = 256u;
const RADIX: u32 = 256u;
// Mask words per digit: one bit per lane.
const MASK_WORDS: u32 = WORKGROUP_SIZE / 32u;

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

var<workgroup> wg_counts: array<atomic<u32>, RADIX>;

@compute @workgroup_size(256)
fn radix_histogram(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                   @builtin(num_workgroups) num_workgroups: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let tile = group_index(workgroup_id, num_workgroups);
    if tile >= params.tiles {
        return;
    }
    atomicStore(&wg_counts[lid], 0u);
    workgroupBarrier();
    let len = key_len();
    let base = tile * ROUNDS * WORKGROUP_SIZE;
    for (var round = 0u; round < ROUNDS; round++) {
        let i = base + round * WORKGROUP_SIZE + lid;
        if i < len {
            atomicAdd(&wg_counts[digit_of(keys_in[i])], 1u);
        }
    }
    workgroupBarrier();
    counts[lid * params.tiles + tile] = atomicLoad(&wg_counts[lid]);
}

var<workgroup> wg_masks: array<atomic<u32>, RADIX * MASK_WORDS>;
// Each digit's next place in the output.
var<workgroup> wg_next: array<u32, RADIX>;

@compute @workgroup_size(256)
fn radix_scatter(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                 @builtin(num_workgroups) num_workgroups: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let tile = group_index(workgroup_id, num_workgroups);
    if tile >= params.tiles {
        return;
    }
    wg_next[lid] = offsets[lid * params.tiles + tile];
    for (var w = 0u; w < MASK_WORDS; w++) {
        atomicStore(&wg_masks[lid * MASK_WORDS + w], 0u);
    }
    workgroupBarrier();
    let word = lid / 32u;
    let bit = 1u << (lid % 32u);
    let len = key_len();
    let base = tile * ROUNDS * WORKGROUP_SIZE;
    for (var round = 0u; round < ROUNDS; round++) {
        let i = base + round * WORKGROUP_SIZE + lid;
        let valid = i < len;
        var key: Key;
        var digit = 0u;
        if valid {
            key = keys_in[i];
            digit = digit_of(key);
            atomicOr(&wg_masks[digit * MASK_WORDS + word], bit);
        }
        workgroupBarrier();
        var rank = 0u;
        var last = false;
        if valid {
            let masks = digit * MASK_WORDS;
            for (var w = 0u; w < word; w++) {
                rank += countOneBits(atomicLoad(&wg_masks[masks + w]));
            }
            let own = atomicLoad(&wg_masks[masks + word]);
            rank += countOneBits(own & (bit - 1u));
            // The last lane of its digit in this round moves the digit's next place on.
            var later = own & ~(bit | (bit - 1u));
            for (var w = word + 1u; w < MASK_WORDS; w++) {
                later |= atomicLoad(&wg_masks[masks + w]);
            }
            last = later == 0u;
            let place = wg_next[digit] + rank;
            keys_out[place] = key;
            move_value(i, place);
        }
        workgroupBarrier();
        if last {
            wg_next[digit] += rank + 1u;
        }
        for (var w = 0u; w < MASK_WORDS; w++) {
            atomicStore(&wg_masks[lid * MASK_WORDS + w], 0u);
        }
        workgroupBarrier();
    }
}
