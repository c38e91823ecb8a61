// 8-byte values (u64, f64, [u32; 2] or any 8-byte Pod), moved as two words.

alias Value = vec2<u32>;

#import lib/values/common
