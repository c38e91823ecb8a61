// A selection's keys bound one key an element (lib/select.wgsl's `keys_in`): every key type, any
// binding.

@group(0) @binding(1) var<storage, read> keys_in: array<Key>;

// Keys per row (lib/select.wgsl): 32 bytes of them.
const ROW_KEYS: u32 = 8u / KEY_WORDS;

fn key_at(i: u32) -> Key {
    return keys_in[i];
}

// The row of ROW_KEYS keys from `first`; keys at or beyond params.len read as zero.
fn load_row(first: u32) -> array<Key, ROW_KEYS> {
    return load_row_by_key(first);
}
