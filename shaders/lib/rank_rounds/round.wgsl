// One round of the subgroup rank (lib/radix_rank/subgroups.wgsl): ranks the invocation's key of
// round `round` within its subgroup's keys of its digit so far. A statement list, not a function:
// looped.wgsl writes it in its loop and unrolled.wgsl in its function (shader.rs' `#inline`),
// since calling a function from the loop made the single sweep 3% slower (run 265: 12.63 against
// 12.31 ms at 2^28, 62 / 63 registers against 60 / 61). In scope: `round`, the tile's `span`, the
// subgroup's `row` and `below`, the lanes below the invocation's.
let live = vec4(true, BALLOT_WORDS > 1u, BALLOT_WORDS > 2u, BALLOT_WORDS > 3u);
let valid = own_slot(round) < span.y;
// Taken for every lane and discarded beyond the tile: a branch around it cost instructions.
let digit = select(0u, digit_of(own_keys[round]), valid);
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
// The digit's lowest lane gives the count. With one ballot word its bit is found directly (run
// 279): a lane without a key has an empty ballot and asks for lane 0xffffffff, out of range,
// whose value SPIR-V leaves undefined and the lane discards.
let first_lane = select(ballot_first(same, 0u), firstTrailingBit(same.x), BALLOT_WORDS == 1u);
before = subgroupShuffle(before, first_lane);
own_digits[round] = digit;
own_ranks[round] = select(NO_KEY, before + lower, valid);
