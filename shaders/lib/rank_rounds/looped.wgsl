// The subgroup rank's rounds (subgroups.wgsl's rank_count runs them) as a loop, for tiles of up
// to 8 rounds, which NVIDIA's driver unrolls itself (tuning::radix_rank_unrolled; run 263:
// unrolled.wgsl's calls 2% slower there). The round's body (round.wgsl) is written in the loop.

fn rank_rounds(span: vec2<u32>, row: u32, below: vec4<u32>) {
    for (var round = 0u; round < ROUNDS; round++) {
        #inline lib/rank_rounds/round
    }
}
