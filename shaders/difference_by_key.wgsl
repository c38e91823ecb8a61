// The key filter: each element of A whose key occurs nowhere in the sorted B (a binary search of
// B with lib/search.wgsl), selected in one pass by lib/select.wgsl: what a tombstone filter
// needs, unlike the multiset difference, which drops only as many copies as B has. A need not be
// sorted.

#import lib/select
#import lib/search

@group(0) @binding(6) var<storage, read> b: array<Key>;

fn read_side(side: u32, i: u32) -> Key {
    return b[i];
}

// lib/select.wgsl's hooks: a row needs no key beyond its own; a key stays when B lacks it.
fn row_edge(first: u32) -> Key {
    return Key();
}

fn row_kept(first: u32, row: Row) -> u32 {
    var bits = 0u;
    for (var c = 0u; c < ROW_KEYS; c++) {
        if first + c < params.len {
            let key = row.keys[c];
            let at = lower_bound(SIDE_B, key, 0u, params.other_len);
            // B[at] is not before the key; it is the key when the key is not before it either.
            if at >= params.other_len || key_before(key, b[at]) {
                bits |= 1u << c;
            }
        }
    }
    return bits;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn difference_by_key(@builtin(local_invocation_index) lid: u32) {
    select_tiles(lid);
}
