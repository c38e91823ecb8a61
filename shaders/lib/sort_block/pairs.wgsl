// Merge sort's block sort (merge_sort.wgsl) with values: each key carries the tile slot it was
// loaded from (its origin) through every round, and the values are gathered once, at the end.

// origin[x]: the input slot of the key at tile slot x, between rounds.
var<workgroup> origin: array<u32, TILE>;
// The origins of the invocation's keys, beside `sorted`.
var<private> sorted_origin: array<u32, MAX_ITEMS>;

// The invocation's r-th key was loaded from tile slot `slot`.
fn start_origin(r: u32, slot: u32) {
    sorted_origin[r] = slot;
}

// Swaps the origins of keys r and r + 1 where the keys were swapped.
fn swap_origins(r: u32, swap: bool) {
    let x = sorted_origin[r];
    let y = sorted_origin[r + 1u];
    sorted_origin[r] = select(x, y, swap);
    sorted_origin[r + 1u] = select(y, x, swap);
}

// The invocation's r-th output is the key at tile slot `slot`.
fn take_origin(r: u32, slot: u32) {
    sorted_origin[r] = origin[slot];
}

// The invocation's r-th key goes to tile slot x.
fn store_origin(x: u32, r: u32) {
    origin[x] = sorted_origin[r];
}

// Writes the sorted tile, `count` keys from rank k0, and their values, coalesced. Every value is
// read before any is written: in place, the tile's values are read from where they are written.
fn write_tile(lid: u32, k0: u32, count: u32) {
    var values: array<Value, MAX_ITEMS>;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count {
            out_keys[k0 + x] = tile[x];
            let source = k0 + origin[x];
            if IN_PLACE {
                values[r] = out_values[source];
            } else {
                values[r] = read_value(true, source);
            }
        }
    }
    storageBarrier();
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count { out_values[k0 + x] = values[r]; }
    }
}
