// Merge path with values: the merge stages each output's tile slot, which gives its key and the
// index of its value in A or B.

alias Staged = u32;

fn stage(key: Key, slot: u32) -> Staged {
    return slot;
}

fn write_staged(k: u32, staged: Staged, count: u32, a_len: u32, a0: u32, b0: u32) {
    // Clamped so that unsorted input stays in the tile.
    let slot = min(staged, count - 1u);
    let from_a = slot < a_len;
    write_output(k, tile[slot], from_a, select(b0 + slot - a_len, a0 + slot, from_a));
}
