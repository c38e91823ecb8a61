// Tiled merge: a workgroup owns tiles_per_group * TILE consecutive outputs. Invocation 0 co-ranks
// the two ends of that range over global memory, once for the workgroup. Then, one output tile a
// step, the workgroup loads up to TILE elements of A and of B into workgroup memory (coalesced),
// every invocation co-ranks and merges its ITEMS_PER_THREAD outputs inside the tiles, and the
// workgroup advances by what the step consumed.

#import lib/dispatch
#import lib/merge_io
#import lib/co_rank

override TILE: u32 = WORKGROUP_SIZE * ITEMS_PER_THREAD;

var<workgroup> tile_a: array<Key, TILE>;
var<workgroup> tile_b: array<Key, TILE>;
var<workgroup> shared_a_begin: u32;
var<workgroup> shared_a_end: u32;

// Global indices of tile_a[0], tile_b[0] and of the step's first output.
var<private> a_base: u32;
var<private> b_base: u32;
var<private> out_base: u32;

fn read_a(space: u32, i: u32) -> Key {
    if space == SPACE_GLOBAL { return a_keys[i]; }
    return tile_a[i];
}
fn read_b(space: u32, j: u32) -> Key {
    if space == SPACE_GLOBAL { return b_keys[j]; }
    return tile_b[j];
}
fn emit(space: u32, k: u32, key: Key, from_a: bool, src: u32) {
    write_output(out_base + k, key, from_a, select(b_base, a_base, from_a) + src);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_tiled(@builtin(workgroup_id) workgroup_id: vec3<u32>,
               @builtin(num_workgroups) num_workgroups: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let m = params.a_len;
    let n = params.b_len;
    let total = m + n;
    let range = TILE * params.tiles_per_group;
    let c_begin = min(group_index(workgroup_id, num_workgroups) * range, total);
    let c_end = min(c_begin + range, total);
    if lid == 0u {
        shared_a_begin = co_rank(SPACE_GLOBAL, c_begin, m, n);
        shared_a_end = co_rank(SPACE_GLOBAL, c_end, m, n);
    }
    let a_begin = workgroupUniformLoad(&shared_a_begin);
    let a_end = max(a_begin, workgroupUniformLoad(&shared_a_end));
    let b_begin = c_begin - a_begin;
    let a_len = a_end - a_begin;
    let b_len = remaining(c_end - a_end, b_begin);
    let c_len = c_end - c_begin;

    var a_used = 0u;
    var b_used = 0u;
    for (var c_done = 0u; c_done < c_len; c_done += TILE) {
        let a_avail = min(TILE, remaining(a_len, a_used));
        let b_avail = min(TILE, remaining(b_len, b_used));
        for (var x = lid; x < a_avail; x += WORKGROUP_SIZE) { tile_a[x] = a_keys[a_begin + a_used + x]; }
        for (var x = lid; x < b_avail; x += WORKGROUP_SIZE) { tile_b[x] = b_keys[b_begin + b_used + x]; }
        workgroupBarrier();

        let out_count = min(TILE, c_len - c_done);
        a_base = a_begin + a_used;
        b_base = b_begin + b_used;
        out_base = c_begin + c_done;
        let k0 = min(lid * ITEMS_PER_THREAD, out_count);
        merge_range(SPACE_TILE, k0, min(k0 + ITEMS_PER_THREAD, out_count), a_avail, b_avail);

        // The book's kernel co-ranks TILE over full tiles here; near the end of the range the
        // tiles hold fewer elements, so the consumed count must co-rank over what was loaded.
        let a_step = co_rank(SPACE_TILE, out_count, a_avail, b_avail);
        a_used += a_step;
        b_used += out_count - a_step;
        workgroupBarrier();
    }
}
