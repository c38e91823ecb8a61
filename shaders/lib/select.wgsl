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
// A tile is WORKGROUP_SIZE * ROWS * ROW_KEYS keys. Each invocation takes ROWS rows of its lane
// group's part of the tile (scan.wgsl's layout: a row of a group is contiguous, so loads
// coalesce), and the lanes scan their rows' counts (`lanes`: lib/workgroup_scan/subgroups.wgsl or
// plain.wgsl). lib/look_back.wgsl gives each tile the number kept before it, so the input is read
// once and nothing but the kept keys is written: their sources staged in workgroup memory, then
// written by consecutive invocations (the kept keys read again, from cache). The keys are bound
// by `keys_in` (lib/select_io: whole vec4s for 4-byte keys where the buffer allows, else one key
// an element), which also sets ROW_KEYS.
//
// A workgroup takes tiles in turn from the look-back's counter (run 138, dedup of 2^28 keys on
// the H100: 0.892 ms against 0.971 with one tile a workgroup). Unlike scan.wgsl, it does not load
// the next tile before it waits on this tile's predecessors: holding those rows in registers
// through the wait made dedup 1.51 ms (runs 138-139), 2.3x slower in run 174. What it does
// during the wait is stage its first chunk of sources, which needs only the tile's own counts
// (run 174: 2.4% faster).

#import key
#import keys_in
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
@group(0) @binding(2) var<storage, read_write> keys_out: array<Key>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
// count[0] receives the number kept.
@group(0) @binding(7) var<storage, read_write> count: array<u32>;

override WORKGROUP_SIZE: u32 = 256u;
// Rows per invocation; a row is ROW_KEYS keys (lib/select_io: 8 of 4 bytes, 4 of 8), and
// tuning::select_items gives the host ROWS * ROW_KEYS. Run 177, dedup of 2^28 u32 keys on the
// H100: 4 rows of 8 keys 0.570 ms, 8 rows of 4 0.593, 4 rows of 4 (tiles of 4096) 0.705: more
// keys a tile, fewer look-backs; run 178: 2 rows of 16 0.707, 3 of 8 0.614. u64 keys at 2^26:
// rows of 4 0.298 ms (run 181), of 8 0.388 (run 180), the kernel before 0.327. ROWS * ROW_KEYS
// is at most 32: a tile's kept bits are one word an invocation.
const ROWS: u32 = 4u;

struct Row {
    keys: array<Key, ROW_KEYS>,
    edge: Key,
}
alias Rows = array<Row, ROWS>;

// Places of the tile's output staged at once, a quarter of the tile: the kept keys' sources. Run
// 176, dedup of 2^28 u32 keys on the H100 in tiles of 8192 (8 rows of 4): 0.593 ms at 2048, 0.648
// at 2560, 0.788 at 4096, 0.667 at 1024 (run 175); run 170 in tiles of 4096: 1024 fastest. The
// larger arrays cost occupancy and cache, as in run 156.
const STAGE: u32 = ROWS * ROW_KEYS * 64u;
var<workgroup> wg_sources: array<u32, STAGE>;
var<workgroup> wg_kept: u32;

// The first key of this invocation's row k of tile `tile`.
fn row_first(tile: u32, k: u32) -> u32 {
    return (tile * WORKGROUP_SIZE * ROWS + lane_group_base * ROWS + k * lanes + lane) * ROW_KEYS;
}

// The row of ROW_KEYS keys from `first`, one key_at a time; keys at or beyond params.len read as
// zero (lib/select_io's load_row, or its tail).
fn load_row_by_key(first: u32) -> array<Key, ROW_KEYS> {
    var keys: array<Key, ROW_KEYS>;
    for (var c = 0u; c < ROW_KEYS; c++) {
        if first + c < params.len {
            keys[c] = key_at(first + c);
        }
    }
    return keys;
}

// The invocation's rows of `tile`, as loaded.
fn load_rows(tile: u32) -> Rows {
    var rows: Rows;
    for (var k = 0u; k < ROWS; k++) {
        let first = row_first(tile, k);
        rows[k].keys = load_row(first);
        rows[k].edge = row_edge(first);
    }
    return rows;
}

// Per row k of `rows` (of `tile`), a bit for each key kept, at bits k * ROW_KEYS on of one word:
// the tile's decisions stay live through the look-back's wait, so they are kept small.
fn kept_mask(tile: u32, rows: Rows) -> u32 {
    var mask = 0u;
    for (var k = 0u; k < ROWS; k++) {
        mask |= row_kept(row_first(tile, k), rows[k]) << (k * ROW_KEYS);
    }
    return mask;
}

// Row k's bits of `mask`.
fn row_bits(mask: u32, k: u32) -> u32 {
    return (mask >> (k * ROW_KEYS)) & ((1u << ROW_KEYS) - 1u);
}

// The rows' counts scanned across the tile: every invocation calls it.
struct TileCounts {
    // Row k's first place among the tile's kept keys.
    places: array<u32, ROWS>,
    // The tile's count.
    kept: u32,
}
fn scan_counts(mask: u32) -> TileCounts {
    // A row keeps at most ROW_KEYS keys and a group has at most 1024 lanes, so a row's count
    // summed over a group fits in 16 bits: two rows go through the lane scan in one word (run
    // 167: dedup 2% faster at 2^26 and 2^28 than one a word).
    var packed = vec4(0u);
    for (var k = 0u; k < ROWS; k++) {
        packed[k / 2u] |= countOneBits(row_bits(mask, k)) << (16u * (k % 2u));
    }
    let scanned = lanes_exclusive(packed);
    var places: array<u32, ROWS>;
    var running = 0u;
    for (var k = 0u; k < ROWS; k++) {
        let shift = 16u * (k % 2u);
        places[k] = running + ((scanned.exclusive[k / 2u] >> shift) & 0xffffu);
        running += (scanned.total[k / 2u] >> shift) & 0xffffu;
    }
    let group = groups_exclusive(running);
    for (var k = 0u; k < ROWS; k++) {
        places[k] += group.x;
    }
    return TileCounts(places, group.y);
}

// lib/look_back.wgsl's hooks.
fn look_back_base() -> u32 {
    return 0u;
}
fn look_back_fallback(tile: u32) -> u32 {
    return scan_counts(kept_mask(tile, load_rows(tile))).kept;
}
fn look_back_origin() -> u32 {
    return 0u;
}

// Stages the sources of tile `tile`'s kept keys (kept `mask`) at places [chunk, chunk + STAGE)
// of its output; no barrier.
fn stage_chunk(tile: u32, mask: u32, tile_counts: TileCounts, chunk: u32) {
    for (var k = 0u; k < ROWS; k++) {
        var place = tile_counts.places[k];
        let bits = row_bits(mask, k);
        let first = row_first(tile, k);
        for (var c = 0u; c < ROW_KEYS; c++) {
            if (bits & (1u << c)) != 0u {
                if place >= chunk && place < chunk + STAGE {
                    wg_sources[place - chunk] = first + c;
                }
                place++;
            }
        }
    }
}

// Writes tile `tile`'s kept keys (kept `mask`) from place `prefix` on, STAGE places at a time,
// staged in workgroup memory then written by consecutive invocations, so the writes coalesce. The
// first chunk is staged already (stage_chunk, before the look-back's wait). Every invocation
// calls it.
fn write_kept(tile: u32, mask: u32, tile_counts: TileCounts, prefix: u32, lid: u32) {
    if lid == 0u {
        wg_kept = tile_counts.kept;
    }
    let tile_kept = workgroupUniformLoad(&wg_kept);
    for (var chunk = 0u; chunk < tile_kept; chunk += STAGE) {
        if chunk > 0u {
            stage_chunk(tile, mask, tile_counts, chunk);
        }
        workgroupBarrier();
        let staged = min(STAGE, tile_kept - chunk);
        for (var x = lid; x < staged; x += WORKGROUP_SIZE) {
            let source = wg_sources[x];
            keys_out[prefix + chunk + x] = key_at(source);
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
        let mask = kept_mask(tile, rows);
        let tile_counts = scan_counts(mask);
        let kept = tile_counts.kept;
        if tile == 0u {
            publish_first(kept, lid);
        } else {
            look_back_start(tile, kept, lid);
        }
        // The previous tile's last barrier has passed: its sources are read.
        stage_chunk(tile, mask, tile_counts, 0u);
        var prefix = 0u;
        if tile > 0u {
            prefix = look_back_finish(tile, kept, lid);
        }
        write_kept(tile, mask, tile_counts, prefix, lid);
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
