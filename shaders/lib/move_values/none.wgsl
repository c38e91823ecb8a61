// Keys only: radix sort and compaction move no values.

fn move_value(src: u32, dst: u32) {}
fn stage_value(slot: u32, src: u32) {}
fn move_staged_value(slot: u32, dst: u32) {}
