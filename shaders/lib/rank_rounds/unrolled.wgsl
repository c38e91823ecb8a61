// The subgroup rank's rounds (subgroups.wgsl's rank_count runs them) as one call each, with a
// constant round, up to MAX_ROUNDS (18), for tiles of more than 8 rounds
// (tuning::radix_rank_unrolled): once the driver inlines the calls, every index into the own_*
// arrays is a constant, so they stay in registers. Left as a loop there, NVIDIA's driver did not
// unroll it and kept the arrays in local memory (run 263: 192 bytes a thread at 10 and 12 rounds;
// none this way). The conditions are constants once the pipeline's ROUNDS is set.

// One round of the rank (round.wgsl), called with a constant `round`.
fn rank_round(round: u32, span: vec2<u32>, row: u32, below: vec4<u32>) {
    #inline lib/rank_rounds/round
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
    if ROUNDS > 16u {
        rank_round(16u, span, row, below);
    }
    if ROUNDS > 17u {
        rank_round(17u, span, row, below);
    }
}
