// Merge path, keys only: the merge keeps each output's key in registers, and the keys go back
// into the tile's own workgroup memory in output order (so a workgroup needs only one tile of
// it), from where they are written out coalesced.

// The invocation's merged keys, until store_merged() puts them in the tile.
var<private> merged: array<Key, MAX_ITEMS>;

// merge_tile may put the steps past the invocation's outputs: store_merged does not store them.
const PUT_PAST_END: bool = true;

// The r-th output of the invocation, tile output k: its key, from tile slot `slot`.
fn put_output(r: u32, k: u32, key: Key, slot: u32) {
    merged[r] = key;
}

// Puts the invocation's `n` merged keys at outputs d0.. of the tile, once every invocation has
// read its last key from it.
fn store_merged(d0: u32, n: u32) {
    workgroupBarrier();
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        if r < n { tile[d0 + r] = merged[r]; }
    }
}

// Writes the workgroup's `count` outputs, ranks k0.., coalesced.
fn write_back(lid: u32, k0: u32, count: u32, a_len: u32, a0: u32, b0: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count { out_keys[k0 + x] = tile[x]; }
    }
}
