// A plain copy of vec4<u32> words: the bandwidth reference that benchmarks compare the merge with.
// Each invocation copies ITEMS_PER_THREAD words, consecutive invocations consecutive words, so
// every load and store of a workgroup is coalesced.

struct CopyParams {
    words: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: CopyParams;
@group(0) @binding(1) var<storage, read> source: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> destination: array<vec4<u32>>;

override WORKGROUP_SIZE: u32 = 256u;
override ITEMS_PER_THREAD: u32 = 4u;

fn group_index(workgroup_id: vec3<u32>, num_workgroups: vec3<u32>) -> u32 {
    return workgroup_id.y * num_workgroups.x + workgroup_id.x;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn copy(@builtin(workgroup_id) workgroup_id: vec3<u32>,
        @builtin(num_workgroups) num_workgroups: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let first = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE * ITEMS_PER_THREAD + lid;
    for (var item = 0u; item < ITEMS_PER_THREAD; item++) {
        let word = first + item * WORKGROUP_SIZE;
        if word < params.words {
            destination[word] = source[word];
        }
    }
}
