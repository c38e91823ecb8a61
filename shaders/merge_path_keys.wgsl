// Merge path, keys only: the merge stages each output's key itself, so writing an output back
// is one read of workgroup memory.

alias Staged = Key;

fn stage(key: Key, slot: u32) -> Staged {
    return key;
}

fn write_staged(k: u32, staged: Staged, count: u32, a_len: u32, a0: u32, b0: u32) {
    out_keys[k] = staged;
}
