// lib/look_back.wgsl's window with subgroups: the subgroup of invocation 0 reads one predecessor
// a lane and combines what they published with subgroup operations, round after round with no
// workgroup barrier (CUB's warp look-back); the rest of the workgroup waits at one barrier.
// Any subgroup size up to the 128 lanes a ballot holds serves; the subgroup's lanes are numbered
// by subgroupExclusiveAdd, so their mapping to local_invocation_index does not matter.

#import lib/subgroup_reduce

// The lowest lane of a ballot, or `none` where it is empty.
fn window_first(ballot: vec4<u32>, none: u32) -> u32 {
    for (var i = 0u; i < 4u; i++) {
        if ballot[i] != 0u {
            return 32u * i + firstTrailingBit(ballot[i]);
        }
    }
    return none;
}

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
            // Lane i reads tile look - i; lanes beyond tile 0 find nothing (nor, with QUIET_SPINS,
            // lanes beyond the first while rounds find nothing new).
            var read = vec2(KIND_NONE, identity());
            if lane <= look && (!QUIET_SPINS || spins == 0u || lane == 0u) {
                read = read_predecessor(look - lane);
            }
            // The nearest lane without a reduction ends the round (tile 0 always does, with its
            // inclusive prefix or nothing); an inclusive prefix there is taken and ends the
            // look-back.
            let stop = window_first(subgroupBallot(read.x != KIND_REDUCTION), width);
            let inclusive = lane == stop && read.x == KIND_INCLUSIVE;
            let taken = lane < stop || inclusive;
            prefix = combine(subgroup_reduce(select(identity(), read.y, taken)), prefix);
            if subgroupAny(inclusive) {
                done = true;
                break;
            }
            look -= min(stop, look);
            spins = select(0u, spins + 1u, stop == 0u);
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
