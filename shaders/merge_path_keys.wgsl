// Merge path, keys only: the merge stages each output's key itself, so writing an output back
// is one read of workgroup memory.

alias Staged = Key;

fn stage(key: Key, slot: u32) -> Staged {
    return key;
}

// Writes the workgroup's `count` outputs, ranks k0.., coalesced.
fn write_back(lid: u32, k0: u32, count: u32, a_len: u32, a0: u32, b0: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count { out_keys[k0 + x] = staged[x]; }
    }
}
