// Bindings and output shared by the merge kernels. Values, when present, come from the `values`
// parameter (lib/values/u32.wgsl or vec2.wgsl; lib/values/none.wgsl otherwise), so a keys-only
// kernel binds only its three key buffers.

#import key
#import values

struct MergeParams {
    a_len: u32,
    b_len: u32,
    // Tiled kernels: output tiles each workgroup merges, one tile per step.
    tiles_per_group: u32,
    // Merge path in sort's merge passes: merge each pair of consecutive sorted runs of run_len
    // keys of A (bound as both A and B, with b_len = 0); 0 for one plain merge of A and B.
    run_len: u32,
}

@group(0) @binding(0) var<uniform> params: MergeParams;
@group(0) @binding(1) var<storage, read> a_keys: array<Key>;
@group(0) @binding(2) var<storage, read> b_keys: array<Key>;
@group(0) @binding(3) var<storage, read_write> out_keys: array<Key>;

override WORKGROUP_SIZE: u32 = 128u;
override ITEMS_PER_THREAD: u32 = 8u;

// Writes output rank `k`; `src` is the element's index in A (from_a) or B, global.
fn write_output(k: u32, key: Key, from_a: bool, src: u32) {
    out_keys[k] = key;
    write_value(k, from_a, src);
}
