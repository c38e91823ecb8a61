// Merge path with values: the merge stages each output's tile slot, which gives its key and the
// index of its value in A or B.

alias Staged = u32;

// staged[k]: the tile slot of the workgroup's k-th output.
var<workgroup> staged: array<Staged, TILE>;

fn stage(key: Key, slot: u32) -> Staged {
    return slot;
}

// Records the invocation's `n` merged slots as outputs d0.. of the tile.
fn store_merged(d0: u32, n: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        if r < n { staged[d0 + r] = merged[r]; }
    }
}

// Writes the workgroup's `count` outputs, ranks k0.., coalesced. The values are gathered from A
// and B: every read is issued before the first value is written, as for the tile's keys.
fn write_back(lid: u32, k0: u32, count: u32, a_len: u32, a0: u32, b0: u32) {
    var values: array<Value, MAX_ITEMS>;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count {
            // Clamped so that unsorted input stays in the tile.
            let slot = min(staged[x], count - 1u);
            let from_a = slot < a_len;
            out_keys[k0 + x] = tile[slot];
            values[r] = read_value(from_a, select(b0 + slot - a_len, a0 + slot, from_a));
        }
    }
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count { out_values[k0 + x] = values[r]; }
    }
}
