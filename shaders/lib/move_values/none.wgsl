// Keys only: radix sort moves no values.

fn move_value(src: u32, dst: u32) {}
