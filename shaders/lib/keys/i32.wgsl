// i32 keys, stored as their bits: compared as two's-complement integers.

alias Key = u32;

fn key_less(x: Key, y: Key) -> bool {
    return bitcast<i32>(x) < bitcast<i32>(y);
}
