// The two primitives of the ordered merge, written once for every kernel: co-rank and the
// sequential merge. They read their inputs through accessors that each kernel defines,
//
//     fn read_a(space: u32, i: u32) -> Key
//     fn read_b(space: u32, j: u32) -> Key
//     fn emit(space: u32, k: u32, key: Key, from_a: bool, src: u32)
//
// where `space` names the memory being read (global, tile, ring). It is a literal at every call
// site, so the driver's compiler specialises each call after inlining.

const SPACE_GLOBAL: u32 = 0u;
const SPACE_TILE: u32 = 1u;

// Co-rank of output rank `k` in the stable merge of A[0..m) and B[0..n): the number `i` of A's
// elements among the first `k` outputs (the rest, j = k - i, come from B). It is the `i` with
// A[i-1] <= B[j] and B[j-1] < A[i], found by binary search over i. For k > m + n (possible only
// with unsorted input) the result is clamped so callers never index outside either input.
fn co_rank(space: u32, k: u32, m: u32, n: u32) -> u32 {
    var hi = min(k, m);
    var lo = min(select(0u, k - n, k > n), hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        // A[mid] is among the first k unless B[k-1-mid] is strictly smaller (ties take A first).
        if key_before(read_b(space, k - 1u - mid), read_a(space, mid)) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    return lo;
}

// Writes `count` outputs, ranks k_start.., by merging A[i..i_end) and B[j..j_end). The loop runs
// exactly `count` times whatever the bounds say, so unsorted input can give a wrong answer but
// never an endless loop.
fn merge_sequential(space: u32, i_start: u32, i_end: u32, j_start: u32, j_end: u32,
                    k_start: u32, count: u32) {
    var i = i_start;
    var j = j_start;
    var key_a: Key;
    var key_b: Key;
    if i < i_end { key_a = read_a(space, i); }
    if j < j_end { key_b = read_b(space, j); }
    for (var k = 0u; k < count; k++) {
        let take_a = i < i_end && (j >= j_end || !key_before(key_b, key_a));
        if take_a {
            emit(space, k_start + k, key_a, true, i);
            i++;
            if i < i_end { key_a = read_a(space, i); }
        } else {
            emit(space, k_start + k, key_b, false, j);
            j++;
            if j < j_end { key_b = read_b(space, j); }
        }
    }
}

// Co-ranks both ends of the output range [k0, k1) and merges it: the step every kernel takes once
// it knows which part of the output an invocation owns.
fn merge_range(space: u32, k0: u32, k1: u32, m: u32, n: u32) {
    let i0 = co_rank(space, k0, m, n);
    let i1 = max(i0, co_rank(space, k1, m, n));
    let j0 = k0 - i0;
    merge_sequential(space, i0, i1, j0, max(j0, k1 - i1), k0, k1 - k0);
}

// What is left of `len` after `used`, never wrapping below zero.
fn remaining(len: u32, used: u32) -> u32 {
    return select(0u, len - used, len > used);
}
