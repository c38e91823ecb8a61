// Key filter flags for difference_by_key: 1 for each element of A whose key occurs nowhere in
// the sorted B (a binary search of B with lib/search.wgsl), so that compact.wgsl keeps exactly
// those: what a tombstone filter needs, unlike the multiset difference, which drops only as
// many copies as B has. A need not be sorted.

#import lib/dispatch
#import lib/search

struct FilterParams {
    a_len: u32,
    b_len: u32,
}

@group(0) @binding(0) var<uniform> params: FilterParams;
@group(0) @binding(1) var<storage, read> a: array<Key>;
@group(0) @binding(2) var<storage, read> b: array<Key>;
@group(0) @binding(3) var<storage, read_write> flags: array<u32>;

const WORKGROUP_SIZE: u32 = 256u;

fn read_side(side: u32, i: u32) -> Key {
    return b[i];
}

@compute @workgroup_size(256)
fn difference_by_key_mark(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                          @builtin(num_workgroups) num_workgroups: vec3<u32>,
                          @builtin(local_invocation_index) lid: u32) {
    let i = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE + lid;
    if i >= params.a_len {
        return;
    }
    let key = a[i];
    let at = lower_bound(SIDE_B, key, 0u, params.b_len);
    // B[at] is not before the key; it is the key when the key is not before it either.
    let found = at < params.b_len && !key_before(key, b[at]);
    flags[i] = u32(!found);
}
