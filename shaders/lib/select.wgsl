// Selection in one pass (CUB's DeviceSelect::If): keeps the keys (and values) for which the
// importer's `is_kept(i, key)` holds, in input order, and writes how many. Dedup and the key
// filter are each an entry file that defines `is_kept` and calls `select_tile`.
//
// A tile is WORKGROUP_SIZE * 16 keys. Each invocation takes four rows of four consecutive keys
// of its lane group's part of the tile (scan.wgsl's layout: a row of a group is contiguous, so
// loads coalesce), keeps a bit per kept key, and the lanes scan their rows' counts (`lanes`:
// lib/workgroup_scan/subgroups.wgsl or plain.wgsl). lib/look_back.wgsl gives each tile the
// number kept before it, so the input is read once (the kept keys again, from cache) and nothing
// but the kept keys is written: staged by their sources in workgroup memory, then written by
// consecutive invocations.

#import key
#import move_values
#import lib/scan_op
#import lib/look_back
#import lanes

struct SelectParams {
    len: u32,
    tiles: u32,
    // The length of a second input, where the importer binds one (the key filter's B).
    other_len: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: SelectParams;
@group(0) @binding(1) var<storage, read> keys_in: array<Key>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<Key>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
// count[0] receives the number kept.
@group(0) @binding(7) var<storage, read_write> count: array<u32>;

override WORKGROUP_SIZE: u32 = 256u;
// Rows per invocation, and keys per row of an invocation.
const ROWS: u32 = 4u;
const ROW_KEYS: u32 = 4u;

// Per row of the invocation's keys, a bit for each key kept.
var<private> kept_bits: vec4<u32>;

// Places of the tile's output staged at once: the source of each kept key. Runs 100-101, dedup
// of 2^28 keys on the H100 in 512 x 16 tiles: 1.00 ms at 1024, 1.13 at 512, 1.51 at 256, 1.39
// at 4096, 2.37 at 8192 (the whole tile in one chunk).
const STAGE: u32 = 1024u;
var<workgroup> wg_sources: array<u32, STAGE>;
var<workgroup> wg_kept: u32;

// The first key of this invocation's row k of tile `tile`.
fn row_first(tile: u32, k: u32) -> u32 {
    return (tile * WORKGROUP_SIZE * ROWS + lane_group_base * ROWS + k * lanes + lane) * ROW_KEYS;
}

// The number of keys kept in each of this invocation's rows of `tile`; with `own`, the kept bits
// stay in kept_bits.
fn count_rows(tile: u32, own: bool) -> vec4<u32> {
    var counts: vec4<u32>;
    for (var k = 0u; k < ROWS; k++) {
        let first = row_first(tile, k);
        var bits = 0u;
        for (var c = 0u; c < ROW_KEYS; c++) {
            let i = first + c;
            if i < params.len {
                if is_kept(i, keys_in[i]) {
                    bits |= 1u << c;
                }
            }
        }
        if own {
            kept_bits[k] = bits;
        }
        counts[k] = countOneBits(bits);
    }
    return counts;
}

// The rows' counts scanned across the tile: every invocation calls it.
struct TileCounts {
    lanes: LaneScan,
    // The invocation's group's prefix within the tile, and the tile's count.
    group: vec2<u32>,
    // Row k's prefix within the group.
    rows_before: vec4<u32>,
}
fn scan_counts(counts: vec4<u32>) -> TileCounts {
    let lane_scan = lanes_exclusive(counts);
    var before: vec4<u32>;
    var running = 0u;
    for (var k = 0u; k < ROWS; k++) {
        before[k] = running;
        running += lane_scan.total[k];
    }
    return TileCounts(lane_scan, groups_exclusive(running), before);
}

// lib/look_back.wgsl's hooks.
fn look_back_base() -> u32 {
    return 0u;
}
fn look_back_fallback(tile: u32) -> u32 {
    return scan_counts(count_rows(tile, false)).group.y;
}
fn look_back_origin() -> u32 {
    return 0u;
}

// The selection's work for one workgroup: every invocation calls it.
fn select_tile(lid: u32) {
    lanes_begin(lid);
    let tile = take_tile(lid);
    if tile >= params.tiles {
        // The host dispatches one workgroup for no keys, to write the count.
        if params.tiles == 0u && tile == 0u && lid == 0u {
            count[0] = 0u;
        }
        return;
    }
    let tile_counts = scan_counts(count_rows(tile, true));
    let kept = tile_counts.group.y;
    var prefix = 0u;
    if tile == 0u {
        publish_first(kept, lid);
    } else {
        prefix = look_back(tile, kept, lid);
    }
    // The kept keys' sources, STAGE places of the tile's output at a time, in workgroup memory;
    // then every invocation writes consecutive places, so the writes coalesce.
    if lid == 0u {
        wg_kept = kept;
    }
    let tile_kept = workgroupUniformLoad(&wg_kept);
    for (var chunk = 0u; chunk < tile_kept; chunk += STAGE) {
        for (var k = 0u; k < ROWS; k++) {
            var place = tile_counts.group.x + tile_counts.rows_before[k] + tile_counts.lanes.exclusive[k];
            let first = row_first(tile, k);
            let bits = kept_bits[k];
            for (var c = 0u; c < ROW_KEYS; c++) {
                if (bits & (1u << c)) != 0u {
                    if place >= chunk && place < chunk + STAGE {
                        wg_sources[place - chunk] = first + c;
                    }
                    place++;
                }
            }
        }
        workgroupBarrier();
        let staged = min(STAGE, tile_kept - chunk);
        for (var x = lid; x < staged; x += WORKGROUP_SIZE) {
            let source = wg_sources[x];
            keys_out[prefix + chunk + x] = keys_in[source];
            move_value(source, prefix + chunk + x);
        }
        workgroupBarrier();
    }
    if tile + 1u == params.tiles && lid == 0u {
        count[0] = prefix + kept;
    }
}
