// Merge sort, first pass: each workgroup sorts TILE consecutive keys of A into sorted runs of
// TILE (the last run may be shorter), stably. Later passes merge pairs of runs with merge path
// (merge_path.wgsl with params.run_len).
//
// The tile's keys stay where they were loaded; what moves is a permutation of tile slots. Each
// invocation first sorts its own ITEMS_PER_THREAD slots by insertion, then rounds of merges
// double the run length: in each round every invocation co-ranks its outputs within its pair of
// runs and merges them (co_rank.wgsl), writing the other half of `perm`. Ties take the earlier
// run first, so the sort is stable.

#import lib/dispatch
#import lib/merge_io
#import lib/co_rank

override TILE: u32 = WORKGROUP_SIZE * ITEMS_PER_THREAD;
override PERM_SLOTS: u32 = 2u * WORKGROUP_SIZE * ITEMS_PER_THREAD;

var<workgroup> tile: array<Key, TILE>;
// Two permutations of tile slots, [0, TILE) and [TILE, 2 TILE): one read, one written per round.
var<workgroup> perm: array<u32, PERM_SLOTS>;

// The pair of runs being merged, as offsets into `perm`, and where its output goes.
var<private> run_a: u32;
var<private> run_b: u32;
var<private> run_out: u32;

fn read_a(space: u32, i: u32) -> Key {
    return tile[perm[run_a + i]];
}
fn read_b(space: u32, j: u32) -> Key {
    return tile[perm[run_b + j]];
}
fn emit(space: u32, k: u32, key: Key, from_a: bool, src: u32) {
    perm[run_out + k] = perm[select(run_b, run_a, from_a) + src];
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn sort_block(@builtin(workgroup_id) workgroup_id: vec3<u32>,
              @builtin(num_workgroups) num_workgroups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let total = params.a_len;
    let k0 = group_index(workgroup_id, num_workgroups) * TILE;
    if k0 >= total { return; }
    let count = min(TILE, total - k0);

    for (var x = lid; x < count; x += WORKGROUP_SIZE) {
        tile[x] = a_keys[k0 + x];
        perm[x] = x;
    }
    workgroupBarrier();

    // This invocation's slots, [d0, d1), sorted by insertion (stable: only a strictly earlier
    // key moves left).
    let d0 = min(lid * ITEMS_PER_THREAD, count);
    let d1 = min(d0 + ITEMS_PER_THREAD, count);
    for (var x = d0 + 1u; x < d1; x++) {
        let slot = perm[x];
        let key = tile[slot];
        var y = x;
        while y > d0 && key_before(key, tile[perm[y - 1u]]) {
            perm[y] = perm[y - 1u];
            y--;
        }
        perm[y] = slot;
    }
    workgroupBarrier();

    // Runs of `width` become runs of 2 width. Each invocation's outputs lie in one pair of runs
    // because width is ITEMS_PER_THREAD times a power of two.
    var current = 0u;
    for (var width = ITEMS_PER_THREAD; width < count; width *= 2u) {
        let start = d0 / (2u * width) * (2u * width);
        let a_len = min(width, count - start);
        let b_len = min(width, count - start - a_len);
        run_a = current + start;
        run_b = run_a + a_len;
        run_out = (TILE - current) + start;
        merge_range(SPACE_TILE, d0 - start, d1 - start, a_len, b_len);
        current = TILE - current;
        workgroupBarrier();
    }

    for (var x = lid; x < count; x += WORKGROUP_SIZE) {
        let slot = perm[current + x];
        write_output(k0 + x, tile[slot], true, k0 + slot);
    }
}
