// Dedup: the first (or, with KEEP_LAST, the last) key of each run of consecutive equal keys, as
// `Vec::dedup` keeps the first, and their values, selected in one pass by lib/select.wgsl. Keys
// are equal when neither comes before the other in the key's order (`f32` by total_cmp: -0.0 and
// +0.0 differ, a NaN equals itself).

#import lib/select

override KEEP_LAST: bool = false;

fn same(x: Key, y: Key) -> bool {
    return !key_less(x, y) & !key_less(y, x);
}

// lib/select.wgsl's hooks. A row's edge is the key before it (after it, keeping the last), or
// zero where there is none.
fn row_edge(first: u32) -> Key {
    var edge: Key;
    if KEEP_LAST {
        if first + ROW_KEYS < params.len {
            edge = key_at(first + ROW_KEYS);
        }
    } else if first > 0u && first <= params.len {
        edge = key_at(first - 1u);
    }
    return edge;
}

fn row_kept(first: u32, row: Row) -> u32 {
    var bits = 0u;
    for (var c = 0u; c < ROW_KEYS; c++) {
        let i = first + c;
        var kept = false;
        if KEEP_LAST {
            var next = row.edge;
            if c + 1u < ROW_KEYS {
                next = row.keys[c + 1u];
            }
            kept = (i + 1u == params.len) | !same(row.keys[c], next);
        } else {
            var previous = row.edge;
            if c > 0u {
                previous = row.keys[c - 1u];
            }
            kept = (i == 0u) | !same(previous, row.keys[c]);
        }
        if (i < params.len) & kept {
            bits |= 1u << c;
        }
    }
    return bits;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn dedup(@builtin(local_invocation_index) lid: u32) {
    select_tiles(lid);
}
