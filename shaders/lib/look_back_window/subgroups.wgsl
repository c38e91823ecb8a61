// lib/look_back.wgsl's window with subgroups: the subgroup of invocation 0 reads PER_LANE
// predecessors a lane and combines what they published with subgroup operations, round after
// round with no workgroup barrier (CUB's warp look-back); the rest of the workgroup waits at one
// barrier. Any subgroup size up to the 128 lanes a ballot holds serves; the subgroup's lanes are
// numbered by subgroupExclusiveAdd, so their mapping to local_invocation_index does not matter.

#import lib/ballot
#import lib/subgroup_reduce

// Predecessors a lane reads a round: 2 and 4 (windows of 64 and 128 tiles) were 3-55% slower
// than 1 for scans, dedup and set operations (run 107): more reads of the state, not a longer
// window, is what costs.
const PER_LANE: u32 = 1u;

// Rounds until the look-back is done or, in MODE_FALLBACK, SPINS rounds in a row found nothing
// new; every invocation calls it (it holds a barrier).
fn look_back_rounds(lid: u32) {
    if subgroupAny(lid == 0u) {
        let lane = subgroupExclusiveAdd(1u);
        let width = subgroupAdd(1u);
        var look = wg_look;
        var prefix = wg_prefix;
        var spins = wg_spins;
        var done = false;
        loop {
            // Lane i reads tiles look - PER_LANE * i - j (j < PER_LANE), all before any is used;
            // lanes beyond tile 0 find nothing. While rounds find nothing new, only the nearest
            // predecessor is read (run 107: scans 4% faster, dedup 2% and set operations 0.5%
            // slower; run 109: the same reads without it, or it with one read a lane written
            // without the arrays, were 1.5% slower than neither for scans).
            var reads: array<vec2<u32>, PER_LANE>;
            for (var i = 0u; i < PER_LANE; i++) {
                let d = lane * PER_LANE + i;
                reads[i] = vec2(KIND_NONE, identity());
                if (d <= look) & ((spins == 0u) | (d == 0u)) {
                    reads[i] = read_predecessor(look - d);
                }
            }
            // The lane's reductions up to its first predecessor that is not one, with that one's
            // inclusive prefix if it is one.
            var local_stop = PER_LANE;
            var local_sum = identity();
            var local_inclusive = false;
            for (var i = 0u; i < PER_LANE; i++) {
                if local_stop == PER_LANE {
                    if reads[i].x == KIND_REDUCTION {
                        local_sum = combine(reads[i].y, local_sum);
                    } else {
                        local_stop = i;
                        if reads[i].x == KIND_INCLUSIVE {
                            local_sum = combine(reads[i].y, local_sum);
                            local_inclusive = true;
                        }
                    }
                }
            }
            // The nearest lane holding a predecessor that is not a reduction ends the round (tile 0
            // always does, with its inclusive prefix or nothing); an inclusive prefix there is
            // taken and ends the look-back.
            let stop = ballot_first(subgroupBallot(local_stop < PER_LANE), width);
            let taken = lane <= stop;
            prefix = combine(subgroup_reduce(select(identity(), local_sum, taken)), prefix);
            if subgroupAny((lane == stop) & local_inclusive) {
                done = true;
                break;
            }
            // Predecessors consumed: every lane's before the stop lane, and its own before its
            // stop.
            let stop_at = subgroupShuffle(local_stop, min(stop, width - 1u));
            let consumed = select(stop * PER_LANE + stop_at, width * PER_LANE, stop == width);
            look -= min(consumed, look);
            spins = select(0u, spins + 1u, consumed == 0u);
            if MODE == MODE_FALLBACK && spins >= SPINS {
                break;
            }
        }
        if lane == 0u {
            wg_look = look;
            wg_prefix = prefix;
            wg_spins = spins;
            wg_done = u32(done);
        }
    }
    workgroupBarrier();
}
