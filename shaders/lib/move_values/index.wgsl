// The first pass of a radix argsort: each key's value is its index in the input, written rather
// than read, so the indices need no pass (or upload) of their own.

@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

// Slots of `staged_sources` (radix sort: its tile).
override STAGED_VALUES: u32 = 1u;

// Where the key of each slot of a tile sorted in workgroup memory comes from.
var<workgroup> staged_sources: array<u32, STAGED_VALUES>;

fn move_value(src: u32, dst: u32) {
    values_out[dst] = src;
}

fn stage_value(slot: u32, src: u32) {
    staged_sources[slot] = src;
}

fn move_staged_value(slot: u32, dst: u32) {
    move_value(staged_sources[slot], dst);
}
