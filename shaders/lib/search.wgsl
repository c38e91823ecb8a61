// Searches of a sorted input, in the operation's order, through an accessor that the including
// kernel defines:
//
//     fn read_side(side: u32, i: u32) -> Key
//
// (`side` names the input: SIDE_A or SIDE_B). Like co-rank, each returns within [lo, hi] whatever
// the input, so callers never index outside it.

#import lib/order

const SIDE_A: u32 = 0u;
const SIDE_B: u32 = 1u;

// The first index in [lo, hi) of `side` whose key is not before `key` (hi if none).
fn lower_bound(side: u32, key: Key, lo_in: u32, hi_in: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if key_before(read_side(side, mid), key) { lo = mid + 1u; } else { hi = mid; }
    }
    return lo;
}

// The first index in [lo, hi) of `side` whose key is after `key` (hi if none).
fn upper_bound(side: u32, key: Key, lo_in: u32, hi_in: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if key_before(key, read_side(side, mid)) { hi = mid; } else { lo = mid + 1u; }
    }
    return lo;
}
