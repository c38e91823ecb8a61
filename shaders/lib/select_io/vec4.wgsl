// A selection's 4-byte keys bound as whole vec4s (lib/select.wgsl's `keys_in`), so a row of
// ROW_KEYS keys is ROW_KEYS / 4 loads (run 171, dedup of 2^28 u32 keys on the H100: 1.5% faster
// than one load a key). The binding covers params.len keys rounded up to a multiple of 4, which
// the host binds only where the buffer holds them.

@group(0) @binding(1) var<storage, read> keys_in: array<vec4<u32>>;

// Keys per row (lib/select.wgsl): two vec4s.
const ROW_KEYS: u32 = 8u;

fn key_at(i: u32) -> Key {
    return bitcast<Key>(keys_in[i / 4u][i % 4u]);
}

// The row of ROW_KEYS keys from `first` (a multiple of 4); keys at or beyond params.len read as
// zero.
fn load_row(first: u32) -> array<Key, ROW_KEYS> {
    if first + ROW_KEYS > params.len {
        return load_row_by_key(first);
    }
    var keys: array<Key, ROW_KEYS>;
    for (var q = 0u; q < ROW_KEYS / 4u; q++) {
        let words = bitcast<vec4<Key>>(keys_in[first / 4u + q]);
        for (var c = 0u; c < 4u; c++) {
            keys[4u * q + c] = words[c];
        }
    }
    return keys;
}
