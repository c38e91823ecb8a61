// The subgroup rank's rounds (subgroups.wgsl's rank_count runs them) as one call each, with a
// constant round, up to MAX_ROUNDS (16), for tiles of more than 8 rounds
// (tuning::radix_rank_unrolled): once the driver inlines the calls, every index into the own_*
// arrays is a constant, so they stay in registers. Left as a loop there, NVIDIA's driver did not
// unroll it and kept the arrays in local memory (run 263: 192 bytes a thread at 10 and 12 rounds;
// none this way). The conditions are constants once the pipeline's ROUNDS is set.

// Ranks the invocation's key of round `round` within its subgroup's keys of its digit so far
// (rank_rounds calls it for each round, in order): `row` is the subgroup's, `below` the lanes
// below the invocation's.
fn rank_round(round: u32, span: vec2<u32>, row: u32, below: vec4<u32>) {
    let live = vec4(true, BALLOT_WORDS > 1u, BALLOT_WORDS > 2u, BALLOT_WORDS > 3u);
    let valid = own_slot(round) < span.y;
    var digit = 0u;
    if valid {
        digit = digit_of(own_keys[round]);
    }
    // The lanes with a key, narrowed to those whose digit matches this lane's bit by bit.
    var same = select(vec4(0u), subgroupBallot(valid), live);
    // A constant count, so the loop unrolls (run 102: a variable bound cost 28%).
    for (var b = 0u; b < 8u; b++) {
        let one = ((digit >> b) & 1u) == 1u;
        let votes = subgroupBallot(one);
        same &= select(~votes, votes, vec4(one));
    }
    let lower = ballot_count(same & below);
    var before = 0u;
    if valid & (lower == 0u) {
        let shift = 16u * (digit & 1u);
        let counts = atomicAdd(&wg_rows[row_word(row, digit)], ballot_count(same) << shift);
        before = (counts >> shift) & 0xffffu;
    }
    before = subgroupShuffle(before, ballot_first(same, 0u));
    own_digits[round] = digit;
    own_ranks[round] = select(NO_KEY, before + lower, valid);
}

fn rank_rounds(span: vec2<u32>, row: u32, below: vec4<u32>) {
    rank_round(0u, span, row, below);
    if ROUNDS > 1u {
        rank_round(1u, span, row, below);
    }
    if ROUNDS > 2u {
        rank_round(2u, span, row, below);
    }
    if ROUNDS > 3u {
        rank_round(3u, span, row, below);
    }
    if ROUNDS > 4u {
        rank_round(4u, span, row, below);
    }
    if ROUNDS > 5u {
        rank_round(5u, span, row, below);
    }
    if ROUNDS > 6u {
        rank_round(6u, span, row, below);
    }
    if ROUNDS > 7u {
        rank_round(7u, span, row, below);
    }
    if ROUNDS > 8u {
        rank_round(8u, span, row, below);
    }
    if ROUNDS > 9u {
        rank_round(9u, span, row, below);
    }
    if ROUNDS > 10u {
        rank_round(10u, span, row, below);
    }
    if ROUNDS > 11u {
        rank_round(11u, span, row, below);
    }
    if ROUNDS > 12u {
        rank_round(12u, span, row, below);
    }
    if ROUNDS > 13u {
        rank_round(13u, span, row, below);
    }
    if ROUNDS > 14u {
        rank_round(14u, span, row, below);
    }
    if ROUNDS > 15u {
        rank_round(15u, span, row, below);
    }
}
