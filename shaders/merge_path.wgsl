// Merge path's merge pass (the partition pass, partition.wgsl, has put every tile's boundary in
// `splits`). Each workgroup merges TILE consecutive outputs (lib/merge_tile.wgsl: coalesced loads
// into workgroup memory, a branchless merge per invocation) and writes them back coalesced: every
// key is read once and written once.
//
// What the merge keeps of each output and how it is written back comes from the `stage`
// parameter: lib/merge_path/keys.wgsl (the key, in registers until it goes back into the tile's
// own memory) or lib/merge_path/pairs.wgsl (its tile slot, straight into workgroup memory, for its
// key and value). ITEMS_PER_THREAD is best odd: invocations store their outputs at that stride,
// and an odd stride touches every memory bank once.
//
// merge_path gives each workgroup one tile; merge_path_tiles gives it several consecutive tiles
// and loads each while merging the one before; merge_path_chunks does the same with chunks of
// consecutive tiles that its workgroups take from a counter until none is left.
//
// Sort's merge passes and the many-way merge's use the same passes on many merges at once, each
// tile in one segment (lib/segments.wgsl): how tiles fall into segments is the `tiling` parameter
// (lib/tiling/runs.wgsl for params.run_len, lib/tiling/table.wgsl for segments the host lists).

#import lib/dispatch
#import lib/merge_io
#import lib/merge_tile
#import stage
#import tiling

// splits[g] = elements of A (of its segment) before output g * TILE; the last entry closes the
// last tile. Written by partition.wgsl.
@group(0) @binding(7) var<storage, read_write> splits: array<u32>;

// Tile g of the merge, with its boundaries from the partition.
fn path_tile(g: u32) -> TileRange {
    let placed = place_tile(g, TILE, params.a_len, params.b_len, params.run_len);
    return tile_range(placed.k0, splits[g], splits[g + 1u], placed.segment);
}

// Merges the staged tile of `range` and writes its outputs.
fn merge_staged(range: TileRange, lid: u32) {
    let outputs = invocation_outputs(range.count, lid);
    merge_tile(outputs.x, outputs.y, range.a_len, range.count - range.a_len);
    store_merged(outputs.x, outputs.y - outputs.x);
    workgroupBarrier();
    write_back(lid, range.k0, range.count, range.a_len, range.a0, range.b0);
}

// One tile per workgroup.
@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_path(@builtin(workgroup_id) workgroup_id: vec3<u32>,
              @builtin(num_workgroups) num_workgroups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let g = group_index(workgroup_id, num_workgroups);
    if g >= tile_count(params.a_len + params.b_len, TILE) { return; }
    let range = path_tile(g);
    load_range(range, lid);
    stage_loaded(range, lid);
    merge_staged(range, lid);
}

// params.tiles_per_group consecutive tiles per workgroup. Each tile's loads are issued before the
// previous tile is merged, so memory stays busy while the workgroup merges; this pays for long
// merges (docs/tuning-log.md, runs 19-23), while a workgroup per tile (merge_path) is better for
// short ones, which need every workgroup they can get.
@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_path_tiles(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                    @builtin(num_workgroups) num_workgroups: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let tiles = tile_count(params.a_len + params.b_len, TILE);
    var g = group_index(workgroup_id, num_workgroups) * params.tiles_per_group;
    if g >= tiles { return; }
    let last = min(g + params.tiles_per_group, tiles) - 1u;
    var range = path_tile(g);
    load_range(range, lid);
    loop {
        stage_loaded(range, lid);
        var next = range;
        if g < last {
            next = path_tile(g + 1u);
            load_range(next, lid);
        }
        merge_staged(range, lid);
        if g >= last { break; }
        // Everyone has written this tile's outputs before the next tile overwrites it.
        workgroupBarrier();
        range = next;
        g += 1u;
    }
}

// Chunks taken by merge_path_chunks' workgroups so far, zeroed by the partition pass before it
// (merge.rs binds it for that kernel only).
@group(0) @binding(8) var<storage, read_write> chunk_counter: atomic<u32>;
// A chunk taken by invocation 0, for the whole workgroup.
var<workgroup> next_chunk: u32;
// Most tiles a workgroup takes chunks up to (tuning.rs: most_tiles_per_workgroup, which sets it
// and says why: llvmpipe stops an invocation's loops after about 65,535 iterations in all). The
// chunks a workgroup leaves go to later ones; a GPU runs about 90 tiles per workgroup of a 2^28
// keys merge, below this for every shape.
override MOST_TILES: u32 = 1u;

// params.tiles_per_group consecutive tiles at a time: each workgroup takes a chunk from the
// counter, merges its tiles as merge_path_tiles does, and takes the next chunk while it merges
// the first tile of this one, until no chunk is left. So the workgroups the device runs at once
// share the work in one wave, whatever their number, and each loads its next tile while it
// merges (docs/tuning-log.md, runs 32 and 37-39). One workgroup is dispatched per chunk, so every
// chunk is taken whether or not the device runs them at once; those that find none left stop.
@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_path_chunks(@builtin(local_invocation_index) lid: u32) {
    let tiles = tile_count(params.a_len + params.b_len, TILE);
    let size = params.tiles_per_group;
    let chunks = (tiles + size - 1u) / size;
    if lid == 0u { next_chunk = atomicAdd(&chunk_counter, 1u); }
    let chunk = workgroupUniformLoad(&next_chunk);
    if chunk >= chunks { return; }
    var g = chunk * size;
    // The current chunk's first and last tiles, and the tiles taken so far.
    var first = g;
    var last = min(g + size, tiles) - 1u;
    var taken = last + 1u - g;
    var range = path_tile(g);
    load_range(range, lid);
    loop {
        stage_loaded(range, lid);
        // Everyone has read next_chunk since it was last written (barriers since).
        if lid == 0u && g == first {
            var taking = chunks;
            if taken + size <= MOST_TILES { taking = atomicAdd(&chunk_counter, 1u); }
            next_chunk = taking;
        }
        var next_g = g + 1u;
        var more = g < last;
        if g >= last {
            let taking = workgroupUniformLoad(&next_chunk);
            more = taking < chunks;
            next_g = taking * size;
        }
        var next = range;
        if more {
            next = path_tile(next_g);
            load_range(next, lid);
        }
        merge_staged(range, lid);
        if !more { break; }
        // Everyone has written this tile's outputs before the next tile overwrites it.
        workgroupBarrier();
        if g >= last {
            first = next_g;
            last = min(next_g + size, tiles) - 1u;
            taken += last + 1u - next_g;
        }
        range = next;
        g = next_g;
    }
}
