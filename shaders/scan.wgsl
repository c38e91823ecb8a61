// Scan (prefix combination) of 32-bit elements under lib/scan_op.wgsl's operator, inclusive or
// exclusive, in tiles of WORKGROUP_SIZE * 16 elements. Each invocation loads four vec4s of its
// lane group's part of a tile (coalesced), scans each within itself, and the lanes scan their
// totals (the `lanes` parameter: lib/workgroup_scan/subgroups.wgsl or plain.wgsl).
// A tile's prefix (the combination of every element before it) comes one of three ways (MODE):
//
// - MODE_PREFIXES: from `prefixes`, the exclusive scan of every tile's reduction made by the
//   passes before (reduce-then-scan: reads the input twice, safe everywhere);
// - MODE_FALLBACK and MODE_LOOK_BACK: in this single pass, by lib/look_back.wgsl's decoupled
//   look-back, with decoupled fallback (safe on every adapter) or waiting on predecessors (only
//   where the adapter gives forward progress).
//
// Pieces of a longer scan carry the running total in `aux` from one dispatch to the next.

#import lib/dispatch
#import lib/scan_op
#import lib/look_back
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
// lib/look_back.wgsl's published values.
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
// [0, 2): running totals between pieces; from PREFIXES, MODE_PREFIXES' tile prefixes: tile t's
// exclusive prefix within this piece (at a 256-byte offset, where the scan before writes them).
@group(0) @binding(4) var<storage, read_write> aux: array<u32>;
const PREFIXES: u32 = 64u;

override WORKGROUP_SIZE: u32 = 256u;
override EXCLUSIVE: bool = false;
// MODE beside lib/look_back.wgsl's two: reduce-then-scan, which takes no look-back.
const MODE_PREFIXES: u32 = 0u;

// vec4s per invocation: a tile holds WORKGROUP_SIZE * 16 elements.
const VECS: u32 = 4u;

// The vec4 that this invocation takes as its k-th of tile `tile`.
fn tile_vec4(tile: u32, k: u32) -> u32 {
    return tile * WORKGROUP_SIZE * VECS + lane_group_base * VECS + k * lanes + lane;
}

// The combination of everything before this piece.
fn carry_in() -> u32 {
    if params.carry_in == NO_CARRY { return identity(); }
    return aux[params.carry_in];
}

// The invocation's four vec4s of `tile`, as loaded.
fn load_raw(tile: u32) -> array<vec4<u32>, 4> {
    var raw: array<vec4<u32>, 4>;
    for (var k = 0u; k < VECS; k++) {
        raw[k] = load4(tile_vec4(tile, k), params.len);
    }
    return raw;
}

// Per-k totals of the invocation's four vec4s, and (in `scanned`) their scans within themselves.
var<private> scanned: array<vec4<u32>, 4>;
fn scan_raw(raw: array<vec4<u32>, 4>) -> vec4<u32> {
    var rows: vec4<u32>;
    for (var k = 0u; k < VECS; k++) {
        let v = scan_within(raw[k]);
        scanned[k] = v;
        rows[k] = v.w;
    }
    return rows;
}
fn load_rows(tile: u32) -> vec4<u32> {
    return scan_raw(load_raw(tile));
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

// lib/look_back.wgsl's hooks.
fn look_back_base() -> u32 {
    return 0u;
}
fn look_back_fallback(tile: u32) -> u32 {
    return scan_rows(load_rows(tile)).group.y;
}
fn look_back_origin() -> u32 {
    return carry_in();
}

// Writes tile `tile`, whose elements before it combine to `prefix`.
fn store_tile(tile: u32, tile_scan: TileScan, own: array<vec4<u32>, 4>, prefix: u32, lid: u32) {
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
        aux[params.carry_out] = combine(prefix, tile_scan.group.y);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn scan(@builtin(workgroup_id) workgroup_id: vec3<u32>,
        @builtin(num_workgroups) num_workgroups: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    lanes_begin(lid);
    if MODE == MODE_PREFIXES {
        let tile = group_index(workgroup_id, num_workgroups);
        if tile >= params.tiles {
            return;
        }
        let tile_scan = scan_rows(load_rows(tile));
        // Tile 0 has nothing before it in the piece (and a one-tile scan has no prefixes).
        var prefix = carry_in();
        if tile > 0u {
            prefix = combine(prefix, aux[PREFIXES + tile]);
        }
        store_tile(tile, tile_scan, scanned, prefix, lid);
        return;
    }
    // A single pass: the workgroup takes tiles from the counter until none is left, and issues
    // the next tile's loads before it waits on this tile's predecessors, so that the wait
    // overlaps them (run 110: 1.114 -> 0.990 ms at 2^28). The host dispatches fewer workgroups
    // than tiles (tuning::scan_single_pass_groups); any that start after the counter has passed
    // the last tile end at once.
    var tile = take_tile(lid);
    if tile >= params.tiles {
        return;
    }
    var raw = load_raw(tile);
    loop {
        let tile_scan = scan_rows(scan_raw(raw));
        let own = scanned;
        let reduction = tile_scan.group.y;
        if tile == 0u {
            publish_first(combine(carry_in(), reduction), lid);
        } else {
            look_back_start(tile, reduction, lid);
        }
        let next = take_tile(lid);
        if next < params.tiles {
            raw = load_raw(next);
        }
        var prefix = carry_in();
        if tile > 0u {
            prefix = look_back_finish(tile, reduction, lid);
        }
        store_tile(tile, tile_scan, own, prefix, lid);
        if next >= params.tiles {
            break;
        }
        tile = next;
    }
}
