// The key type and its order. Every kernel compares keys only through `key_before`, so a new key
// type or order is one variant of this module.

alias Key = u32;

// True when `x` must be written before `y`. The merge stays stable because an element of B is
// taken ahead of an element of A only when it is strictly smaller.
fn key_before(x: Key, y: Key) -> bool {
    return x < y;
}
