// Merge path with values: the merge records each output's tile slot in workgroup memory as it
// goes (holding nothing in registers), which gives the output's key and the index of its value
// in A or B.

// staged[k]: the tile slot of the workgroup's k-th output.
var<workgroup> staged: array<u32, TILE>;

// merge_tile puts only the invocation's own outputs: a step past them would write another
// invocation's slot in workgroup memory.
const PUT_PAST_END: bool = false;

// The r-th output of the invocation, tile output k: its key, from tile slot `slot`.
fn put_output(r: u32, k: u32, key: Key, slot: u32) {
    staged[k] = slot;
}

// The slots are in workgroup memory already.
fn store_merged(d0: u32, n: u32) {}

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
            let src = select(b0 + slot - a_len, a0 + slot, from_a);
            // Where B is A's buffer bound again (lib/merge_tile.wgsl: ONE_BUFFER), one load from
            // either (run 325: sorts of pairs 0.3% faster).
            if ONE_BUFFER {
                values[r] = a_values[src];
            } else {
                values[r] = read_value(from_a, src);
            }
        }
    }
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < count { out_values[k0 + x] = values[r]; }
    }
}
