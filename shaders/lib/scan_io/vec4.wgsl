// Scan and reduce read and write whole vec4s: the bound range must hold a multiple of 4 words
// (the slice forms pad their own buffers; the resident forms take this only for lengths that are
// multiples of 4). Elements at or beyond params.len read as the identity and are not written.

@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<u32>>;

fn load4(q: u32, len: u32) -> vec4<u32> {
    if q * 4u + 3u < len {
        return input[q];
    }
    var v = vec4(identity());
    if q * 4u < len {
        let loaded = input[q];
        for (var c = 0u; c < 4u; c++) {
            if q * 4u + c < len { v[c] = loaded[c]; }
        }
    }
    return v;
}

fn store4(q: u32, len: u32, v: vec4<u32>) {
    if q * 4u < len {
        output[q] = v;
    }
}
