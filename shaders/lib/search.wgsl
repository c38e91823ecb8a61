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

// lower_bound for a key whose run of equal keys ends near hi: probes back from hi at distances
// 1, 2, 4, ... then searches the last bracket, so a run of r keys costs about 2 log2(r) reads
// near hi rather than log2(hi - lo) scattered ones (set operations: their run ranks).
fn lower_bound_near_end(side: u32, key: Key, lo: u32, hi: u32) -> u32 {
    // Keys in [top, hi) are not before `key`.
    var top = hi;
    var step = 1u;
    while top - lo > step {
        let probe = top - step;
        if key_before(read_side(side, probe), key) {
            return lower_bound(side, key, probe + 1u, top);
        }
        top = probe;
        step <<= 1u;
    }
    return lower_bound(side, key, lo, top);
}

// upper_bound for a key whose run of equal keys starts near lo, probing forward from lo as
// lower_bound_near_end probes back.
fn upper_bound_near_start(side: u32, key: Key, lo: u32, hi: u32) -> u32 {
    // Keys in [lo, bottom) are not after `key`.
    var bottom = lo;
    var step = 1u;
    while hi - bottom > step {
        let probe = bottom + step - 1u;
        if key_before(key, read_side(side, probe)) {
            return upper_bound(side, key, bottom, probe);
        }
        bottom = probe + 1u;
        step <<= 1u;
    }
    return upper_bound(side, key, bottom, hi);
}
