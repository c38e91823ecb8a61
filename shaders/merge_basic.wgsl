// Basic merge: every invocation owns ITEMS_PER_THREAD consecutive outputs, co-ranks both ends of
// its range by binary search over global memory and merges that range sequentially.

#import lib/dispatch
#import lib/merge_io
#import lib/co_rank

fn read_a(space: u32, i: u32) -> Key { return a_keys[i]; }
fn read_b(space: u32, j: u32) -> Key { return b_keys[j]; }
fn emit(space: u32, k: u32, key: Key, from_a: bool, src: u32) { write_output(k, key, from_a, src); }

@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_basic(@builtin(workgroup_id) workgroup_id: vec3<u32>,
               @builtin(num_workgroups) num_workgroups: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let m = params.a_len;
    let n = params.b_len;
    let total = m + n;
    let invocation = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE + lid;
    let k0 = min(invocation * ITEMS_PER_THREAD, total);
    let k1 = min(k0 + ITEMS_PER_THREAD, total);
    merge_range(SPACE_GLOBAL, k0, k1, m, n);
}
