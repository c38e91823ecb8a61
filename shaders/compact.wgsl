// Compaction (CUB's DeviceSelect::Flagged): keeps the keys (and values) whose flag is 1, in
// input order. An operation's own kernel writes the flags; the crate's scan turns them into
// `places` (an exclusive sum); this kernel writes each kept key there and, from the last
// invocation, the number kept. Dedup and the key filters select with it.

#import lib/dispatch
#import key
#import move_values

struct CompactParams {
    len: u32,
    // Word of `count` that receives the number of kept keys.
    count_at: u32,
}

@group(0) @binding(0) var<uniform> params: CompactParams;
@group(0) @binding(1) var<storage, read> keys_in: array<Key>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<Key>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(6) var<storage, read> places: array<u32>;
@group(0) @binding(7) var<storage, read_write> count: array<u32>;

const WORKGROUP_SIZE: u32 = 256u;

@compute @workgroup_size(256)
fn compact(@builtin(workgroup_id) workgroup_id: vec3<u32>,
           @builtin(num_workgroups) num_workgroups: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = group_index(workgroup_id, num_workgroups) * WORKGROUP_SIZE + lid;
    if params.len == 0u && i == 0u {
        count[params.count_at] = 0u;
    }
    if i >= params.len {
        return;
    }
    let kept = flags[i] != 0u;
    let place = places[i];
    if kept {
        keys_out[place] = keys_in[i];
        move_value(i, place);
    }
    if i + 1u == params.len {
        count[params.count_at] = place + u32(kept);
    }
}
