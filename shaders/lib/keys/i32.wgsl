// i32 keys, stored as their bits: compared as two's-complement integers.

alias Key = u32;
// 32-bit words per key.
const KEY_WORDS: u32 = 1u;
// The first and the last key in ascending order (merge sort pads its last tile with the last).
const KEY_FIRST: Key = 0x80000000u;
const KEY_LAST: Key = 0x7fffffffu;

fn key_less(x: Key, y: Key) -> bool {
    return bitcast<i32>(x) < bitcast<i32>(y);
}

// The key's order-preserving bits, low word first (radix sort's digits): the sign bit flipped.
fn key_order_bits(x: Key) -> vec2<u32> {
    return vec2(x ^ 0x80000000u, 0u);
}

// The key's first word as stored (a kernel that keeps a word in a key's place, `Key(word)`, reads
// it back).
fn key_word(x: Key) -> u32 {
    return x;
}

// Word `w` of the key as stored (radix sort moves keys a word at a time), and the key of such
// words.
fn key_word_at(x: Key, w: u32) -> u32 {
    return x;
}
fn key_from_words(low: u32, high: u32) -> Key {
    return low;
}
