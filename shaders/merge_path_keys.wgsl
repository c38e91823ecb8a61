// Merge path, keys only: the merge keeps each output's key itself, and the keys go back into the
// tile's own workgroup memory in output order (so a workgroup needs only one tile of it), from
// where they are written out coalesced.

alias Staged = Key;

fn stage(key: Key, slot: u32) -> Staged {
    return key;
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
