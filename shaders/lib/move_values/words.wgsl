// Values moved with their keys by radix sort's scatter, as VALUE_WORDS 32-bit words each (4- or
// 8-byte values), copied bit for bit.

@group(0) @binding(4) var<storage, read> values_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

override VALUE_WORDS: u32 = 1u;

fn move_value(src: u32, dst: u32) {
    for (var w = 0u; w < VALUE_WORDS; w++) {
        values_out[dst * VALUE_WORDS + w] = values_in[src * VALUE_WORDS + w];
    }
}
