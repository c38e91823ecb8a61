// The balanced path (ModernGPU's and Thrust's set operations): merge path's split of A and B
// moved within the run of keys equal to the next B key, so that copies of a key in A and in B
// pair up in order (A's r-th copy with B's r-th) and no pair is split. Merge path takes every
// copy in A before any in B; the balanced path takes them in turn (A's, B's, A's, ...) while both
// have copies, then the rest. Between two balanced splits a plain serial set operation (which
// matches equal keys of A and B as it meets them) thus decides every element as the whole
// inputs' would: set.wgsl cuts tiles and each invocation's part of a tile at such splits.
//
// Its CPU mirror is `cpu::balanced_path_ordered` (src/cpu/balanced_path.rs), whose tests show
// that pieces cut there give the whole set operation's result. Reads through lib/search.wgsl's
// accessor `read_side`. For sorted input the split is a valid
// one: the pairs before it lie wholly before it, and its inputs are the merge path's, or one
// more (the B copy that completes a pair). Whatever the input, the split stays within
// [0, a_len] x [0, b_len].

#import lib/search

// The balanced split of merge path's split (i, j) of A[0..a_len) and B[0..b_len).
fn balanced_split(i: u32, j: u32, a_len: u32, b_len: u32) -> vec2<u32> {
    if j >= b_len {
        return vec2(i, j);
    }
    let key = read_side(SIDE_B, j);
    // With no copy of the key before the split in either input, no pair is split (most splits,
    // unless keys repeat): two reads, not four searches.
    let copy_in_a = i > 0u && !key_before(read_side(SIDE_A, i - 1u), key);
    let copy_in_b = j > 0u && !key_before(read_side(SIDE_B, j - 1u), key);
    if !copy_in_a && !copy_in_b {
        return vec2(i, j);
    }
    // Copies of the key before the split, and in all, in each input.
    let a_before = i - lower_bound_near_end(SIDE_A, key, 0u, i);
    let b_before = j - lower_bound_near_end(SIDE_B, key, 0u, j);
    let a_copies = a_before + upper_bound_near_start(SIDE_A, key, i, a_len) - i;
    let b_copies = b_before + upper_bound_near_start(SIDE_B, key, j, b_len) - j;
    // The copies taken so far, shared out as the balanced path takes them: in turn while both
    // inputs have copies (rounding up, so a pair is never split), then from the longer run.
    let taken = a_before + b_before;
    let pairs = min(a_copies, b_copies);
    var a_take: u32;
    var b_take: u32;
    if taken <= 2u * pairs {
        a_take = (taken + 1u) / 2u;
        b_take = a_take;
    } else if a_copies > b_copies {
        b_take = b_copies;
        a_take = taken - b_copies;
    } else {
        a_take = a_copies;
        b_take = taken - a_copies;
    }
    return vec2(i - a_before + a_take, j - b_before + b_take);
}
