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
// started before it. A published value is a 32-bit word split in two 16-bit halves, each with a
// ready bit in its own atomic word: WGSL's atomics are relaxed, so a value is read only from
// words that carry their own readiness. Each word is written once per pass (the host zeroes
// `state` first), so two ready halves always belong to one value.
//
// The importer declares `state: array<atomic<u32>>`, whose words from `look_back_base()` on are
// the module's ([0]: tiles taken; tile t's reduction in [1 + 4t, 2 + 4t], its inclusive prefix
// in [3 + 4t, 4 + 4t]), and three functions: `look_back_base() -> u32`;
// `look_back_fallback(tile) -> u32`, tile's reduction from its input as the tile computes it
// (every invocation calls it); and `look_back_origin() -> u32`, what comes before tile 0.

#import lib/scan_op

override MODE: u32 = 1u;
// Look-back rounds that find nothing new before MODE_FALLBACK computes the nearest unpublished
// predecessor's reduction itself.
override SPINS: u32 = 64u;

const MODE_FALLBACK: u32 = 1u;
const MODE_LOOK_BACK: u32 = 2u;
const READY: u32 = 0x10000u;

var<workgroup> wg_tile: u32;
var<workgroup> wg_look: u32;
var<workgroup> wg_prefix: u32;
var<workgroup> wg_done: u32;

// This workgroup's tile, from the counter; every invocation calls it.
fn take_tile(lid: u32) -> u32 {
    if lid == 0u {
        wg_tile = atomicAdd(&state[look_back_base()], 1u);
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
    let ready = (low & READY) != 0u && (high & READY) != 0u;
    return vec2(u32(ready), (low & 0xffffu) | (high << 16u));
}

fn reduction_word(tile: u32) -> u32 {
    return 1u + 4u * tile;
}
fn inclusive_word(tile: u32) -> u32 {
    return 3u + 4u * tile;
}

// Publishes tile 0's inclusive prefix: the origin combined with its reduction.
fn publish_first(inclusive: u32, lid: u32) {
    if lid == 0u {
        publish(inclusive_word(0u), inclusive);
    }
}

// The look-back reads this many predecessors at once, one per invocation (CUB reads a warp's
// worth): a tile's prefix is usually a few tiles back, behind tiles still running.
const WINDOW: u32 = 32u;
const KIND_NONE: u32 = 0u;
const KIND_REDUCTION: u32 = 1u;
const KIND_INCLUSIVE: u32 = 2u;
var<workgroup> wg_window_kind: array<u32, WINDOW>;
var<workgroup> wg_window_value: array<u32, WINDOW>;
var<workgroup> wg_spins: u32;
// Whether the last look-back computed a predecessor's reduction itself: an importer whose
// fallback overwrites its own tile's state in workgroup memory redoes it.
var<workgroup> wg_fell_back: u32;

// One round of the look-back: invocations 0..WINDOW read what tiles wg_look, wg_look - 1, ...
// have published; invocation 0 then combines them into wg_prefix from the nearest on, up to the
// first inclusive prefix (the look-back is done: wg_done) or the first tile that has published
// nothing (wg_look moves to it; wg_spins counts rounds that found nothing new).
fn look_back_round(lid: u32) {
    let look = wg_look;
    if lid < WINDOW {
        var kind = KIND_NONE;
        var value = 0u;
        if lid <= look {
            let t = look - lid;
            // Both published values in one round trip (tile 0 publishes only its inclusive
            // prefix, and reads of its reduction words find nothing).
            let inclusive = read_published(inclusive_word(t));
            let reduction = read_published(reduction_word(t));
            if inclusive.x == 1u {
                kind = KIND_INCLUSIVE;
                value = inclusive.y;
            } else if reduction.x == 1u && t > 0u {
                kind = KIND_REDUCTION;
                value = reduction.y;
            }
        }
        wg_window_kind[lid] = kind;
        wg_window_value[lid] = value;
    }
    workgroupBarrier();
    if lid == 0u {
        var j = 0u;
        loop {
            if j >= WINDOW || j > look || wg_window_kind[j] == KIND_NONE {
                break;
            }
            wg_prefix = combine(wg_window_value[j], wg_prefix);
            if wg_window_kind[j] == KIND_INCLUSIVE {
                wg_done = 1u;
                break;
            }
            j++;
        }
        // Tile 0 always ends the window with its inclusive prefix or nothing, so j <= look.
        if wg_done == 0u {
            wg_look = look - min(j, look);
            wg_spins = select(0u, wg_spins + 1u, j == 0u);
        }
    }
}

// The prefix of tile `tile` (> 0), whose reduction is `reduction`, by decoupled look-back; every
// invocation calls it. Publishes the tile's inclusive prefix.
fn look_back(tile: u32, reduction: u32, lid: u32) -> u32 {
    if lid == 0u {
        publish(reduction_word(tile), reduction);
        wg_look = tile - 1u;
        wg_prefix = identity();
        wg_done = 0u;
        wg_spins = 0u;
        wg_fell_back = 0u;
    }
    workgroupBarrier();
    loop {
        look_back_round(lid);
        if workgroupUniformLoad(&wg_done) == 1u {
            break;
        }
        if MODE == MODE_FALLBACK && workgroupUniformLoad(&wg_spins) >= SPINS {
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
        // Everyone has read the window before the next round writes it.
        workgroupBarrier();
    }
    let prefix = workgroupUniformLoad(&wg_prefix);
    if lid == 0u {
        publish(inclusive_word(tile), combine(prefix, reduction));
    }
    return prefix;
}
