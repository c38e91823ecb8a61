// Merge sort's first pass (merge_sort.rs; entry point `sort_block`): each workgroup sorts TILE
// consecutive keys into one sorted run (the last may be shorter), stably. TILE is merge path's
// tile (lib/merge_tile.wgsl), so the merge passes after it (merge_path.wgsl with params.run_len)
// take the same shape and each of their tiles lies in one pair of runs.
//
// The tile is loaded as merge path loads it (coalesced, every load in flight at once), and a
// short last tile is padded with the key that sorts last, so every tile is full. Each
// invocation then sorts its own ITEMS_PER_THREAD keys in registers with an odd-even
// transposition network, and rounds of merges in workgroup memory double the run length: in each
// round every invocation co-ranks its outputs within its pair of runs and merges them
// (merge_tile), keeping them in registers until everyone has read the round's input. Neighbours
// swap only when strictly out of order and ties take the earlier run, so the sort is stable.
// What moves with the keys comes from the `stage` parameter: lib/sort_block/keys.wgsl (nothing)
// or lib/sort_block/pairs.wgsl (each key's origin, and the values gathered at the end).

#import lib/dispatch
#import lib/merge_io
#import lib/merge_tile
#import stage

// Set when the pipeline is created: true sorts the output buffer's keys (and values) in place,
// where an even number of merge passes follows, so that the last of them ends in the caller's
// buffer without a copy. Each workgroup reads its whole tile before it writes any of it.
override IN_PLACE: bool = false;

// The invocation's keys between rounds.
var<private> sorted: array<Key, MAX_ITEMS>;

// Every tile is full (sort_block pads the last), so merge_tile's steps are all the invocation's
// outputs, each `slot` in the tile.
const PUT_PAST_END: bool = true;

// merge_tile's output: the r-th output of the invocation, from tile slot `slot`.
fn put_output(r: u32, k: u32, key: Key, slot: u32) {
    sorted[r] = key;
    take_origin(r, slot);
}

// Puts the invocation's keys at tile slots d0.., once every invocation has read the round's
// input, and waits until every invocation has.
fn store_sorted(d0: u32) {
    workgroupBarrier();
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        tile[d0 + r] = sorted[r];
        store_origin(d0 + r, r);
    }
    workgroupBarrier();
}

// Sorts the invocation's keys, tile slots d0.., in registers: rounds of compare-exchanges
// between neighbours, even pairs then odd ones, ITEMS_PER_THREAD + 1 rounds in all. Each loop
// has constant bounds so that the driver unrolls it and every index becomes a constant, which
// keeps the keys in registers (run 70: one loop starting at `phase & 1` was not unrolled and
// cost 3.5x the whole block sort's network).
fn sort_registers(d0: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        sorted[r] = tile[d0 + r];
        start_origin(r, d0 + r);
    }
    for (var phase = 0u; phase < (ITEMS_PER_THREAD + 1u) / 2u; phase++) {
        for (var r = 0u; r + 1u < ITEMS_PER_THREAD; r += 2u) {
            compare_exchange(r);
        }
        for (var r = 1u; r + 1u < ITEMS_PER_THREAD; r += 2u) {
            compare_exchange(r);
        }
    }
}

// Orders the invocation's keys r and r + 1, swapping them only when strictly out of order.
fn compare_exchange(r: u32) {
    let x = sorted[r];
    let y = sorted[r + 1u];
    let swap = key_before(y, x);
    sorted[r] = select(x, y, swap);
    sorted[r + 1u] = select(y, x, swap);
    swap_origins(r, swap);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn sort_block(@builtin(workgroup_id) workgroup_id: vec3<u32>,
              @builtin(num_workgroups) num_workgroups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let total = params.a_len;
    let k0 = group_index(workgroup_id, num_workgroups) * TILE;
    if k0 >= total { return; }
    let count = min(TILE, total - k0);
    // A short last tile is padded to TILE with the last key, which a stable sort leaves behind
    // every real key: so every tile is full, and each invocation's slots, loads and stores
    // follow from its index alone, with no condition (run 289 on the H100: 0.3-1.2% faster
    // than the counts checked at every store and exchange, keys and pairs).
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        var key = key_last();
        if x < count {
            if IN_PLACE {
                key = out_keys[k0 + x];
            } else {
                key = a_keys[k0 + x];
            }
        }
        loaded[r] = key;
    }
    // The padded tile is all A: one pair of runs with nothing in B.
    stage_loaded(TileRange(k0, TILE, k0, TILE, k0), lid);

    // This invocation's slots, [d0, d0 + ITEMS_PER_THREAD).
    let d0 = lid * ITEMS_PER_THREAD;
    sort_registers(d0);
    store_sorted(d0);

    // Each round merges pairs of runs of `width` into runs of 2 width, `lanes` invocations (a
    // power of two) a pair, so the pair's first slot comes from a mask, not a division by 2 width
    // (which the driver emulates in about 20 instructions, run 234). One loop variable, the
    // other derived: run 246, level.
    for (var lanes = 2u; lanes / 2u < WORKGROUP_SIZE; lanes *= 2u) {
        let width = lanes / 2u * ITEMS_PER_THREAD;
        let start = (lid & ~(lanes - 1u)) * ITEMS_PER_THREAD;
        let a_len = min(width, TILE - start);
        let b_len = min(width, TILE - start - a_len);
        a_start = start;
        a_count = start + a_len;
        merge_tile(d0 - start, d0 - start + ITEMS_PER_THREAD, a_len, b_len);
        store_sorted(d0);
    }
    write_tile(lid, k0, count);
}
