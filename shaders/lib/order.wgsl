// The merge order. Every kernel compares keys only through `key_before`; the key module (the
// `key` parameter: one of lib/keys/*.wgsl) supplies `Key` and its ascending `key_less`.

#import key

// Set when the pipeline is created: true merges descending inputs into a descending output.
override DESCENDING: bool = false;

// True when `x` must be written before `y`. The merge stays stable because an element of B is
// taken ahead of an element of A only when it is strictly before it.
fn key_before(x: Key, y: Key) -> bool {
    return select(key_less(x, y), key_less(y, x), DESCENDING);
}
