// The first pass of a radix argsort: each key's value is its index in the input, written rather
// than read, so the indices need no pass (or upload) of their own.

@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

// Slots of `staged_values` (radix sort: its tile).
override STAGED_VALUES: u32 = 1u;

// The value of each slot of a tile sorted in workgroup memory: its key's index.
var<workgroup> staged_values: array<u32, STAGED_VALUES>;

fn move_value(src: u32, dst: u32) {
    values_out[dst] = src;
}

// What stage_value keeps of the value of input element `src`: its index.
fn load_value(src: u32) -> u32 {
    return src;
}

fn stage_value(slot: u32, value: u32) {
    staged_values[slot] = value;
}

fn put_staged_value(slot: u32, dst: u32) {
    values_out[dst] = staged_values[slot];
}
