// Keys only: radix sort and compaction move no values.

const MOVES_VALUES: bool = false;

fn move_value(src: u32, dst: u32) {}
fn load_value(src: u32) -> u32 {
    return 0u;
}
fn put_value(word: u32, dst: u32) {}
