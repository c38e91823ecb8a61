// Merge sort, first pass: each workgroup sorts TILE consecutive keys of A into one sorted run (the
// last may be shorter), stably. TILE is merge path's tile (lib/merge_tile.wgsl), so the merge
// passes after it (merge_path.wgsl with params.run_len) take the same shape and each of their
// tiles lies in one pair of runs.
//
// The tile is loaded as merge path loads it (coalesced, every load in flight at once). Each
// invocation then sorts its own ITEMS_PER_THREAD keys in registers with an odd-even
// transposition network, and rounds of merges in workgroup memory double the run length: in each
// round every invocation co-ranks its outputs within its pair of runs and merges them
// (merge_tile), keeping them in registers until everyone has read the round's input. Neighbours
// swap only when strictly out of order and ties take the earlier run, so the sort is stable.
// With values, each key carries its tile slot (`origin`) and the values are gathered once, at
// the end.

#import lib/dispatch
#import lib/merge_io
#import lib/merge_tile

// Set when the pipeline is created: whether values move with the keys, and then the tile's size
// (1 otherwise, so a keys-only sort keeps no slots).
override WITH_VALUES: bool = false;
override ORIGIN_SLOTS: u32 = 1u;

// With values: origin[x] is the input slot (in the tile) of the key at tile slot x.
var<workgroup> origin: array<u32, ORIGIN_SLOTS>;

// The invocation's keys (and their origins) between rounds.
var<private> sorted: array<Key, MAX_ITEMS>;
var<private> sorted_origin: array<u32, MAX_ITEMS>;

// merge_tile's output: the r-th output of the invocation, from tile slot `slot`.
fn put_output(r: u32, k: u32, key: Key, slot: u32) {
    sorted[r] = key;
    if WITH_VALUES { sorted_origin[r] = origin[slot]; }
}

// Puts the invocation's `n` keys at tile slots d0.., once every invocation has read the round's
// input, and waits until every invocation has.
fn store_sorted(d0: u32, n: u32) {
    workgroupBarrier();
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        if r < n {
            tile[d0 + r] = sorted[r];
            if WITH_VALUES { origin[d0 + r] = sorted_origin[r]; }
        }
    }
    workgroupBarrier();
}

// Sorts the invocation's `n` keys, tile slots d0.., in registers: ITEMS_PER_THREAD rounds of
// compare-exchanges between neighbours, even pairs then odd ones. Every index is a constant once
// the loops are unrolled, so the keys stay in registers.
fn sort_registers(d0: u32, n: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        if r < n {
            sorted[r] = tile[d0 + r];
            sorted_origin[r] = d0 + r;
        }
    }
    for (var phase = 0u; phase < ITEMS_PER_THREAD; phase++) {
        for (var r = phase & 1u; r + 1u < ITEMS_PER_THREAD; r += 2u) {
            let x = sorted[r];
            let y = sorted[r + 1u];
            let swap = r + 1u < n && key_before(y, x);
            sorted[r] = select(x, y, swap);
            sorted[r + 1u] = select(y, x, swap);
            if WITH_VALUES {
                let ox = sorted_origin[r];
                let oy = sorted_origin[r + 1u];
                sorted_origin[r] = select(ox, oy, swap);
                sorted_origin[r + 1u] = select(oy, ox, swap);
            }
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn sort_block(@builtin(workgroup_id) workgroup_id: vec3<u32>,
              @builtin(num_workgroups) num_workgroups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let total = params.a_len;
    let k0 = group_index(workgroup_id, num_workgroups) * TILE;
    if k0 >= total { return; }
    let count = min(TILE, total - k0);
    // The tile is all A: one pair of runs with nothing in B.
    let range = TileRange(k0, count, k0, count, k0);
    load_range(range, lid);
    stage_loaded(range, lid);

    // This invocation's slots, [d0, d1).
    let d0 = min(lid * ITEMS_PER_THREAD, count);
    let d1 = min(d0 + ITEMS_PER_THREAD, count);
    sort_registers(d0, d1 - d0);
    store_sorted(d0, d1 - d0);

    // Runs of `width` become runs of 2 width. Each invocation's slots lie in one pair of runs
    // because width is ITEMS_PER_THREAD times a power of two.
    for (var width = ITEMS_PER_THREAD; width < count; width *= 2u) {
        let start = d0 / (2u * width) * (2u * width);
        let a_len = min(width, count - start);
        let b_len = min(width, count - start - a_len);
        a_start = start;
        a_count = start + a_len;
        merge_tile(d0 - start, d1 - start, a_len, b_len);
        store_sorted(d0, d1 - d0);
    }

    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count {
            var source = x;
            if WITH_VALUES { source = origin[x]; }
            write_output(k0 + x, tile[x], true, k0 + source);
        }
    }
}
