// Keys only: nothing moves with them.

fn write_value(k: u32, from_a: bool, src: u32) {}
