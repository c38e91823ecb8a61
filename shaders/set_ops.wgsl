// Set operations on two sorted inputs, as multisets, in the merge order. For a key found m times
// in A and n times in B (the C++ library's std::set_* rule):
//   union                 A's m copies, then B's last n - m (when n > m);
//   intersection          A's first min(m, n);
//   difference (A - B)    A's last m - n;
//   symmetric difference  A's last m - n, or B's last n - m.
// Each kept element goes where the stable merge of the kept elements puts it, ties taking A first,
// and takes its value along.
//
// Four passes over the elements of A then B (element e < a_len is A[e], else B[e - a_len]):
//   set_mark         decides each element (its rank among equal keys in its own input against
//                    the copies of its key in the other) and counts kept ones per block;
//   set_scan_blocks  one workgroup turns the block counts into block offsets and the total;
//   set_scan_local   turns each block's kept flags into ranks among all kept elements;
//   set_scatter      writes each kept element at its rank among kept elements of its own input
//                    plus the kept elements of the other input that precede it.
// Every index is bounded by the lengths whatever the input: unsorted input gives an unspecified
// result, never an access out of bounds.

// Which operation the pipeline does.
override SET_OPERATION: u32 = 0u;
const SET_UNION: u32 = 0u;
const SET_INTERSECTION: u32 = 1u;
const SET_DIFFERENCE: u32 = 2u;
const SET_SYMMETRIC_DIFFERENCE: u32 = 3u;

override TILE: u32 = WORKGROUP_SIZE * ITEMS_PER_THREAD;

// After a header of two words (a_len, b_len), with n = a_len + b_len and `blocks` tiles of TILE
// elements:
//   [0, n)                 kept flag (0 or 1), then after set_scan_local the number of kept
//                          elements before e;
//   [n, 2n)                partner: for A[i], the first index of B not before A[i]; for B[j],
//                          the first index of A after B[j] (ties take A first);
//   [2n, 2n + blocks]      kept per block, then after set_scan_blocks kept before each block,
//                          the last entry the total kept.
@group(0) @binding(7) var<storage, read_write> work: array<u32>;

// The lengths live in the work buffer, not in the uniform `params`: Mesa's lavapipe recompiles a
// kernel whose control flow depends on uniform values at every dispatch, and kept each copy (the
// soak test saw 240 KB a call).
const HEADER: u32 = 2u;
fn a_len() -> u32 {
    return work[0];
}
fn b_len() -> u32 {
    return work[1];
}

var<workgroup> scan_slots: array<u32, WORKGROUP_SIZE>;
var<workgroup> uniform_blocks: u32;

const SIDE_A: u32 = 0u;
const SIDE_B: u32 = 1u;

fn element_count() -> u32 {
    return a_len() + b_len();
}
fn block_count() -> u32 {
    return (element_count() + TILE - 1u) / TILE;
}
fn side_len(side: u32) -> u32 {
    return select(b_len(), a_len(), side == SIDE_A);
}
fn read_side(side: u32, i: u32) -> Key {
    if side == SIDE_A { return a_keys[i]; }
    return b_keys[i];
}

// The first index in [lo, hi) of `side` whose key is not before `key` (hi if none).
fn lower_bound(side: u32, key: Key, lo_in: u32, hi_in: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if key_before(read_side(side, mid), key) { lo = mid + 1u; } else { hi = mid; }
    }
    return lo;
}
// The first index in [lo, hi) of `side` whose key is after `key` (hi if none).
fn upper_bound(side: u32, key: Key, lo_in: u32, hi_in: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if key_before(key, read_side(side, mid)) { hi = mid; } else { lo = mid + 1u; }
    }
    return lo;
}

struct Placement {
    kept: bool,
    partner: u32,
}

// Whether element e is kept, and its partner index in the other input.
fn place(e: u32) -> Placement {
    let from_a = e < a_len();
    // Intersection and difference keep nothing of B.
    if !from_a && (SET_OPERATION == SET_INTERSECTION || SET_OPERATION == SET_DIFFERENCE) {
        return Placement(false, 0u);
    }
    let side = select(SIDE_B, SIDE_A, from_a);
    let other = select(SIDE_A, SIDE_B, from_a);
    let i = select(e - a_len(), e, from_a);
    let key = read_side(side, i);
    // Copies of the key before this one in its own input; usually none, as the neighbour shows.
    var rank = 0u;
    if i > 0u && !key_before(read_side(side, i - 1u), key) {
        rank = i - lower_bound(side, key, 0u, i);
    }
    // The copies of the key in the other input: [first, end).
    let other_len = side_len(other);
    let first = lower_bound(other, key, 0u, other_len);
    var end = first;
    if first < other_len && !key_before(key, read_side(other, first)) {
        end = upper_bound(other, key, first + 1u, other_len);
    }
    let copies = end - first;
    var kept: bool;
    switch SET_OPERATION {
        case SET_UNION: { kept = from_a || rank >= copies; }
        case SET_INTERSECTION: { kept = rank < copies; }
        default: { kept = rank >= copies; }
    }
    // A[i] follows B's elements before its key; B[j] follows A's through its key.
    return Placement(kept, select(end, first, from_a));
}

// Exclusive prefix sum of `value` over the workgroup, and the workgroup's total. Every
// invocation must call it (it holds barriers).
fn workgroup_scan(lid: u32, value: u32) -> vec2<u32> {
    scan_slots[lid] = value;
    workgroupBarrier();
    for (var offset = 1u; offset < WORKGROUP_SIZE; offset *= 2u) {
        var add = 0u;
        if lid >= offset { add = scan_slots[lid - offset]; }
        workgroupBarrier();
        scan_slots[lid] += add;
        workgroupBarrier();
    }
    let inclusive = scan_slots[lid];
    let total = scan_slots[WORKGROUP_SIZE - 1u];
    // The slots are reused by the next call.
    workgroupBarrier();
    return vec2<u32>(inclusive - value, total);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn set_mark(@builtin(workgroup_id) workgroup_id: vec3<u32>,
            @builtin(num_workgroups) num_workgroups: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let n = element_count();
    let group = group_index(workgroup_id, num_workgroups);
    var count = 0u;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let e = group * TILE + r * WORKGROUP_SIZE + lid;
        if e < n {
            let placement = place(e);
            work[HEADER + e] = u32(placement.kept);
            work[HEADER + n + e] = placement.partner;
            count += u32(placement.kept);
        }
    }
    let sum = workgroup_scan(lid, count).y;
    if lid == 0u && group < block_count() {
        work[HEADER + 2u * n + group] = sum;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn set_scan_blocks(@builtin(local_invocation_index) lid: u32) {
    let base = 2u * element_count();
    // The loop holds barriers: its bound must be uniform, which a storage read is not.
    if lid == 0u { uniform_blocks = block_count(); }
    let blocks = workgroupUniformLoad(&uniform_blocks);
    // TILE block counts per step, ITEMS_PER_THREAD consecutive ones per invocation.
    var carry = 0u;
    for (var start = 0u; start < blocks; start += TILE) {
        let first = start + lid * ITEMS_PER_THREAD;
        var sum = 0u;
        for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
            if first + r < blocks { sum += work[HEADER + base + first + r]; }
        }
        let scan = workgroup_scan(lid, sum);
        var before = carry + scan.x;
        for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
            if first + r < blocks {
                let count = work[HEADER + base + first + r];
                work[HEADER + base + first + r] = before;
                before += count;
            }
        }
        carry += scan.y;
    }
    if lid == 0u {
        work[HEADER + base + blocks] = carry;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn set_scan_local(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                  @builtin(num_workgroups) num_workgroups: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let n = element_count();
    let group = group_index(workgroup_id, num_workgroups);
    // ITEMS_PER_THREAD consecutive flags per invocation, so each rank follows from the
    // invocation's prefix.
    let first = group * TILE + lid * ITEMS_PER_THREAD;
    var count = 0u;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        if first + r < n { count += work[HEADER + first + r]; }
    }
    let scan = workgroup_scan(lid, count);
    if group >= block_count() { return; }
    var before = work[HEADER + 2u * n + group] + scan.x;
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        if first + r < n {
            let kept = work[HEADER + first + r];
            work[HEADER + first + r] = before;
            before += kept;
        }
    }
}

// Kept elements among the first e of A then B (after set_scan_local).
fn kept_before(e: u32) -> u32 {
    let n = element_count();
    if e >= n { return work[HEADER + 2u * n + block_count()]; }
    return work[HEADER + e];
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn set_scatter(@builtin(workgroup_id) workgroup_id: vec3<u32>,
               @builtin(num_workgroups) num_workgroups: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let n = element_count();
    let group = group_index(workgroup_id, num_workgroups);
    let kept_a = kept_before(a_len());
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let e = group * TILE + r * WORKGROUP_SIZE + lid;
        if e < n && kept_before(e + 1u) != work[HEADER + e] {
            let rank = work[HEADER + e];
            let partner = work[HEADER + n + e];
            if e < a_len() {
                // Kept B elements before the partner index precede A[e].
                let k = rank + kept_before(a_len() + partner) - kept_a;
                write_output(k, a_keys[e], true, e);
            } else {
                let j = e - a_len();
                let k = rank - kept_a + kept_before(partner);
                write_output(k, b_keys[j], false, j);
            }
        }
    }
}
