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
// A pass whose digit is the same for every key only copies its tiles (CUB's short circuit): its
// stable scatter would be the identity. The histogram records the pass's lowest and highest
// digit (`digit_range`, one atomic per workgroup each), and the scatter reads them as a uniform
// before ranking. (Each scatter workgroup reading every digit's scanned total instead cost every
// sort 5-9%, run 78; skipping such passes outright, with the buffer each later pass reads chosen
// on the GPU, bound both buffers read-write and cost 34%, run 97.) The single sweep, which reads
// its counts anyway, decides from them as each tile starts (radix_scatter_sweep).
//
// Groups of tiles keep the scanned histograms to 256 words a group: one word per (digit, tile),
// written and read scattered and scanned, moved as many bytes as the keys (run 63). The scatter
// still takes one tile a workgroup: workgroups that run at once write neighbouring places, and
// one workgroup taking a group's tiles in turn was 1.7 times slower (run 64).
//
// No workgroup ever waits on another, so this is safe on every adapter. Ranks are stable, so
// descending order is the ascending sort of each digit's complement.
//
// The single sweep (Onesweep, Adinets and Merrill 2022) instead counts every pass's digits in one
// pass over the keys (radix_sweep_histogram), then each pass is one radix_scatter_sweep: a tile
// publishes its digit counts before its ranks are done, looks back over the tiles before it for
// each digit's prefix (decoupled look-back), and scatters. Tile 0 publishes each digit's first
// place in the output with its counts, so only it scans the pass's counts and every later tile's
// prefix carries them (run 213: 2-6% faster up to 2^20, 2% slower beyond, which run 215 more than
// made up). A tile whose predecessor has published nothing after SPINS rounds counts that tile's
// digits itself (decoupled fallback, Smith, Levien and Owens 2025), so no workgroup waits on
// another for long and this too is safe on every adapter.

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
    // Single sweep: this pass, and the number of passes.
    pass_index: u32,
    passes: u32,
}

@group(0) @binding(0) var<uniform> params: RadixParams;
@group(0) @binding(1) var<storage, read> keys_in: array<Key>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<Key>;
@group(0) @binding(3) var<storage, read_write> counts: array<u32>;
@group(0) @binding(6) var<storage, read> offsets: array<u32>;
@group(0) @binding(7) var<storage, read_write> within: array<u32>;
// Each pass's digit range, as (highest digit + 1, RADIX - lowest digit) at words 4p and 4p + 1
// (0 where the pass has no keys): written by the histogram, read as `pass_range` by the scatter.
@group(0) @binding(13) var<storage, read_write> digit_range: array<atomic<u32>>;
@group(0) @binding(14) var<uniform> pass_range: array<vec4<u32>, SWEEP_PASSES>;

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
const MAX_ROUNDS: u32 = 18u;
override TILE: u32 = WORKGROUP_SIZE * ROUNDS;
// Tile slots of keys beyond the input.
const NO_KEY: u32 = 0xffffffffu;

fn digit_of(key: Key) -> u32 {
    return digit_at(key, params.shift, params.mask);
}

// The digit of `mask` at bit `shift` of the key's order-preserving bits. No branch: WGSL takes
// shift amounts modulo 32, so the high word's part of a digit below bit 32 is shifted in two
// steps, which gives 0 at shift 0 (the branches on the shift that this replaced cost about 10
// instructions a key at each use, run 276's machine code).
fn digit_at(key: Key, shift: u32, mask: u32) -> u32 {
    let bits = key_order_bits(key);
    let within = shift & 31u;
    let low = (bits.x >> within) | ((bits.y << 1u) << (31u - within));
    let shifted = select(low, bits.y >> within, shift >= 32u);
    let digit = shifted & mask;
    return select(digit, digit ^ mask, DESCENDING);
}

// The sum of `count` over the digits before lid (invocation d passes digit d's), by Hillis and
// Steele's scan in wg_start, which it leaves holding the inclusive sums once every invocation has
// read them. Every invocation calls it (it holds barriers).
fn exclusive_digit_sum(count: u32, lid: u32) -> u32 {
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
    return sum - count;
}

// The tile's first key and its number of keys.
fn tile_span(tile: u32) -> vec2<u32> {
    let base = tile * TILE;
    let len = key_len();
    return vec2(base, select(0u, min(len - base, TILE), base < len));
}

var<workgroup> wg_histogram: array<atomic<u32>, RADIX>;
// The workgroup's part of digit_range.
var<workgroup> wg_range: array<atomic<u32>, 2>;

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
    if lid < 2u {
        atomicStore(&wg_range[lid], 0u);
    }
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
    if before > 0u {
        atomicMax(&wg_range[0], lid + 1u);
        atomicMax(&wg_range[1], RADIX - lid);
    }
    workgroupBarrier();
    if lid < 2u {
        atomicMax(&digit_range[params.pass_index * 4u + lid], atomicLoad(&wg_range[lid]));
    }
}

// Per digit: its first slot in the tile sorted by digit.
var<workgroup> wg_start: array<u32, RADIX>;
// The tile sorted by digit, a word a slot: 4-byte keys, then their values; 8-byte keys' places
// in the output, then their low words, their high words and their values.
var<workgroup> wg_words: array<u32, TILE>;

// The invocation's keys of the tile (round r's in [r]: tile key own_base + r * own_step), their
// digits, and their ranks among the tile's keys of the same digit (NO_KEY beyond the input),
// set by the rank module (rank_tile, or the single sweep's rank_load and rank_count); then
// sort_tile_by_digit turns each rank into the key's slot in the tile sorted by digit.
var<private> own_keys: array<Key, MAX_ROUNDS>;
var<private> own_digits: array<u32, MAX_ROUNDS>;
var<private> own_ranks: array<u32, MAX_ROUNDS>;
// The keys' values (what load_value keeps of them); the places in the output of the keys that
// the invocation writes (slots lid + r * WORKGROUP_SIZE), and their low words (8-byte keys).
var<private> own_values: array<u32, MAX_ROUNDS>;
var<private> own_places: array<u32, MAX_ROUNDS>;
var<private> own_low_words: array<u32, MAX_ROUNDS>;
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
    sort_tile_by_digit(span);
    write_sorted_tile(span, lid, first);
}

// The ranked tile sorted by digit in workgroup memory (wg_words), which needs no place in the
// output: each rank becomes its key's slot, and 4-byte keys are staged there. The keys' values
// are read in the input's order (coalesced, all loads in flight before any is used; runs
// 194-195: pairs 5% faster than reading each value from its sorted slot's source as it is
// written) and wait in registers for write_sorted_tile.
fn sort_tile_by_digit(span: vec2<u32>) {
    for (var round = 0u; round < ROUNDS; round++) {
        if own_ranks[round] != NO_KEY {
            own_values[round] = load_value(span.x + own_slot(round));
        }
    }
    for (var round = 0u; round < ROUNDS; round++) {
        let rank = own_ranks[round];
        if rank != NO_KEY {
            let slot = wg_start[own_digits[round]] + rank;
            if KEY_WORDS == 1u {
                wg_words[slot] = key_word(own_keys[round]);
            }
            own_ranks[round] = slot;
        }
    }
}

// What stage_words stages besides a key's words (0 and 1).
const STAGE_PLACES: u32 = 2u;
const STAGE_VALUES: u32 = 3u;

// Each of the invocation's keys' `word` (0 or 1: a word of the key; STAGE_PLACES: the key's place
// in the output; STAGE_VALUES: its value) to its slot, once every earlier word there has been
// read.
fn stage_words(word: u32) {
    workgroupBarrier();
    for (var round = 0u; round < ROUNDS; round++) {
        let slot = own_ranks[round];
        if slot != NO_KEY {
            var staged = own_values[round];
            if word < STAGE_PLACES {
                staged = key_word_at(own_keys[round], word);
            } else if word == STAGE_PLACES {
                staged = place_of(own_digits[round]) + slot;
            }
            wg_words[slot] = staged;
        }
    }
    workgroupBarrier();
}

// Writes the tile that sort_tile_by_digit sorted, digit lid's keys from place `first` on, a word
// a slot: 4-byte keys (staged already), whose digits give their places, or 8-byte keys' places
// and then each of their words; then their values, each to its key's place. So a tile holds one
// word a key: radix pairs took tiles of 16 rounds in 21 KiB against 9 rounds in 23 KiB (two
// workgroups an SM in the driver's 48 KiB), 22% faster at 2^28 (run 342), and u64 keys' tiles of
// 9 rounds 14 KiB against 23, 7-10% faster from 2^24 (run 344).
fn write_sorted_tile(span: vec2<u32>, lid: u32, first: u32) {
    // Wrapping arithmetic: first - start + slot is the place.
    set_place(lid, first - wg_start[lid]);
    if KEY_WORDS == 1u {
        workgroupBarrier();
        for (var round = 0u; round < ROUNDS; round++) {
            let slot = round * WORKGROUP_SIZE + lid;
            if slot < span.y {
                let key = Key(wg_words[slot]);
                let place = place_of(digit_of(key)) + slot;
                keys_out[place] = key;
                own_places[round] = place;
            }
        }
    } else {
        stage_words(STAGE_PLACES);
        for (var round = 0u; round < ROUNDS; round++) {
            let slot = round * WORKGROUP_SIZE + lid;
            if slot < span.y {
                own_places[round] = wg_words[slot];
            }
        }
        stage_words(0u);
        for (var round = 0u; round < ROUNDS; round++) {
            let slot = round * WORKGROUP_SIZE + lid;
            if slot < span.y {
                own_low_words[round] = wg_words[slot];
            }
        }
        stage_words(1u);
        for (var round = 0u; round < ROUNDS; round++) {
            let slot = round * WORKGROUP_SIZE + lid;
            if slot < span.y {
                keys_out[own_places[round]] = key_from_words(own_low_words[round], wg_words[slot]);
            }
        }
    }
    if !MOVES_VALUES {
        return;
    }
    stage_words(STAGE_VALUES);
    for (var round = 0u; round < ROUNDS; round++) {
        let slot = round * WORKGROUP_SIZE + lid;
        if slot < span.y {
            put_value(wg_words[slot], own_places[round]);
        }
    }
}

// A pass whose digit is the same for every key: the tile's keys (and values) stay in place (an
// argsort's first pass writes each key's index). Every key is loaded before any is stored, so
// that all loads are in flight at once: the compiler may not move a load above a store to
// another binding.
fn copy_tile(span: vec2<u32>, lid: u32) {
    own_base = lid;
    own_step = WORKGROUP_SIZE;
    load_own_keys(span);
    for (var round = 0u; round < ROUNDS; round++) {
        let slot = own_slot(round);
        if slot < span.y {
            keys_out[span.x + slot] = own_keys[round];
            move_value(span.x + slot, span.x + slot);
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
    // One digit holds every key where the highest is the lowest.
    let range = pass_range[params.pass_index];
    if range.x + range.y == RADIX + 1u {
        copy_tile(span, lid);
        return;
    }
    let group = tile / params.tiles_per_group;
    let first = offsets[lid * params.groups + group] + within[tile * RADIX + lid];
    rank_tile(span, lid);
    scatter_tile(span, lid, first);
}

// The single sweep's buffers: every pass's digit counts (SWEEP_PASSES * RADIX words) and one
// tile counter per pass after them; the tiles' status for this pass (zeroed by the pass before,
// or by the histogram for the first); and the next pass's, which this pass zeroes.
@group(0) @binding(9) var<storage, read_write> sweep_counts: array<atomic<u32>>;
@group(0) @binding(10) var<storage, read_write> sweep_status: array<atomic<u32>>;
@group(0) @binding(11) var<storage, read_write> sweep_next: array<u32>;
// Each pass's digit: (shift, mask) in x and y; the histogram counts them all.
@group(0) @binding(12) var<uniform> sweep_digits: array<vec4<u32>, SWEEP_PASSES>;

// Most passes of one sort: 8 digits of a 64-bit key and one that moves the result back.
const SWEEP_PASSES: u32 = 9u;
const SWEEP_TICKETS: u32 = SWEEP_PASSES * RADIX;
// A tile's status word for a digit: 0 until it publishes, then its count of the digit
// (STATUS_AGGREGATE) or the digit's place in the output after its keys (STATUS_PREFIX: the keys
// of every earlier digit, and of this digit in this tile and every earlier one), in the low 30
// bits (the sweep sorts fewer than 2^30 keys).
const STATUS_AGGREGATE: u32 = 0x40000000u;
const STATUS_PREFIX: u32 = 0x80000000u;
const STATUS_VALUE: u32 = 0x3fffffffu;
// Reads in a row that find a digit's next predecessor unpublished before the workgroup counts
// that predecessor's digits itself.
override SPINS: u32 = 64u;
// Tests only: read no predecessor's status, so that every count comes from the fallback.
override FALLBACK_ONLY: bool = false;
// Wait on each predecessor however long it takes, with no fallback: only where the adapter is
// known to give forward progress (radix_sort.rs).
override WAIT: bool = false;
// The sort's passes (params.passes), a constant of the histogram's pipeline: its per-key loop
// over them, bounded by params.passes, was not unrolled and cost the single sweep 7-11% (run
// 104).
override HISTOGRAM_PASSES: u32 = 1u;

var<workgroup> wg_sweep: array<atomic<u32>, SWEEP_PASSES * RADIX>;

// Every pass's digit counts of the workgroup's tiles, added into sweep_counts; zeroes the first
// pass's status of those tiles.
@compute @workgroup_size(256)
fn radix_sweep_histogram(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                         @builtin(num_workgroups) num_workgroups: vec3<u32>,
                         @builtin(local_invocation_index) lid: u32) {
    let group = group_index(workgroup_id, num_workgroups);
    if group >= params.groups {
        return;
    }
    for (var p = 0u; p < SWEEP_PASSES; p++) {
        atomicStore(&wg_sweep[p * RADIX + lid], 0u);
    }
    own_base = lid;
    own_step = WORKGROUP_SIZE;
    workgroupBarrier();
    let tiles = group_tiles(group);
    for (var tile = tiles.x; tile < tiles.y; tile++) {
        let span = tile_span(tile);
        load_own_keys(span);
        for (var round = 0u; round < ROUNDS; round++) {
            if own_slot(round) < span.y {
                for (var p = 0u; p < HISTOGRAM_PASSES; p++) {
                    let digit = digit_at(own_keys[round], sweep_digits[p].x, sweep_digits[p].y);
                    atomicAdd(&wg_sweep[p * RADIX + digit], 1u);
                }
            }
        }
        atomicStore(&sweep_status[tile * RADIX + lid], 0u);
    }
    workgroupBarrier();
    for (var p = 0u; p < HISTOGRAM_PASSES; p++) {
        let count = atomicLoad(&wg_sweep[p * RADIX + lid]);
        if count > 0u {
            atomicAdd(&sweep_counts[p * RADIX + lid], count);
        }
    }
}

var<workgroup> wg_ticket: u32;
// The latest predecessor a digit's look-back stopped at, plus one; then the same, read by the
// whole workgroup. Before the look-back, whether one digit holds every key of the pass.
var<workgroup> wg_stuck: atomic<u32>;
var<workgroup> wg_stuck_at: u32;

// The first place of digit lid in the output: the sum of this pass's counts of the digits
// before it, in wg_start. Every invocation calls it (it holds barriers).
fn global_first(lid: u32) -> u32 {
    return exclusive_digit_sum(atomicLoad(&sweep_counts[params.pass_index * RADIX + lid]), lid);
}

// Tile `tile`'s keys of digit lid, counted by the whole workgroup (the decoupled fallback).
fn count_tile_digits(tile: u32, lid: u32) -> u32 {
    atomicStore(&wg_histogram[lid], 0u);
    workgroupBarrier();
    let span = tile_span(tile);
    for (var round = 0u; round < ROUNDS; round++) {
        let slot = round * WORKGROUP_SIZE + lid;
        if slot < span.y {
            atomicAdd(&wg_histogram[digit_of(keys_in[span.x + slot])], 1u);
        }
    }
    workgroupBarrier();
    return atomicLoad(&wg_histogram[lid]);
}

// Predecessors a digit's look-back reads at once.
const LOOK_AHEAD: u32 = 4u;

// Digit lid's first place in the output for tile `tile` (> 0): its keys in the tiles before, and
// every earlier digit's keys, which tile 0's prefix carries. Each digit looks back on its own,
// reading LOOK_AHEAD predecessors at once and adding their counts until one has its prefix
// published.
// A digit that finds a predecessor unpublished for SPINS reads in a row stops; then the
// workgroup counts the digits of the latest tile some digit stopped at (the decoupled
// fallback), those digits take it, and every digit still looking goes on.
fn look_back(tile: u32, lid: u32) -> u32 {
    var prefix = 0u;
    // The next predecessor read is tile `look - 1`.
    var look = tile;
    var open = tile > 0u;
    loop {
        var spins = 0u;
        while open && spins < SPINS && !FALLBACK_ONLY {
            var status: array<u32, LOOK_AHEAD>;
            for (var k = 0u; k < LOOK_AHEAD; k++) {
                status[k] = 0u;
                if k < look {
                    status[k] = atomicLoad(&sweep_status[(look - 1u - k) * RADIX + lid]);
                }
            }
            var progressed = false;
            for (var k = 0u; k < LOOK_AHEAD; k++) {
                if !open || status[k] == 0u {
                    break;
                }
                prefix += status[k] & STATUS_VALUE;
                look -= 1u;
                progressed = true;
                open = (status[k] < STATUS_PREFIX) & (look > 0u);
            }
            // Waiting never counts a spin, so a digit leaves the loop only with its prefix.
            if !WAIT {
                spins = select(spins + 1u, 0u, progressed);
            }
        }
        // Waiting, every digit leaves the loop above with its prefix (stuck would be 0), so the
        // workgroup need not meet: each digit publishes its prefix and goes on to the scatter as
        // soon as it has it, and the driver drops the fallback (run 130: 9-10% faster at
        // 2^24-2^26; run 215: leaving before the meeting's three barriers, 5-10% more at
        // 2^20-2^22).
        if WAIT && !FALLBACK_ONLY {
            break;
        }
        // The latest predecessor a digit stopped at, plus one (0: every digit is done).
        if lid == 0u {
            atomicStore(&wg_stuck, 0u);
        }
        workgroupBarrier();
        if open {
            atomicMax(&wg_stuck, look);
        }
        workgroupBarrier();
        if lid == 0u {
            wg_stuck_at = atomicLoad(&wg_stuck);
        }
        let stuck = workgroupUniformLoad(&wg_stuck_at);
        if stuck == 0u {
            break;
        }
        var count = count_tile_digits(stuck - 1u, lid);
        if stuck == 1u {
            // Tile 0's prefix carries each digit's first place in the output. The scan borrows
            // wg_start, which holds this tile's digit starts until it scatters.
            let start = wg_start[lid];
            count += global_first(lid);
            wg_start[lid] = start;
            workgroupBarrier();
        }
        if open && look == stuck {
            prefix += count;
            look -= 1u;
            open = look > 0u;
        }
    }
    return prefix;
}

// One pass of the single sweep: tiles in the order they start (a counter), each loaded, its digits
// counted and published as soon as the rank has counted them (the subgroup rank once its ballots
// are done, before the ranks are finished), then ranked and sorted by digit in workgroup memory,
// its prefix looked back for, and written out. Publishing early (CUB's early counts) lets later
// tiles' look-backs pass this one sooner, and the rank's end and the sort in workgroup memory give
// the tiles before time to publish (runs 253-255, forced sweep: 4.8% faster at 2^24, 1.7% at 2^28,
// pairs 11% at 2^22). Counts taken from the rank's rows, not a workgroup histogram of their own,
// saved another 1.6% at 2^24 and 4.4% at 2^28 (run 258).
//
// A pass whose digit is the same for every key only copies its tiles (CUB's short circuit), so a
// digit that no key varies in costs a copy, not a sort: invocation d reads digit d's total
// before the ticket's barrier, and the flag shares that barrier (run 214: 4% faster at 2^20 than
// three barriers of its own).
@compute @workgroup_size(256)
fn radix_scatter_sweep(@builtin(local_invocation_index) lid: u32) {
    let total = atomicLoad(&sweep_counts[params.pass_index * RADIX + lid]);
    // The rank's memory is zeroed before the ticket's barrier, which then serves it too.
    rank_clear(lid);
    if lid == 0u {
        wg_ticket = atomicAdd(&sweep_counts[SWEEP_TICKETS + params.pass_index], 1u);
        wg_stuck_at = 0u;
    }
    let tile = workgroupUniformLoad(&wg_ticket);
    if tile >= params.tiles {
        return;
    }
    let row = tile * RADIX + lid;
    let span = tile_span(tile);
    // At most one digit holds every key of a pass that has keys.
    if total == key_len() && total > 0u {
        wg_stuck_at = 1u;
    }
    // The look-back writes the flag's word again only after two barriers.
    if workgroupUniformLoad(&wg_stuck_at) != 0u {
        // Every tile of the pass copies, so none publishes or looks back.
        if params.pass_index + 1u < params.passes {
            sweep_next[row] = 0u;
        }
        copy_tile(span, lid);
        return;
    }
    var first = 0u;
    if tile == 0u {
        first = global_first(lid);
    }
    rank_load(span, lid);
    let count = rank_count(span, lid);
    let published = select(STATUS_AGGREGATE | count, STATUS_PREFIX | (first + count), tile == 0u);
    atomicStore(&sweep_status[row], published);
    rank_finish(count, lid);
    sort_tile_by_digit(span);
    let prefix = look_back(tile, lid);
    if tile > 0u {
        atomicStore(&sweep_status[row], STATUS_PREFIX | (prefix + count));
    }
    if params.pass_index + 1u < params.passes {
        sweep_next[row] = 0u;
    }
    write_sorted_tile(span, lid, first + prefix);
}
