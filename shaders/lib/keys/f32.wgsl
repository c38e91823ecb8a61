// f32 keys, stored as their bits, in the order of Rust's f32::total_cmp: -NaN < -inf < ... <
// -0.0 < +0.0 < ... < +inf < +NaN. Flipping every bit of a negative float and the sign bit of a
// positive one makes that order the unsigned order of the bits, so no float comparison (and no
// NaN rule of the driver) is involved.

alias Key = u32;
// 32-bit words per key.
const KEY_WORDS: u32 = 1u;
// The first and the last key in ascending order (merge sort pads its last tile with the last).
const KEY_FIRST: Key = 0xffffffffu;
const KEY_LAST: Key = 0x7fffffffu;

fn total_order_bits(x: u32) -> u32 {
    return select(x | 0x80000000u, ~x, (x & 0x80000000u) != 0u);
}

fn key_less(x: Key, y: Key) -> bool {
    return total_order_bits(x) < total_order_bits(y);
}

// The key's order-preserving bits, low word first (radix sort's digits).
fn key_order_bits(x: Key) -> vec2<u32> {
    return vec2(total_order_bits(x), 0u);
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
