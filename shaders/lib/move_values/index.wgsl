// The first pass of a radix argsort: each key's value is its index in the input, written rather
// than read, so the indices need no pass (or upload) of their own.

@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

const MOVES_VALUES: bool = true;

fn move_value(src: u32, dst: u32) {
    values_out[dst] = src;
}

// What put_value takes for the value of input element `src`: its index.
fn load_value(src: u32) -> u32 {
    return src;
}

// Writes the value that load_value gave `word` for to element `dst`.
fn put_value(word: u32, dst: u32) {
    values_out[dst] = word;
}
