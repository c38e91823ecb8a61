// Sorted search: for each needle, the index at which it would go in the sorted haystack, as
// `slice::partition_point` gives it: the first index whose key is not before the needle
// (lower bound), or the first whose key is after it (UPPER), in the operation's order. One
// invocation per needle, each a binary search of the haystack (lib/search.wgsl), which returns
// an index within the haystack whatever its contents.

#import lib/dispatch
#import lib/search

struct SearchParams {
    haystack_len: u32,
    needles_len: u32,
}

@group(0) @binding(0) var<uniform> params: SearchParams;
@group(0) @binding(1) var<storage, read> haystack: array<Key>;
@group(0) @binding(2) var<storage, read> needles: array<Key>;
@group(0) @binding(3) var<storage, read_write> found: array<u32>;

override UPPER: bool = false;

const WORKGROUP_SIZE: u32 = 256u;

fn read_side(side: u32, i: u32) -> Key {
    return haystack[i];
}

@compute @workgroup_size(256)
fn search_sorted(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                 @builtin(num_workgroups) num_workgroups: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let i = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE + lid;
    if i >= params.needles_len {
        return;
    }
    let needle = needles[i];
    if UPPER {
        found[i] = upper_bound(SIDE_A, needle, 0u, params.haystack_len);
    } else {
        found[i] = lower_bound(SIDE_A, needle, 0u, params.haystack_len);
    }
}
