// i64 keys as two 32-bit words, low word first (Rust's little-endian layout): the high word
// carries the sign and compares signed, the low word unsigned. No 64-bit shader integers needed.

alias Key = vec2<u32>;
// 32-bit words per key.
const KEY_WORDS: u32 = 2u;
// The first and the last key in ascending order (merge sort pads its last tile with the last).
const KEY_FIRST: Key = vec2(0u, 0x80000000u);
const KEY_LAST: Key = vec2(0xffffffffu, 0x7fffffffu);

fn key_less(x: Key, y: Key) -> bool {
    let x_hi = bitcast<i32>(x.y);
    let y_hi = bitcast<i32>(y.y);
    return (x_hi < y_hi) | ((x_hi == y_hi) & (x.x < y.x));
}

// The key's order-preserving bits, low word first (radix sort's digits): the sign bit flipped.
fn key_order_bits(x: Key) -> vec2<u32> {
    return vec2(x.x, x.y ^ 0x80000000u);
}

// The key's first word as stored (a kernel that keeps a word in a key's place, `Key(word)`, reads
// it back).
fn key_word(x: Key) -> u32 {
    return x.x;
}

// Word `w` of the key as stored (radix sort moves keys a word at a time), and the key of such
// words.
fn key_word_at(x: Key, w: u32) -> u32 {
    return x[w];
}
fn key_from_words(low: u32, high: u32) -> Key {
    return vec2(low, high);
}
