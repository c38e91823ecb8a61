// The operator of scans and reductions, on 32-bit words that hold an element's bits. OPERATOR
// 0 sums (wrapping for integers), 1 keeps the minimum, 2 the maximum; ELEMENT 0 is u32, 1 i32,
// 2 f32. Minimum and maximum of f32 follow f32::total_cmp, as the crate's f32 keys do, so every
// float, NaNs included, has a place and no driver's NaN rule is involved. Sums of f32 are IEEE
// sums, associated in the order the kernel's tiles impose (see scan.rs).

override OPERATOR: u32 = 0u;
override ELEMENT: u32 = 0u;

const OP_SUM: u32 = 0u;
const OP_MIN: u32 = 1u;
const OP_MAX: u32 = 2u;
const ELEMENT_I32: u32 = 1u;
const ELEMENT_F32: u32 = 2u;

// The bits of x mapped so that unsigned order is the element's order: i32 flips the sign bit; f32
// flips every bit of a negative float and the sign bit of a positive one (lib/keys/f32.wgsl).
fn ordered4(x: vec4<u32>) -> vec4<u32> {
    if ELEMENT == ELEMENT_I32 { return x ^ vec4(0x80000000u); }
    if ELEMENT == ELEMENT_F32 {
        let negative = (x & vec4(0x80000000u)) != vec4(0u);
        return select(x | vec4(0x80000000u), ~x, negative);
    }
    return x;
}

// The inverse of ordered4.
fn unordered4(x: vec4<u32>) -> vec4<u32> {
    if ELEMENT == ELEMENT_I32 { return x ^ vec4(0x80000000u); }
    if ELEMENT == ELEMENT_F32 {
        let was_positive = (x & vec4(0x80000000u)) != vec4(0u);
        return select(~x, x & vec4(0x7fffffffu), was_positive);
    }
    return x;
}

// The operator, on four pairs at once.
fn combine4(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    if OPERATOR == OP_SUM {
        if ELEMENT == ELEMENT_F32 {
            return bitcast<vec4<u32>>(bitcast<vec4<f32>>(a) + bitcast<vec4<f32>>(b));
        }
        return a + b;
    }
    let oa = ordered4(a);
    let ob = ordered4(b);
    let keep_a = select(oa >= ob, oa <= ob, OPERATOR == OP_MIN);
    return select(b, a, keep_a);
}

fn combine(a: u32, b: u32) -> u32 {
    return combine4(vec4(a), vec4(b)).x;
}

// The operator's identity: x combined with it is x, for every x. For f32 sums it is -0.0 (the
// IEEE additive identity: -0.0 + x is x for every x, +0.0 included); for f32 minimum and maximum
// the greatest and least values in total_cmp order, the NaNs with every payload bit set.
fn identity() -> u32 {
    if OPERATOR == OP_SUM {
        return select(0u, 0x80000000u, ELEMENT == ELEMENT_F32);
    }
    if OPERATOR == OP_MIN {
        return unordered4(vec4(0xffffffffu)).x;
    }
    return unordered4(vec4(0u)).x;
}

// Inclusive scan within a vec4: (x, x+y, x+y+z, x+y+z+w) for the operator.
fn scan_within(v: vec4<u32>) -> vec4<u32> {
    let first = combine(v.x, v.y);
    let second = combine(first, v.z);
    return vec4(v.x, first, second, combine(second, v.w));
}
