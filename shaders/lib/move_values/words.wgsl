// Values moved with their keys by radix sort's scatter and by compaction, as VALUE_WORDS 32-bit
// words each (4- or 8-byte values), copied bit for bit.

@group(0) @binding(4) var<storage, read> values_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

override VALUE_WORDS: u32 = 1u;
// Slots of `staged_values` (radix sort: its tile).
override STAGED_VALUES: u32 = 1u;

// Per slot of a tile sorted in workgroup memory: a 4-byte value itself, or where an 8-byte value
// comes from. One word a slot either way, as tuning::radix_staged_bytes counts (staging 8-byte
// values whole would not fit 16 KiB devices' workgroup memory with 64-bit keys).
var<workgroup> staged_values: array<u32, STAGED_VALUES>;

fn move_value(src: u32, dst: u32) {
    for (var w = 0u; w < VALUE_WORDS; w++) {
        values_out[dst * VALUE_WORDS + w] = values_in[src * VALUE_WORDS + w];
    }
}

// What stage_value keeps of the value of input element `src`: a 4-byte value, read here (in the
// input's order, so coalesced), or an 8-byte value's index, read when it is written.
fn load_value(src: u32) -> u32 {
    if VALUE_WORDS == 1u {
        return values_in[src];
    }
    return src;
}

fn stage_value(slot: u32, value: u32) {
    staged_values[slot] = value;
}

fn put_staged_value(slot: u32, dst: u32) {
    let staged = staged_values[slot];
    if VALUE_WORDS == 1u {
        values_out[dst] = staged;
    } else {
        move_value(staged, dst);
    }
}
