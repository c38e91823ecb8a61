// Radix sort's rank with subgroup ballots (radix_sort.wgsl includes it as `rank`; Merrill and
// Adinets' warp-level multi-split). Each subgroup takes ROUNDS * its size consecutive keys of the
// tile, in the order the subgroups take their place from a counter, and ranks them in rounds of
// one key a lane with no barrier: nine ballots (whether the lane has a key, and the digit's eight
// bits) find the lanes of the same digit, the lowest of them adds their number to the
// subgroup's count of the digit in workgroup memory, and each lane's rank there is that count
// before plus its lower lanes of the digit. Once every subgroup is done, the digits' owners turn
// the subgroups' counts into prefixes, which each lane adds to its ranks.
//
// The host takes this module only where every subgroup has the same size (wgpu reports its
// minimum equal to its maximum) and sets RANK_ROWS to WORKGROUP_SIZE over it: a subgroup's row
// is its first lane over its size. Lanes are numbered by subgroupExclusiveAdd, so the mapping of
// subgroups to local_invocation_index does not matter. Ballots hold up to 128 lanes (vec4).

#import lib/ballot
// rank_rounds: the rounds' ballots as a loop or written out (lib/rank_rounds/*.wgsl).
#import rank_rounds

// Subgroups of a workgroup, and the words of a ballot they fill (lanes / 32, rounded up): the
// others are zero, and masking them so lets the driver drop their work (three quarters of the
// match for subgroups of 32).
override RANK_ROWS: u32 = 8u;
override BALLOT_WORDS: u32 = 4u;
override RANK_WORDS: u32 = RANK_ROWS * RADIX / 2u;

// Lanes that have taken their place.
var<workgroup> wg_lanes_taken: atomic<u32>;
// Each row's total of keys.
var<workgroup> wg_row_totals: array<u32, RANK_ROWS>;
// Per subgroup row and digit pair (`[row * RADIX / 2 + digit / 2]`), two 16-bit halves: the
// subgroup's keys of each digit, then the keys of each digit in the rows before; after the
// ranks, rows 0 and 1 hold each digit's output place less its first slot in the sorted tile.
var<workgroup> wg_rows: array<atomic<u32>, RANK_WORDS>;

// The lanes below `lane`, as a ballot.
fn lanes_below(lane: u32) -> vec4<u32> {
    var below = vec4(0u);
    for (var i = 0u; i < 4u; i++) {
        let first = 32u * i;
        if lane >= first + 32u {
            below[i] = 0xffffffffu;
        } else if lane > first {
            below[i] = (1u << (lane - first)) - 1u;
        }
    }
    return below;
}

fn ballot_count(ballot: vec4<u32>) -> u32 {
    let bits = countOneBits(ballot);
    return bits.x + bits.y + bits.z + bits.w;
}

fn row_word(row: u32, digit: u32) -> u32 {
    return row * (RADIX / 2u) + digit / 2u;
}

fn half_of(word: u32, digit: u32) -> u32 {
    return (word >> (16u * (digit & 1u))) & 0xffffu;
}

// Loads and ranks the tile's keys (into own_*) and sets each digit's first slot in the tile sorted
// by digit (wg_start); returns the tile's number of keys of digit `lid`.
fn rank_tile(span: vec2<u32>, lid: u32) -> u32 {
    rank_clear(lid);
    workgroupBarrier();
    rank_load(span, lid);
    let count = rank_count(span, lid);
    rank_finish(count, lid);
    return count;
}

// Zeroes the rank's workgroup memory, for rank_load and rank_count after a barrier (the
// caller's own, where it has one: the single sweep clears before the barrier that hands out its
// tile).
fn rank_clear(lid: u32) {
    if lid == 0u {
        atomicStore(&wg_lanes_taken, 0u);
    }
    for (var w = lid; w < RANK_WORDS; w += WORKGROUP_SIZE) {
        atomicStore(&wg_rows[w], 0u);
    }
}

// The invocation's lane in its subgroup and the subgroup's first place, set by rank_load.
var<private> own_lane: u32;
var<private> own_first: u32;

// Takes the subgroup's place in the tile and loads the invocation's keys there, for rank_count,
// once rank_clear and a barrier have run.
fn rank_load(span: vec2<u32>, lid: u32) {
    let lane = subgroupExclusiveAdd(1u);
    let lanes = subgroupAdd(1u);
    var first = 0u;
    if lane == 0u {
        first = atomicAdd(&wg_lanes_taken, lanes);
    }
    own_lane = lane;
    own_first = subgroupBroadcastFirst(first);
    own_base = own_first * ROUNDS + lane;
    own_step = lanes;
    load_own_keys(span);
}

// Ranks the loaded keys within their subgroup's keys of their digit and returns the tile's
// number of keys of digit `lid`, for the single sweep to publish before rank_finish (run 258:
// 4% faster at 2^26-2^28 than a histogram of its own). Every invocation calls it (it holds
// barriers).
fn rank_count(span: vec2<u32>, lid: u32) -> u32 {
    let lane = own_lane;
    let row = own_first / own_step;
    rank_rounds(span, row, lanes_below(lane));
    workgroupBarrier();
    // Invocation t owns digits 2t and 2t + 1 (one word per row): each row's counts become the
    // counts of the rows before it. No half overflows: a digit has at most TILE keys.
    if lid < RADIX / 2u {
        var running = 0u;
        for (var r = 0u; r < RANK_ROWS; r++) {
            let counts = atomicLoad(&wg_rows[row_word(r, 2u * lid)]);
            atomicStore(&wg_rows[row_word(r, 2u * lid)], running);
            running += counts;
        }
        wg_start[2u * lid] = running & 0xffffu;
        wg_start[2u * lid + 1u] = running >> 16u;
    }
    workgroupBarrier();
    return wg_start[lid];
}

// Once rank_count has run: adds the keys of each digit in the rows before to the ranks and sets
// each digit's first slot in the tile sorted by digit (wg_start). It reads the counts from the
// rows; `count` is there for the lane-mask rank, whose rank_finish scans it.
fn rank_finish(count: u32, lid: u32) {
    let lane = own_lane;
    let first = own_first;
    let row = first / own_step;
    for (var round = 0u; round < ROUNDS; round++) {
        let rank = own_ranks[round];
        if rank != NO_KEY {
            let digit = own_digits[round];
            own_ranks[round] = rank + half_of(atomicLoad(&wg_rows[row_word(row, digit)]), digit);
        }
    }
    // The digits' starts in the sorted tile, scanned in lane order: the lane of place q (its
    // subgroup's first plus its lane) takes digit q, so each subgroup scans consecutive digits
    // and the subgroups' totals are added in row order (three barriers, not Hillis and Steele's
    // sixteen).
    let digit = first + lane;
    let total = wg_start[digit];
    let start = subgroupExclusiveAdd(total);
    let row_total = subgroupAdd(total);
    if lane == 0u {
        wg_row_totals[row] = row_total;
    }
    workgroupBarrier();
    var rows_before = 0u;
    for (var r = 0u; r < row; r++) {
        rows_before += wg_row_totals[r];
    }
    wg_start[digit] = rows_before + start;
    // Rows are reused for the places, and wg_start is read, once every lane is done.
    workgroupBarrier();
}

// Digit d's output place less its first slot in the sorted tile, once the ranks are done.
fn set_place(digit: u32, place: u32) {
    atomicStore(&wg_rows[digit], place);
}

fn place_of(digit: u32) -> u32 {
    return atomicLoad(&wg_rows[digit]);
}
