// The subgroup rank's rounds as a loop, which the driver unrolls itself up to 8 rounds
// (tuning::radix_rank_unrolled; run 263: 2% faster there than unrolled.wgsl's calls).

fn rank_rounds() {
    for (var round = 0u; round < ROUNDS; round++) {
        rank_round(round);
    }
}
