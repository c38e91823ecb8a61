// Values moved with their keys by radix sort's scatter and by compaction, as VALUE_WORDS 32-bit
// words each (4- or 8-byte values), copied bit for bit.

@group(0) @binding(4) var<storage, read> values_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

override VALUE_WORDS: u32 = 1u;

const MOVES_VALUES: bool = true;

fn move_value(src: u32, dst: u32) {
    for (var w = 0u; w < VALUE_WORDS; w++) {
        values_out[dst * VALUE_WORDS + w] = values_in[src * VALUE_WORDS + w];
    }
}

// One word for the value of input element `src`, which a radix sort tile sorts through its keys'
// slots in workgroup memory: a 4-byte value itself, read here (in the input's order, so
// coalesced), or an 8-byte value's index, read when it is written (a 4-byte key's slot holds one
// word).
fn load_value(src: u32) -> u32 {
    if VALUE_WORDS == 1u {
        return values_in[src];
    }
    return src;
}

// Writes the value that load_value gave `word` for to element `dst`.
fn put_value(word: u32, dst: u32) {
    if VALUE_WORDS == 1u {
        values_out[dst] = word;
    } else {
        move_value(word, dst);
    }
}
