// Scans across a workgroup's invocations with subgroup operations: each subgroup is a group of
// lanes that scans in registers, and the groups' totals are combined in workgroup memory. The
// shader never assumes how subgroups map to local_invocation_index or how large they are: each
// subgroup takes its place in the tile from an atomic counter, as many lanes as it has active
// invocations. It does assume (as WebGPU promises: subgroup sizes are powers of two from 4 to 128)
// that a workgroup of 256 invocations fills its subgroups, so that subgroup_invocation_id counts
// 0..lanes.
//
// WGSL's `enable subgroups;` is not written: naga (wgpu's shader compiler on native targets)
// does not take it yet, and takes subgroup operations when the device has Features::SUBGROUP. On
// the web, where a browser compiles the WGSL and would want it, wgmerge does not use subgroups.

#import lib/scan_op
#import lib/subgroup_reduce

var<private> lane: u32;
var<private> lanes: u32;
var<private> lane_group_base: u32;

// Lanes taken so far; each group's total and lane count, at its base.
var<workgroup> wg_lanes_taken: atomic<u32>;
var<workgroup> wg_group_total: array<u32, WORKGROUP_SIZE>;
var<workgroup> wg_group_lanes: array<u32, WORKGROUP_SIZE>;
var<workgroup> wg_group_prefix: array<u32, WORKGROUP_SIZE>;
var<workgroup> wg_total: u32;

// Sets the invocation's place. Every invocation calls it first (it holds barriers).
fn lanes_begin(lid: u32) {
    if lid == 0u {
        atomicStore(&wg_lanes_taken, 0u);
    }
    workgroupBarrier();
    lane = subgroupExclusiveAdd(1u);
    lanes = subgroupAdd(1u);
    var base = 0u;
    if lane == 0u {
        base = atomicAdd(&wg_lanes_taken, lanes);
    }
    lane_group_base = subgroupBroadcastFirst(base);
}

struct LaneScan {
    exclusive: vec4<u32>,
    total: vec4<u32>,
}

// Exclusive scan of `x` across the subgroup's lanes, four rows at once, and each row's total.
fn lanes_exclusive(x: vec4<u32>) -> LaneScan {
    let total = subgroup_reduce4(x);
    if OPERATOR == OP_SUM {
        if ELEMENT == ELEMENT_F32 {
            // The first lane takes the identity, -0.0: the hardware may start from +0.0.
            let exclusive = bitcast<vec4<u32>>(subgroupExclusiveAdd(bitcast<vec4<f32>>(x)));
            return LaneScan(select(exclusive, vec4(identity()), lane == 0u), total);
        }
        return LaneScan(subgroupExclusiveAdd(x), total);
    }
    // Minimum and maximum: Hillis and Steele's scan through shuffles. The bound is constant so
    // that every lane runs every shuffle; shuffles from beyond the subgroup are never used.
    var inclusive = x;
    for (var d = 1u; d < 128u; d *= 2u) {
        let below = subgroupShuffleUp(inclusive, d);
        if lane >= d {
            inclusive = combine4(below, inclusive);
        }
    }
    let before = subgroupShuffleUp(inclusive, 1u);
    return LaneScan(select(before, vec4(identity()), lane == 0u), total);
}

// The prefix of this group's `total` among the workgroup's groups (in the order of their bases),
// and the workgroup's total. Every invocation calls it (it holds barriers).
fn groups_exclusive(total: u32) -> vec2<u32> {
    if lane == 0u {
        wg_group_total[lane_group_base] = total;
        wg_group_lanes[lane_group_base] = lanes;
    }
    workgroupBarrier();
    if lane == 0u && lane_group_base == 0u {
        var at = 0u;
        var running = identity();
        // At most WORKGROUP_SIZE / 4 groups; the bound keeps a bad lane count from looping.
        for (var step = 0u; step < WORKGROUP_SIZE && at < WORKGROUP_SIZE; step++) {
            wg_group_prefix[at] = running;
            running = combine(running, wg_group_total[at]);
            at += max(wg_group_lanes[at], 1u);
        }
        wg_total = running;
    }
    workgroupBarrier();
    let prefix = wg_group_prefix[lane_group_base];
    let all = wg_total;
    workgroupBarrier();
    return vec2(prefix, all);
}

// The combination of every invocation's `x`. Every invocation calls it.
fn workgroup_reduce(x: u32) -> u32 {
    return groups_exclusive(subgroup_reduce(x)).y;
}
