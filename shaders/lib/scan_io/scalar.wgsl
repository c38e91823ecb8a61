// Scan and reduce read and write single words, four per vec4: for bound ranges of any length.
// Elements at or beyond params.len read as the identity and are not written.

@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

fn load4(q: u32, len: u32) -> vec4<u32> {
    var v = vec4(identity());
    for (var c = 0u; c < 4u; c++) {
        if q * 4u + c < len { v[c] = input[q * 4u + c]; }
    }
    return v;
}

fn store4(q: u32, len: u32, v: vec4<u32>) {
    for (var c = 0u; c < 4u; c++) {
        if q * 4u + c < len { output[q * 4u + c] = v[c]; }
    }
}
