// Dedup's flags: 1 for the first (or, with KEEP_LAST, the last) key of each run of consecutive
// equal keys, as `Vec::dedup` keeps the first; compact.wgsl then keeps the flagged keys. Keys
// are equal when neither comes before the other in the key's order (`f32` by total_cmp: -0.0
// and +0.0 differ, a NaN equals itself).

#import lib/dispatch
#import key

struct DedupParams {
    len: u32,
}

@group(0) @binding(0) var<uniform> params: DedupParams;
@group(0) @binding(1) var<storage, read> keys_in: array<Key>;
@group(0) @binding(3) var<storage, read_write> flags: array<u32>;

override KEEP_LAST: bool = false;

const WORKGROUP_SIZE: u32 = 256u;

fn same(x: Key, y: Key) -> bool {
    return !key_less(x, y) && !key_less(y, x);
}

// Whether key i is the one of its run that stays.
fn is_kept(i: u32) -> bool {
    if KEEP_LAST {
        return i + 1u == params.len || !same(keys_in[i], keys_in[i + 1u]);
    }
    return i == 0u || !same(keys_in[i - 1u], keys_in[i]);
}

@compute @workgroup_size(256)
fn dedup_mark(@builtin(workgroup_id) workgroup_id: vec3<u32>,
              @builtin(num_workgroups) num_workgroups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE + lid;
    if i < params.len {
        flags[i] = u32(is_kept(i));
    }
}
