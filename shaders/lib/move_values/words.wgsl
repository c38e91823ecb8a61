// Values moved with their keys by radix sort's scatter and by compaction, as VALUE_WORDS 32-bit
// words each (4- or 8-byte values), copied bit for bit.

@group(0) @binding(4) var<storage, read> values_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

override VALUE_WORDS: u32 = 1u;
// Slots of `staged_sources` (radix sort: its tile).
override STAGED_VALUES: u32 = 1u;

// Where the value of each slot of a tile sorted in workgroup memory comes from.
var<workgroup> staged_sources: array<u32, STAGED_VALUES>;

fn move_value(src: u32, dst: u32) {
    for (var w = 0u; w < VALUE_WORDS; w++) {
        values_out[dst * VALUE_WORDS + w] = values_in[src * VALUE_WORDS + w];
    }
}

fn stage_value(slot: u32, src: u32) {
    staged_sources[slot] = src;
}

fn move_staged_value(slot: u32, dst: u32) {
    move_value(staged_sources[slot], dst);
}
