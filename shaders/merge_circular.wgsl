// Circular-buffer merge: the tiled kernel with tile_a and tile_b used as ring buffers. After the
// first step a step loads only as many elements as the previous one consumed, into the slots they
// freed. Co-rank and the sequential merge read the rings through the book's simplified model: a
// logical index counted from the first unconsumed element, wrapped modulo TILE on access.

#import lib/dispatch
#import lib/merge_io
#import lib/co_rank

override TILE: u32 = WORKGROUP_SIZE * ITEMS_PER_THREAD;

var<workgroup> ring_a: array<Key, TILE>;
var<workgroup> ring_b: array<Key, TILE>;
var<workgroup> shared_a_begin: u32;
var<workgroup> shared_a_end: u32;

// Ring slots of the first unconsumed elements, and global indices of those elements and of the
// step's first output.
var<private> a_head: u32;
var<private> b_head: u32;
var<private> a_base: u32;
var<private> b_base: u32;
var<private> out_base: u32;

fn read_a(space: u32, i: u32) -> Key {
    if space == SPACE_GLOBAL { return a_keys[i]; }
    return ring_a[(a_head + i) % TILE];
}
fn read_b(space: u32, j: u32) -> Key {
    if space == SPACE_GLOBAL { return b_keys[j]; }
    return ring_b[(b_head + j) % TILE];
}
fn emit(space: u32, k: u32, key: Key, from_a: bool, src: u32) {
    write_output(out_base + k, key, from_a, select(b_base, a_base, from_a) + src);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_circular(@builtin(workgroup_id) workgroup_id: vec3<u32>,
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

    // Loaded and consumed are tracked apart: the book's kernel assumes every step refilled a full
    // tile, which re-reads the wrong elements once an input's range runs short.
    var a_loaded = 0u;
    var b_loaded = 0u;
    var a_used = 0u;
    var b_used = 0u;
    for (var c_done = 0u; c_done < c_len; c_done += TILE) {
        let a_fill_end = max(a_loaded, min(a_used + TILE, a_len));
        let b_fill_end = max(b_loaded, min(b_used + TILE, b_len));
        for (var x = a_loaded + lid; x < a_fill_end; x += WORKGROUP_SIZE) {
            ring_a[x % TILE] = a_keys[a_begin + x];
        }
        for (var x = b_loaded + lid; x < b_fill_end; x += WORKGROUP_SIZE) {
            ring_b[x % TILE] = b_keys[b_begin + x];
        }
        a_loaded = a_fill_end;
        b_loaded = b_fill_end;
        workgroupBarrier();

        let a_avail = remaining(a_loaded, a_used);
        let b_avail = remaining(b_loaded, b_used);
        let out_count = min(TILE, c_len - c_done);
        a_head = a_used % TILE;
        b_head = b_used % TILE;
        a_base = a_begin + a_used;
        b_base = b_begin + b_used;
        out_base = c_begin + c_done;
        let k0 = min(lid * ITEMS_PER_THREAD, out_count);
        merge_range(SPACE_TILE, k0, min(k0 + ITEMS_PER_THREAD, out_count), a_avail, b_avail);

        let a_step = co_rank(SPACE_TILE, out_count, a_avail, b_avail);
        a_used += a_step;
        b_used += out_count - a_step;
        workgroupBarrier();
    }
}
