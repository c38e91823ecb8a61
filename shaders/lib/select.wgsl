// Selection in one pass (CUB's DeviceSelect::If): keeps the keys (and values) that the importer
// says stay, in input order, and writes how many. Dedup and the key filter are each an entry file
// that defines two hooks and calls `select_tiles`:
//
//     fn row_edge(first: u32) -> Key
//     fn row_kept(first: u32, row: Row) -> u32
//
// A row is ROW_KEYS consecutive keys from `first` (keys at or beyond params.len read as zero) and
// its edge, the one key beyond them its decisions need, loaded with it (dedup's neighbour);
// row_kept gives a bit per kept key (bit c: key first + c), none for keys beyond params.len.
//
// A tile is WORKGROUP_SIZE * 16 keys. Each invocation takes four rows of its lane group's part of
// the tile (scan.wgsl's layout: a row of a group is contiguous, so loads coalesce), and the lanes
// scan their rows' counts (`lanes`: lib/workgroup_scan/subgroups.wgsl or plain.wgsl).
// lib/look_back.wgsl gives each tile the number kept before it, so the input is read once and
// nothing but the kept keys is written: their sources staged in workgroup memory, then written by
// consecutive invocations (the kept keys read again, from cache).
//
// A workgroup takes tiles in turn from the look-back's counter (run 138, dedup of 2^28 keys on
// the H100: 0.892 ms against 0.971 with one tile a workgroup). Unlike scan.wgsl, it does not load
// the next tile before it waits on this tile's predecessors: holding those rows in registers
// through the wait made dedup 1.51 ms, and holding this tile's keys to stage them from registers
// rather than re-reading them 0.964 (runs 138-139).

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

struct Row {
    keys: array<Key, ROW_KEYS>,
    edge: Key,
}
alias Rows = array<Row, ROWS>;

// Places of the tile's output staged at once: the kept keys' sources. Run 170, dedup of 2^28 keys
// on the H100 in 256 x 16 tiles: 0.735 ms at 1024, 0.794 at 512, 0.861 at 2048, 1.246 at 4096
// (the whole tile in one chunk); runs 100-101 chose 1024 in 512 x 16 tiles too.
const STAGE: u32 = 1024u;
var<workgroup> wg_sources: array<u32, STAGE>;
var<workgroup> wg_kept: u32;

// The first key of this invocation's row k of tile `tile`.
fn row_first(tile: u32, k: u32) -> u32 {
    return (tile * WORKGROUP_SIZE * ROWS + lane_group_base * ROWS + k * lanes + lane) * ROW_KEYS;
}

// The invocation's rows of `tile`, as loaded.
fn load_rows(tile: u32) -> Rows {
    var rows: Rows;
    for (var k = 0u; k < ROWS; k++) {
        let first = row_first(tile, k);
        for (var c = 0u; c < ROW_KEYS; c++) {
            if first + c < params.len {
                rows[k].keys[c] = keys_in[first + c];
            }
        }
        rows[k].edge = row_edge(first);
    }
    return rows;
}

// Per row of `rows` (of `tile`), a bit for each key kept.
fn kept_bits(tile: u32, rows: Rows) -> vec4<u32> {
    var bits: vec4<u32>;
    for (var k = 0u; k < ROWS; k++) {
        bits[k] = row_kept(row_first(tile, k), rows[k]);
    }
    return bits;
}

// The rows' counts scanned across the tile: every invocation calls it.
struct TileCounts {
    lanes: LaneScan,
    // The invocation's group's prefix within the tile, and the tile's count.
    group: vec2<u32>,
    // Row k's prefix within the group.
    rows_before: vec4<u32>,
}
fn scan_counts(bits: vec4<u32>) -> TileCounts {
    // A row keeps at most ROW_KEYS keys and a group has at most 1024 lanes, so a row's count
    // summed over a group fits in 16 bits: two rows go through the lane scan in one word (run
    // 167: dedup 2% faster at 2^26 and 2^28 than four words).
    let counts = countOneBits(bits);
    let packed = lanes_exclusive(vec4(counts.x | (counts.y << 16u), counts.z | (counts.w << 16u),
                                      0u, 0u));
    let lane_scan = LaneScan(unpack_halves(packed.exclusive), unpack_halves(packed.total));
    var before: vec4<u32>;
    var running = 0u;
    for (var k = 0u; k < ROWS; k++) {
        before[k] = running;
        running += lane_scan.total[k];
    }
    return TileCounts(lane_scan, groups_exclusive(running), before);
}

// The four 16-bit halves of x and y, low half first.
fn unpack_halves(packed: vec4<u32>) -> vec4<u32> {
    return vec4(packed.x & 0xffffu, packed.x >> 16u, packed.y & 0xffffu, packed.y >> 16u);
}

// lib/look_back.wgsl's hooks.
fn look_back_base() -> u32 {
    return 0u;
}
fn look_back_fallback(tile: u32) -> u32 {
    return scan_counts(kept_bits(tile, load_rows(tile))).group.y;
}
fn look_back_origin() -> u32 {
    return 0u;
}

// Writes tile `tile`'s kept keys (kept `bits`) from place `prefix` on: STAGE places at a time
// staged in workgroup memory, then written by consecutive invocations, so the writes coalesce.
// Every invocation calls it.
fn write_kept(tile: u32, bits: vec4<u32>, tile_counts: TileCounts, prefix: u32, lid: u32) {
    if lid == 0u {
        wg_kept = tile_counts.group.y;
    }
    let tile_kept = workgroupUniformLoad(&wg_kept);
    for (var chunk = 0u; chunk < tile_kept; chunk += STAGE) {
        for (var k = 0u; k < ROWS; k++) {
            var place = tile_counts.group.x + tile_counts.rows_before[k]
                + tile_counts.lanes.exclusive[k];
            let first = row_first(tile, k);
            for (var c = 0u; c < ROW_KEYS; c++) {
                if (bits[k] & (1u << c)) != 0u {
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
}

// The selection's work for one workgroup: every invocation calls it. The host dispatches fewer
// workgroups than tiles (tuning::scan_single_pass_groups); any that start after the counter has
// passed the last tile end at once.
fn select_tiles(lid: u32) {
    lanes_begin(lid);
    var tile = take_tile(lid);
    if tile >= params.tiles {
        // The host dispatches one workgroup for no keys, to write the count.
        if params.tiles == 0u && tile == 0u && lid == 0u {
            count[0] = 0u;
        }
        return;
    }
    var rows = load_rows(tile);
    loop {
        let bits = kept_bits(tile, rows);
        let tile_counts = scan_counts(bits);
        let kept = tile_counts.group.y;
        if tile == 0u {
            publish_first(kept, lid);
        } else {
            look_back_start(tile, kept, lid);
        }
        var prefix = 0u;
        if tile > 0u {
            prefix = look_back_finish(tile, kept, lid);
        }
        write_kept(tile, bits, tile_counts, prefix, lid);
        if tile + 1u == params.tiles && lid == 0u {
            count[0] = prefix + kept;
        }
        // The next tile's rows are loaded here, not at the loop's top: run 140 measured that
        // form at 0.977 ms (2^28), run 141 this one at 0.891.
        let next = take_tile(lid);
        if next >= params.tiles {
            break;
        }
        rows = load_rows(next);
        tile = next;
    }
}
