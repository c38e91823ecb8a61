// The merge order. Every kernel compares keys only through `key_before`; the key module (the
// `key` parameter: one of lib/keys/*.wgsl) supplies `Key`, its ascending `key_less`, and its
// first and last keys in that order (`KEY_FIRST`, `KEY_LAST`).
//
// naga lowers every `&&` and `||` to a branch, as WGSL short-circuits them, and NVIDIA's compiler
// keeps nested ones: merge_tile's merge took a branch at every step (run 234, the driver's own
// code). So the kernels' hot loops combine conditions with `&` and `|`, which evaluate both
// sides, wherever both are safe to evaluate: merge sort 7% faster, intersection 12%, merge 2-4%
// (run 236). Conditions that guard a read keep `&&`.

#import key

// Set when the pipeline is created: true merges descending inputs into a descending output.
override DESCENDING: bool = false;

// True when `x` must be written before `y`. The merge stays stable because an element of B is
// taken ahead of an element of A only when it is strictly before it.
fn key_before(x: Key, y: Key) -> bool {
    return select(key_less(x, y), key_less(y, x), DESCENDING);
}

// The key that no key comes before in the merge order: stable sorts pad a tile's end with it,
// and the pads stay behind every real key, equal ones included.
fn key_last() -> Key {
    return select(KEY_LAST, KEY_FIRST, DESCENDING);
}
