// Dispatch shape shared by every kernel: dispatches larger than the per-dimension limit are
// folded into two dimensions by the host, and recombined here.

fn group_index(workgroup_id: vec3<u32>, num_workgroups: vec3<u32>) -> u32 {
    return workgroup_id.y * num_workgroups.x + workgroup_id.x;
}
