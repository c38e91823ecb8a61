// Bindings and output shared by the merge kernels. Values are optional 4-byte payloads moved with
// their keys; a keys-only pipeline is built with WITH_VALUES = false and the value bindings hold a
// placeholder buffer it never touches.

struct MergeParams {
    a_len: u32,
    b_len: u32,
    // Tiled kernels: output tiles each workgroup merges, one tile per step.
    tiles_per_group: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: MergeParams;
@group(0) @binding(1) var<storage, read> a_keys: array<Key>;
@group(0) @binding(2) var<storage, read> b_keys: array<Key>;
@group(0) @binding(3) var<storage, read_write> out_keys: array<Key>;
@group(0) @binding(4) var<storage, read> a_values: array<u32>;
@group(0) @binding(5) var<storage, read> b_values: array<u32>;
@group(0) @binding(6) var<storage, read_write> out_values: array<u32>;

override WORKGROUP_SIZE: u32 = 128u;
override ITEMS_PER_THREAD: u32 = 8u;
override WITH_VALUES: bool = false;

// Writes output rank `k`; `src` is the element's index in A (from_a) or B, global.
fn write_output(k: u32, key: Key, from_a: bool, src: u32) {
    out_keys[k] = key;
    if WITH_VALUES {
        if from_a {
            out_values[k] = a_values[src];
        } else {
            out_values[k] = b_values[src];
        }
    }
}

// Dispatches larger than the per-dimension limit are folded into two dimensions.
fn group_index(workgroup_id: vec3<u32>, num_workgroups: vec3<u32>) -> u32 {
    return workgroup_id.y * num_workgroups.x + workgroup_id.x;
}
