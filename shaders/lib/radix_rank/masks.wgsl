// Radix sort's rank without subgroup operations (radix_sort.wgsl includes it as `rank`): the
// tile goes in rounds of WORKGROUP_SIZE keys (key r * WORKGROUP_SIZE + lid in round r, so rounds
// and lanes follow input order), and in each round every invocation sets its lane's bit in its
// digit's mask in workgroup memory; its rank is the count of lower lanes in its mask plus the
// keys of its digit before its word and in earlier rounds.

// Lane masks of one round, word-major (`[word * RADIX + digit]`: the lanes of one 32-lane
// word reach 32 banks through their random digits, and each digit's owner walks its words
// without conflicts). Bit i of word w: lane 32w + i has the digit.
var<workgroup> wg_masks: array<atomic<u32>, RADIX * MASK_WORDS>;
// Per word pair and digit (`[word / 2 * RADIX + digit]`), two 16-bit halves: the tile's keys of
// the digit before word `word`'s lanes of this round; after the ranks, per digit: where its run
// in the tile sorted by digit goes in the output, less its first slot there.
var<workgroup> wg_before: array<u32, RADIX * MASK_WORDS / 2>;

// Loads and ranks the tile's keys (into own_*) and sets each digit's first slot in the tile sorted
// by digit (wg_start); returns the tile's number of keys of digit `lid` (invocation d owns digit
// d's count and mask rows). Three barriers a round: the lanes set their
// bits; each owner counts its digit's lanes before each word (and each lane the lower lanes of
// its own word); each lane adds the two while the owners clear their rows.
fn rank_tile(span: vec2<u32>, lid: u32) -> u32 {
    rank_clear(lid);
    // The loads are in flight through the barrier.
    rank_load(span, lid);
    workgroupBarrier();
    let count = rank_count(span, lid);
    rank_finish(count, lid);
    return count;
}

// Zeroes the rank's workgroup memory, for rank_load and rank_count after a barrier (the
// caller's own, where it has one: the single sweep clears before the barrier that hands out its
// tile).
fn rank_clear(lid: u32) {
    for (var w = 0u; w < MASK_WORDS; w++) {
        atomicStore(&wg_masks[w * RADIX + lid], 0u);
    }
}

// Loads the invocation's keys, tile key r * WORKGROUP_SIZE + lid in round r, for rank_count.
fn rank_load(span: vec2<u32>, lid: u32) {
    own_base = lid;
    own_step = WORKGROUP_SIZE;
    load_own_keys(span);
}

// Ranks the loaded keys (rank_clear's memory cleared) and returns the tile's number of keys of
// digit `lid`. Every invocation calls it (it holds barriers).
fn rank_count(span: vec2<u32>, lid: u32) -> u32 {
    let word = lid / 32u;
    let bit = 1u << (lid % 32u);
    var count = 0u;
    for (var round = 0u; round < ROUNDS; round++) {
        let valid = own_slot(round) < span.y;
        var digit = 0u;
        if valid {
            digit = digit_of(own_keys[round]);
            atomicOr(&wg_masks[word * RADIX + digit], bit);
        }
        own_digits[round] = digit;
        workgroupBarrier();
        var below = 0u;
        if valid {
            below = countOneBits(atomicLoad(&wg_masks[word * RADIX + digit]) & (bit - 1u));
        }
        var running = count;
        for (var w = 0u; w < MASK_WORDS; w += 2u) {
            let first = countOneBits(atomicLoad(&wg_masks[w * RADIX + lid]));
            let second = countOneBits(atomicLoad(&wg_masks[(w + 1u) * RADIX + lid]));
            wg_before[w / 2u * RADIX + lid] = running | ((running + first) << 16u);
            running += first + second;
        }
        workgroupBarrier();
        var rank = NO_KEY;
        if valid {
            let before = wg_before[word / 2u * RADIX + digit] >> (16u * (word & 1u));
            rank = (before & 0xffffu) + below;
        }
        own_ranks[round] = rank;
        for (var w = 0u; w < MASK_WORDS; w++) {
            atomicStore(&wg_masks[w * RADIX + lid], 0u);
        }
        count = running;
        workgroupBarrier();
    }
    return count;
}

// Once rank_count has run, sets each digit's first slot in the tile sorted by digit (wg_start):
// the exclusive sum of `count` over the digits (invocation d passes digit d's).
fn rank_finish(count: u32, lid: u32) {
    wg_start[lid] = exclusive_digit_sum(count, lid);
    workgroupBarrier();
}

// Digit d's output place less its first slot in the sorted tile, once the ranks are done.
fn set_place(digit: u32, place: u32) {
    wg_before[digit] = place;
}

fn place_of(digit: u32) -> u32 {
    return wg_before[digit];
}
