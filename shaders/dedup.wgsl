// Dedup: the first (or, with KEEP_LAST, the last) key of each run of consecutive equal keys, as
// `Vec::dedup` keeps the first, and their values, selected in one pass by lib/select.wgsl. Keys
// are equal when neither comes before the other in the key's order (`f32` by total_cmp: -0.0 and
// +0.0 differ, a NaN equals itself).

#import lib/select

override KEEP_LAST: bool = false;

fn same(x: Key, y: Key) -> bool {
    return !key_less(x, y) && !key_less(y, x);
}

// lib/select.wgsl's hook: whether key i, `key`, is the one of its run that stays.
fn is_kept(i: u32, key: Key) -> bool {
    if KEEP_LAST {
        return i + 1u == params.len || !same(key, keys_in[i + 1u]);
    }
    return i == 0u || !same(keys_in[i - 1u], key);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn dedup(@builtin(local_invocation_index) lid: u32) {
    select_tile(lid);
}
