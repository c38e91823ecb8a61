// Decoupled look-back over tiles taken in order (Merrill and Garland's chained scan), with
// decoupled fallback (Smith, Levien and Owens, SPAA 2025). Each tile publishes its reduction,
// then reads its predecessors' published values back to the nearest inclusive prefix:
//
// - MODE_FALLBACK: a predecessor that has published nothing after SPINS reads has its reduction
//   computed from its input by this workgroup instead (`look_back_fallback`), so no workgroup
//   ever waits on another: safe on every adapter;
// - MODE_LOOK_BACK: waits for each predecessor however long it takes, only where the adapter is
//   known to give forward progress.
//
// Tiles must take their index from the module's counter, so a tile's predecessors have all
// started before it. A workgroup may take several tiles (at most MOST_TILES), in turn (scan.wgsl
// takes the next before it waits on this one's predecessors): each waits only on smaller tiles,
// so the smallest tile not yet done is always free to finish.
//
// A published value is a 32-bit word split in two 16-bit halves, each with a ready bit in its own
// atomic word: WGSL's atomics are relaxed, so a value is read only from words that carry their own
// readiness. Each word is written once per pass (the host zeroes `state` first), so two ready
// halves always belong to one value. Counts below 2^30 take one word instead (NARROW).
//
// The importer declares `state: array<atomic<u32>>`, whose words from `look_back_base()` on are
// the module's ([0]: tiles taken; tile t's reduction in [1 + 4t, 2 + 4t], its inclusive prefix
// in [3 + 4t, 4 + 4t]), and three functions: `look_back_base() -> u32`;
// `look_back_fallback(tile) -> u32`, tile's reduction from its input as the tile computes it
// (every invocation calls it); and `look_back_origin() -> u32`, what comes before tile 0.
//
// The window of predecessors read at once (`look_back_window`) is read and combined by one
// subgroup where the adapter has subgroups (lib/look_back_window/subgroups.wgsl: no workgroup
// barrier a round, as CUB's warp does; run 104: set operations and dedup 12-15% faster, the
// decoupled fallback's scan 16%), and in workgroup memory otherwise (plain.wgsl).

#import lib/scan_op
#import look_back_window

override MODE: u32 = 1u;
// Look-back rounds that find nothing new before MODE_FALLBACK computes the nearest unpublished
// predecessor's reduction itself.
override SPINS: u32 = 64u;

// Set by importers whose values are counts below 2^30 (set operations, selections): tile t's
// state is then one word, [1 + 4t], the value with its kind in the top two bits, and the
// inclusive prefix overwrites the reduction, so a predecessor is one read rather than four (run
// 155 on the H100: dedup of 2^28 keys 0.840 ms against 0.892, intersection 2.00 against 2.11,
// union 2.06 against 2.08). A single word needs no readiness per half: it is written whole.
override NARROW: u32 = 0u;
const NARROW_SHIFT: u32 = 30u;
const NARROW_VALUE: u32 = 0x3fffffffu;

const MODE_FALLBACK: u32 = 1u;
const MODE_LOOK_BACK: u32 = 2u;
const READY: u32 = 0x10000u;

var<workgroup> wg_tile: u32;
var<workgroup> wg_look: u32;
var<workgroup> wg_prefix: u32;
var<workgroup> wg_done: u32;
// Rounds in a row that found nothing new at wg_look.
var<workgroup> wg_spins: u32;
// Whether the last look-back computed a predecessor's reduction itself: an importer whose
// fallback overwrites its own tile's state in workgroup memory redoes it.
var<workgroup> wg_fell_back: u32;

// Most tiles one workgroup takes (tuning::most_tiles_within_loop_budget): llvmpipe ends an
// invocation's loops after 65,535 iterations in all, so a workgroup that took every tile would
// leave some undone. The host dispatches enough workgroups that the tiles are all taken.
override MOST_TILES: u32 = 0xffffffffu;
const NO_TILE: u32 = 0xffffffffu;
// Tiles this workgroup has taken, as invocation 0 counts them (only it reads the count, so that
// every invocation reaches workgroupUniformLoad in uniform control flow, which browsers check).
var<private> tiles_taken: u32;

// This workgroup's next tile, from the counter, or NO_TILE once it has taken MOST_TILES; every
// invocation calls it.
fn take_tile(lid: u32) -> u32 {
    if lid == 0u {
        if tiles_taken < MOST_TILES {
            wg_tile = atomicAdd(&state[look_back_base()], 1u);
            tiles_taken++;
        } else {
            wg_tile = NO_TILE;
        }
    }
    return workgroupUniformLoad(&wg_tile);
}

fn publish(word: u32, value: u32) {
    let at = look_back_base() + word;
    atomicStore(&state[at], (value & 0xffffu) | READY);
    atomicStore(&state[at + 1u], (value >> 16u) | READY);
}

// A published value: x is 1 when ready, y the value.
fn read_published(word: u32) -> vec2<u32> {
    let at = look_back_base() + word;
    let low = atomicLoad(&state[at]);
    let high = atomicLoad(&state[at + 1u]);
    let ready = ((low & READY) != 0u) & ((high & READY) != 0u);
    return vec2(u32(ready), (low & 0xffffu) | (high << 16u));
}

fn reduction_word(tile: u32) -> u32 {
    return 1u + 4u * tile;
}
fn inclusive_word(tile: u32) -> u32 {
    return 3u + 4u * tile;
}

// Publishes tile t's value of `kind`: its reduction (KIND_REDUCTION) or its inclusive prefix
// (KIND_INCLUSIVE).
fn publish_tile(t: u32, kind: u32, value: u32) {
    if NARROW != 0u {
        atomicStore(&state[look_back_base() + reduction_word(t)],
                    (value & NARROW_VALUE) | (kind << NARROW_SHIFT));
        return;
    }
    publish(select(inclusive_word(t), reduction_word(t), kind == KIND_REDUCTION), value);
}

// Publishes tile 0's inclusive prefix: the origin combined with its reduction.
fn publish_first(inclusive: u32, lid: u32) {
    if lid == 0u {
        publish_tile(0u, KIND_INCLUSIVE, inclusive);
    }
}

// What tile t has published, as the window reads it: x a KIND, y the value. Tile 0 publishes only
// its inclusive prefix (reads of its reduction words find nothing). Both values in one round
// trip.
const KIND_NONE: u32 = 0u;
const KIND_REDUCTION: u32 = 1u;
const KIND_INCLUSIVE: u32 = 2u;
fn read_predecessor(t: u32) -> vec2<u32> {
    if NARROW != 0u {
        let word = atomicLoad(&state[look_back_base() + reduction_word(t)]);
        let kind = word >> NARROW_SHIFT;
        if (kind == KIND_INCLUSIVE) | ((kind == KIND_REDUCTION) & (t > 0u)) {
            return vec2(kind, word & NARROW_VALUE);
        }
        return vec2(KIND_NONE, identity());
    }
    let inclusive = read_published(inclusive_word(t));
    let reduction = read_published(reduction_word(t));
    if inclusive.x == 1u {
        return vec2(KIND_INCLUSIVE, inclusive.y);
    }
    if (reduction.x == 1u) & (t > 0u) {
        return vec2(KIND_REDUCTION, reduction.y);
    }
    return vec2(KIND_NONE, identity());
}

// The prefix of tile `tile` (> 0), whose reduction is `reduction`, by decoupled look-back; every
// invocation calls it. Publishes the tile's inclusive prefix.
fn look_back(tile: u32, reduction: u32, lid: u32) -> u32 {
    look_back_start(tile, reduction, lid);
    return look_back_finish(tile, reduction, lid);
}

// look_back in two halves, for an importer that issues other work (the next tile's loads) between
// publishing its reduction and waiting on its predecessors: the start publishes, the finish waits
// and publishes the inclusive prefix. Every invocation calls both.
fn look_back_start(tile: u32, reduction: u32, lid: u32) {
    if lid == 0u {
        publish_tile(tile, KIND_REDUCTION, reduction);
        wg_look = tile - 1u;
        wg_prefix = identity();
        wg_done = 0u;
        wg_spins = 0u;
        wg_fell_back = 0u;
    }
}

fn look_back_finish(tile: u32, reduction: u32, lid: u32) -> u32 {
    workgroupBarrier();
    loop {
        // The window's rounds (look_back_window), until the look-back is done or, in
        // MODE_FALLBACK, SPINS rounds in a row found nothing new.
        look_back_rounds(lid);
        // Waiting on predecessors, the rounds end only once the look-back is done: saying so
        // lets the driver drop the fallback (a whole tile's work for set operations).
        if MODE == MODE_LOOK_BACK {
            break;
        }
        if workgroupUniformLoad(&wg_done) == 1u {
            break;
        }
        // Fallback: the unpublished predecessor's reduction, from its input, exactly as it
        // computes it.
        let look = workgroupUniformLoad(&wg_look);
        let fallen_back = look_back_fallback(look);
        if lid == 0u {
            wg_prefix = combine(fallen_back, wg_prefix);
            wg_spins = 0u;
            wg_fell_back = 1u;
            if look == 0u {
                wg_prefix = combine(look_back_origin(), wg_prefix);
                wg_done = 1u;
            } else {
                wg_look = look - 1u;
            }
        }
        if workgroupUniformLoad(&wg_done) == 1u {
            break;
        }
    }
    let prefix = workgroupUniformLoad(&wg_prefix);
    if lid == 0u {
        publish_tile(tile, KIND_INCLUSIVE, combine(prefix, reduction));
    }
    return prefix;
}
