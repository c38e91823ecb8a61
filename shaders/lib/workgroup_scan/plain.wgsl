// Scans across a workgroup's invocations in workgroup memory, for adapters without subgroup
// operations: the lanes of scan.wgsl and reduce.wgsl are the whole workgroup, in
// local_invocation_index order, and the scan is Blelloch's (the radix-sort chapter's work-efficient
// up-sweep and down-sweep), on four rows at once. WORKGROUP_SIZE must be a power of two.

#import lib/scan_op

// This invocation's lane, the lanes of its group, and the group's first lane in the workgroup: a
// group covers (base + lanes) * 4 consecutive vec4s of a tile, lane l taking every lanes-th.
var<private> lane: u32;
var<private> lanes: u32;
var<private> lane_group_base: u32;

var<workgroup> wg_rows: array<vec4<u32>, WORKGROUP_SIZE>;

// Sets the invocation's place. Every invocation calls it first.
fn lanes_begin(lid: u32) {
    lane = lid;
    lanes = WORKGROUP_SIZE;
    lane_group_base = 0u;
}

struct LaneScan {
    exclusive: vec4<u32>,
    total: vec4<u32>,
}

// Exclusive scan of `x` across the group's lanes in lane order, four independent rows at once,
// and each row's total. Every invocation calls it (it holds barriers).
fn lanes_exclusive(x: vec4<u32>) -> LaneScan {
    wg_rows[lane] = x;
    workgroupBarrier();
    for (var d = 1u; d < WORKGROUP_SIZE; d *= 2u) {
        let i = (lane + 1u) * 2u * d - 1u;
        if i < WORKGROUP_SIZE {
            wg_rows[i] = combine4(wg_rows[i - d], wg_rows[i]);
        }
        workgroupBarrier();
    }
    let total = wg_rows[WORKGROUP_SIZE - 1u];
    workgroupBarrier();
    if lane == 0u {
        wg_rows[WORKGROUP_SIZE - 1u] = vec4(identity());
    }
    workgroupBarrier();
    for (var d = WORKGROUP_SIZE / 2u; d >= 1u; d /= 2u) {
        let i = (lane + 1u) * 2u * d - 1u;
        if i < WORKGROUP_SIZE {
            let left = wg_rows[i - d];
            wg_rows[i - d] = wg_rows[i];
            wg_rows[i] = combine4(wg_rows[i], left);
        }
        workgroupBarrier();
    }
    let exclusive = wg_rows[lane];
    workgroupBarrier();
    return LaneScan(exclusive, total);
}

// The prefix of this group's `total` among the workgroup's groups, and the workgroup's total:
// here one group. Every invocation calls it.
fn groups_exclusive(total: u32) -> vec2<u32> {
    return vec2(identity(), total);
}

// The combination of every invocation's `x`: the tree of lanes_exclusive's up-sweep. Every
// invocation calls it.
fn workgroup_reduce(x: u32) -> u32 {
    return lanes_exclusive(vec4(x, identity(), identity(), identity())).total.x;
}
