// Values moved with their keys, copied bit for bit. `Value` is declared by the module that
// imports this one: lib/values/u32.wgsl (4-byte values) or lib/values/vec2.wgsl (8 bytes).

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
