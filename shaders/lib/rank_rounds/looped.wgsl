// The subgroup rank's rounds as a loop (subgroups.wgsl's rank_count runs it), for tiles of up to
// 8 rounds, which NVIDIA's driver unrolls itself (tuning::radix_rank_unrolled). Its body is
// unrolled.wgsl's rank_round written inline: called from this loop instead, it made the single
// sweep 3% slower (run 265: 12.63 against 12.31 ms at 2^28; 62 / 63 registers against 60 / 61),
// and unrolled.wgsl's calls at 8 rounds 2% (run 263). Keep the two alike.

fn rank_rounds(span: vec2<u32>, row: u32, below: vec4<u32>) {
    for (var round = 0u; round < ROUNDS; round++) {
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
}
