// The subgroup rank's rounds as one call each, with a constant round, up to MAX_ROUNDS (16):
// once the driver inlines them, every index into the own_* arrays is a constant and they stay in
// registers. Left as a loop, NVIDIA's driver stops unrolling it beyond 8 rounds and keeps the
// arrays in local memory (run 263: 192 bytes a thread at 10 and 12 rounds; none this way, and
// reduce-then-scan 6% faster at 2^28 with 10 rounds). The conditions are constants once the
// pipeline's ROUNDS is set.

fn rank_rounds() {
    rank_round(0u);
    if ROUNDS > 1u {
        rank_round(1u);
    }
    if ROUNDS > 2u {
        rank_round(2u);
    }
    if ROUNDS > 3u {
        rank_round(3u);
    }
    if ROUNDS > 4u {
        rank_round(4u);
    }
    if ROUNDS > 5u {
        rank_round(5u);
    }
    if ROUNDS > 6u {
        rank_round(6u);
    }
    if ROUNDS > 7u {
        rank_round(7u);
    }
    if ROUNDS > 8u {
        rank_round(8u);
    }
    if ROUNDS > 9u {
        rank_round(9u);
    }
    if ROUNDS > 10u {
        rank_round(10u);
    }
    if ROUNDS > 11u {
        rank_round(11u);
    }
    if ROUNDS > 12u {
        rank_round(12u);
    }
    if ROUNDS > 13u {
        rank_round(13u);
    }
    if ROUNDS > 14u {
        rank_round(14u);
    }
    if ROUNDS > 15u {
        rank_round(15u);
    }
}
