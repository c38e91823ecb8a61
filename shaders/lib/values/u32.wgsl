// 4-byte values (u32, i32, f32 or any 4-byte Pod), moved as their bits.

alias Value = u32;

#import lib/values/common
