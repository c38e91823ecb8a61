// lib/scan_op.wgsl's operator over a subgroup's lanes (four rows at once, or one): for the
// workgroup scan with subgroups and the look-back's window.

#import lib/scan_op

fn subgroup_reduce4(x: vec4<u32>) -> vec4<u32> {
    if OPERATOR == OP_SUM {
        if ELEMENT == ELEMENT_F32 {
            return bitcast<vec4<u32>>(subgroupAdd(bitcast<vec4<f32>>(x)));
        }
        return subgroupAdd(x);
    }
    let o = ordered4(x);
    return unordered4(select(subgroupMax(o), subgroupMin(o), OPERATOR == OP_MIN));
}

// The same for one row (a vec4 reduction costs four on some hardware).
fn subgroup_reduce(x: u32) -> u32 {
    if OPERATOR == OP_SUM {
        if ELEMENT == ELEMENT_F32 {
            return bitcast<u32>(subgroupAdd(bitcast<f32>(x)));
        }
        return subgroupAdd(x);
    }
    let o = ordered4(vec4(x)).x;
    return unordered4(vec4(select(subgroupMax(o), subgroupMin(o), OPERATOR == OP_MIN))).x;
}
