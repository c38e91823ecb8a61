// Sortedness check for the `validate` options: records the smallest index i with keys[i] strictly
// before keys[i - 1] (in the operation's order) in word params.word of first_unsorted, which the
// host set to u32 max (none found).

#import lib/dispatch
#import lib/order

struct ValidateParams {
    len: u32,
    word: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: ValidateParams;
@group(0) @binding(1) var<storage, read> keys: array<Key>;
@group(0) @binding(2) var<storage, read_write> first_unsorted: array<atomic<u32>>;

override WORKGROUP_SIZE: u32 = 256u;

@compute @workgroup_size(WORKGROUP_SIZE)
fn find_unsorted(@builtin(workgroup_id) workgroup_id: vec3<u32>,
                 @builtin(num_workgroups) num_workgroups: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let i = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE + lid + 1u;
    if i < params.len && key_before(keys[i], keys[i - 1u]) {
        atomicMin(&first_unsorted[params.word], i);
    }
}
