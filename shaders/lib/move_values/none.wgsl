// Keys only: radix sort and compaction move no values.

fn move_value(src: u32, dst: u32) {}
fn load_value(src: u32) -> u32 {
    return 0u;
}
fn stage_value(slot: u32, value: u32) {}
fn put_staged_value(slot: u32, dst: u32) {}
