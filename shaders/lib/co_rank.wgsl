// The merge's two primitives, written once for every kernel: co-rank (where output rank k splits
// A and B) and the sequential merge. They read their inputs through accessors that the including
// kernel defines,
//
//     fn read_a(space: u32, i: u32) -> Key
//     fn read_b(space: u32, j: u32) -> Key
//     fn emit(space: u32, k: u32, key: Key, from_a: bool, src: u32)    (merge_sequential only)
//
// where `space` names the memory being read (global, tile, ring). It is a literal at every call
// site, so the driver's compiler specialises each call after inlining.

#import lib/order

const SPACE_GLOBAL: u32 = 0u;
const SPACE_TILE: u32 = 1u;

// Whether A[i] is past the split of output rank k: not among the first k outputs of the stable
// merge, because B[k-1-i] is strictly before it (ties take A first). Valid for the i that output
// k allows: fewest <= i < most (co_rank_fewest, co_rank_most).
fn b_before_a(space: u32, i: u32, k: u32) -> bool {
    return key_before(read_b(space, k - 1u - i), read_a(space, i));
}

// b_before_a for any i in [0, m]: outside [fewest, most) the answer is known without a read.
fn past_co_rank(space: u32, i: u32, k: u32, fewest: u32, most: u32) -> bool {
    if i >= most { return true; }
    if i < fewest { return false; }
    return b_before_a(space, i, k);
}

// Set when the pipeline is created: true where this kernel's searches run over intervals wider
// than the indices output k allows (the partition searches all of A's indices, so that the first
// steps of every search probe the same elements, which the cache serves), and probes outside
// [fewest, most) are answered without a read. False everywhere else, where the interval is
// exact and no probe should pay for the bounds: a constant, so the compiler keeps one branch.
override CO_RANK_WIDE: bool = false;

// The co-rank search, the one every kernel runs: the first i in [lo, hi) past the split of output
// rank k (hi if none), by binary search. The co-rank is the i with A[i-1] <= B[k-i] and
// B[k-i-1] < A[i]; for sorted input every i below it is not past the split and every i from it
// is. With unsorted input the result is still within [lo, hi], so callers never index outside
// either input.
//
// Each step halves the candidates whatever its probe finds: the steps depend on the interval
// alone, not on the keys, and only a select lies between a probe's comparison and the next
// probe's index (run 249 on the H100: merge sort 1% faster than a search that stops as soon as
// its interval is empty; src/cpu/partition.rs mirrors it).
fn co_rank_search(space: u32, k: u32, fewest: u32, most: u32, lo_in: u32, hi_in: u32) -> u32 {
    // The answer is one of `candidates` indices from `base`.
    var base = lo_in;
    var candidates = remaining(hi_in, lo_in) + 1u;
    while candidates > 1u {
        let half = candidates / 2u;
        let at = base + half - 1u;
        var past: bool;
        if CO_RANK_WIDE {
            past = past_co_rank(space, at, k, fewest, most);
        } else {
            past = b_before_a(space, at, k);
        }
        // Past: the answer is at most `at`, among the first candidates - half (>= half). Not
        // past: it is beyond `at`, among the last candidates - half.
        base = select(base + half, base, past);
        candidates -= half;
    }
    return base;
}

// Elements of A among the first k outputs of the merge of A[0..m) and B[0..n) can be no fewer
// than this and (co_rank_most) no more. For k > m + n (possible only with unsorted input) both
// clamp to min(k, m).
fn co_rank_fewest(k: u32, m: u32, n: u32) -> u32 {
    return min(select(0u, k - n, k > n), co_rank_most(k, m));
}
fn co_rank_most(k: u32, m: u32) -> u32 {
    return min(k, m);
}

// Co-rank of output rank k in the stable merge of A[0..m) and B[0..n): the number i of A's
// elements among the first k outputs (the rest, j = k - i, come from B), searched over the
// indices that k allows.
fn co_rank(space: u32, k: u32, m: u32, n: u32) -> u32 {
    let fewest = co_rank_fewest(k, m, n);
    let most = co_rank_most(k, m);
    return co_rank_search(space, k, fewest, most, fewest, most);
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
        let take_a = (i < i_end) & ((j >= j_end) | !key_before(key_b, key_a));
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
