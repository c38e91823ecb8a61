// Reduction of 32-bit elements under lib/scan_op.wgsl's operator, in two dispatches that read the
// input once. reduce_tiles: workgroup w combines tiles w, w + G, w + 2G, ... (G workgroups), each
// invocation loading four vec4s per tile (coalesced), and writes its total to partials[w].
// reduce_partials: one workgroup combines the partials, after the total carried in from the
// pieces before, into aux[params.carry_out]. The order of combination is fixed by the shape,
// so f32 sums are the same from run to run on one adapter.

#import lib/dispatch
#import lib/scan_op
#import lanes
#import io

struct ReduceParams {
    len: u32,
    tiles: u32,
    // As ScanParams: the running total before this piece (or NO_CARRY), and where the new one goes.
    carry_in: u32,
    carry_out: u32,
}
const NO_CARRY: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: ReduceParams;
@group(0) @binding(3) var<storage, read_write> partials: array<u32>;
// [0, 2): running totals between pieces, as scan.wgsl's `aux`.
@group(0) @binding(4) var<storage, read_write> aux: array<u32>;

override WORKGROUP_SIZE: u32 = 256u;
const VECS: u32 = 4u;

@compute @workgroup_size(WORKGROUP_SIZE)
fn reduce_tiles(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                @builtin(num_workgroups) num_workgroups: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    lanes_begin(lid);
    let group = group_index(workgroup_id, num_workgroups);
    let groups = num_workgroups.x * num_workgroups.y;
    var running = vec4(identity());
    for (var tile = group; tile < params.tiles; tile += groups) {
        let base = tile * WORKGROUP_SIZE * VECS + lane_group_base * VECS + lane;
        for (var k = 0u; k < VECS; k++) {
            running = combine4(running, load4(base + k * lanes, params.len));
        }
    }
    let mine = combine(combine(running.x, running.y), combine(running.z, running.w));
    let total = workgroup_reduce(mine);
    if lid == 0u {
        partials[group] = total;
    }
}

// params.tiles is the number of partials here.
@compute @workgroup_size(WORKGROUP_SIZE)
fn reduce_partials(@builtin(local_invocation_index) lid: u32) {
    lanes_begin(lid);
    var running = identity();
    for (var i = lid; i < params.tiles; i += WORKGROUP_SIZE) {
        running = combine(running, partials[i]);
    }
    let total = workgroup_reduce(running);
    if lid == 0u {
        var before = identity();
        if params.carry_in != NO_CARRY {
            before = aux[params.carry_in];
        }
        aux[params.carry_out] = combine(before, total);
    }
}
