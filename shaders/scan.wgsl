// Scan (prefix combination) of 32-bit elements under lib/scan_op.wgsl's operator, inclusive or
// exclusive, one tile of WORKGROUP_SIZE * 16 elements per workgroup. Each invocation loads four
// vec4s of its lane group's part of the tile (coalesced), scans each within itself, and the lanes
// scan their totals (the `lanes` parameter: lib/workgroup_scan/subgroups.wgsl or plain.wgsl).
// A tile's prefix (the combination of every element before it) comes one of three ways (MODE):
//
// - MODE_PREFIXES: from `prefixes`, the exclusive scan of every tile's reduction made by the
//   passes before (reduce-then-scan: reads the input twice, safe everywhere);
// - MODE_FALLBACK: in this single pass by decoupled look-back with decoupled fallback (Smith,
//   Levien and Owens, SPAA 2025): each tile publishes its reduction, then reads its predecessors'
//   published values back to the nearest inclusive prefix; a predecessor that has published
//   nothing after SPINS reads has its reduction computed from its input by this workgroup
//   instead, so no workgroup ever waits on another: safe on every adapter;
// - MODE_LOOK_BACK: the same, waiting for each predecessor however long it takes (Merrill and
//   Garland's chained scan), only where the adapter is known to give forward progress.
//
// Tiles take their index from a counter in the single-pass modes, so a tile's predecessors have
// all started before it. A tile's published values are 32-bit words split in two 16-bit halves,
// each with a ready bit in its own atomic word: WGSL's atomics are relaxed, so a value is read
// only from words that carry their own readiness. Each word is written once per scan (the host
// zeroes `state` first), so two ready halves always belong to one value.
//
// Pieces of a longer scan carry the running total in `aux` from one dispatch to the next.

#import lib/dispatch
#import lib/scan_op
#import lanes
#import io

struct ScanParams {
    len: u32,
    tiles: u32,
    // Word of `aux` holding the combination of everything before this piece, or NO_CARRY.
    carry_in: u32,
    // Word of `aux` receiving the combination of everything through this piece.
    carry_out: u32,
}
const NO_CARRY: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: ScanParams;
// [0]: tiles taken; tile t's reduction in [1 + 4t, 2 + 4t] and its inclusive prefix in
// [3 + 4t, 4 + 4t], each a 16-bit half with READY set.
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
// [0, 2): running totals between pieces; from PREFIXES, MODE_PREFIXES' tile prefixes: tile t's
// exclusive prefix within this piece (at a 256-byte offset, where the scan before writes them).
@group(0) @binding(4) var<storage, read_write> aux: array<u32>;
const PREFIXES: u32 = 64u;

override WORKGROUP_SIZE: u32 = 256u;
override MODE: u32 = 1u;
override EXCLUSIVE: bool = false;
// Look-back rounds that find nothing new before MODE_FALLBACK computes the nearest unpublished
// predecessor's reduction itself.
override SPINS: u32 = 64u;

const MODE_PREFIXES: u32 = 0u;
const MODE_FALLBACK: u32 = 1u;
const MODE_LOOK_BACK: u32 = 2u;
// vec4s per invocation: a tile holds WORKGROUP_SIZE * 16 elements.
const VECS: u32 = 4u;
const READY: u32 = 0x10000u;

var<workgroup> wg_tile: u32;
var<workgroup> wg_look: u32;
var<workgroup> wg_prefix: u32;
var<workgroup> wg_done: u32;

// The vec4 that this invocation takes as its k-th of tile `tile`.
fn tile_vec4(tile: u32, k: u32) -> u32 {
    return tile * WORKGROUP_SIZE * VECS + lane_group_base * VECS + k * lanes + lane;
}

// The combination of everything before this piece.
fn carry_in() -> u32 {
    if params.carry_in == NO_CARRY { return identity(); }
    return aux[params.carry_in];
}

fn publish(word: u32, value: u32) {
    atomicStore(&state[word], (value & 0xffffu) | READY);
    atomicStore(&state[word + 1u], (value >> 16u) | READY);
}

// A published value: x is 1 when ready, y the value.
fn read_published(word: u32) -> vec2<u32> {
    let low = atomicLoad(&state[word]);
    let high = atomicLoad(&state[word + 1u]);
    let ready = (low & READY) != 0u && (high & READY) != 0u;
    return vec2(u32(ready), (low & 0xffffu) | (high << 16u));
}

fn reduction_word(tile: u32) -> u32 {
    return 1u + 4u * tile;
}
fn inclusive_word(tile: u32) -> u32 {
    return 3u + 4u * tile;
}

// Per-k totals of the invocation's four vec4s of `tile`, and (in `scanned`) their scans within
// themselves.
var<private> scanned: array<vec4<u32>, 4>;
fn load_rows(tile: u32) -> vec4<u32> {
    var rows: vec4<u32>;
    for (var k = 0u; k < VECS; k++) {
        let v = scan_within(load4(tile_vec4(tile, k), params.len));
        scanned[k] = v;
        rows[k] = v.w;
    }
    return rows;
}

// The reduction of a whole tile from its rows' lane scan: every invocation calls it. Row k comes
// before row k + 1, groups in the order of their bases.
struct TileScan {
    lanes: LaneScan,
    // The invocation's group's prefix within the tile, and the tile's reduction.
    group: vec2<u32>,
    // Row k's prefix within the group.
    rows_before: vec4<u32>,
}
fn scan_rows(rows: vec4<u32>) -> TileScan {
    let lane_scan = lanes_exclusive(rows);
    var before: vec4<u32>;
    var running = identity();
    for (var k = 0u; k < VECS; k++) {
        before[k] = running;
        running = combine(running, lane_scan.total[k]);
    }
    return TileScan(lane_scan, groups_exclusive(running), before);
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
            let fallen_back = scan_rows(load_rows(look)).group.y;
            if lid == 0u {
                wg_prefix = combine(fallen_back, wg_prefix);
                wg_spins = 0u;
                if look == 0u {
                    wg_prefix = combine(carry_in(), wg_prefix);
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

@compute @workgroup_size(WORKGROUP_SIZE)
fn scan(@builtin(workgroup_id) workgroup_id: vec3<u32>,
        @builtin(num_workgroups) num_workgroups: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    lanes_begin(lid);
    if lid == 0u {
        if MODE == MODE_PREFIXES {
            wg_tile = group_index(workgroup_id, num_workgroups);
        } else {
            wg_tile = atomicAdd(&state[0], 1u);
        }
    }
    let tile = workgroupUniformLoad(&wg_tile);
    if tile >= params.tiles {
        return;
    }
    let tile_scan = scan_rows(load_rows(tile));
    let own = scanned;
    let reduction = tile_scan.group.y;

    var prefix: u32;
    if MODE == MODE_PREFIXES {
        // Tile 0 has nothing before it in the piece (and a one-tile scan has no prefixes).
        prefix = carry_in();
        if tile > 0u {
            prefix = combine(prefix, aux[PREFIXES + tile]);
        }
    } else if tile == 0u {
        prefix = carry_in();
        if lid == 0u {
            publish(inclusive_word(0u), combine(prefix, reduction));
        }
    } else {
        prefix = look_back(tile, reduction, lid);
    }

    let group_prefix = combine(prefix, tile_scan.group.x);
    for (var k = 0u; k < VECS; k++) {
        let before = combine(combine(group_prefix, tile_scan.rows_before[k]),
                             tile_scan.lanes.exclusive[k]);
        let inclusive = combine4(vec4(before), own[k]);
        var out = inclusive;
        if EXCLUSIVE {
            out = vec4(before, inclusive.x, inclusive.y, inclusive.z);
        }
        store4(tile_vec4(tile, k), params.len, out);
    }
    if tile + 1u == params.tiles && lid == 0u {
        aux[params.carry_out] = combine(prefix, reduction);
    }
}
