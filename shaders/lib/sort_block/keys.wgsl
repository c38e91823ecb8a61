// Merge sort's block sort (merge_sort.wgsl), keys only: nothing moves but the keys, so every
// hook for the keys' origins is empty.

fn start_origin(r: u32, slot: u32) {}
fn swap_origins(r: u32, swap: bool) {}
fn take_origin(r: u32, slot: u32) {}
fn store_origin(x: u32, r: u32) {}

// Writes the sorted tile, `count` keys from rank k0, coalesced.
fn write_tile(lid: u32, k0: u32, count: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count { out_keys[k0 + x] = tile[x]; }
    }
}
