// Values moved with their keys, copied bit for bit. `Value` (u32 for 4-byte values, vec2<u32>
// for 8-byte ones) is declared by the composition step (see src/shader.rs).

@group(0) @binding(4) var<storage, read> a_values: array<Value>;
@group(0) @binding(5) var<storage, read> b_values: array<Value>;
@group(0) @binding(6) var<storage, read_write> out_values: array<Value>;

fn read_value(from_a: bool, src: u32) -> Value {
    if from_a {
        return a_values[src];
    }
    return b_values[src];
}

fn write_value(k: u32, from_a: bool, src: u32) {
    out_values[k] = read_value(from_a, src);
}
