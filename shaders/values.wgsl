// 4-byte values moved with their keys, copied bit for bit.

@group(0) @binding(4) var<storage, read> a_values: array<u32>;
@group(0) @binding(5) var<storage, read> b_values: array<u32>;
@group(0) @binding(6) var<storage, read_write> out_values: array<u32>;

fn write_value(k: u32, from_a: bool, src: u32) {
    if from_a {
        out_values[k] = a_values[src];
    } else {
        out_values[k] = b_values[src];
    }
}
