// Subgroup ballots as WGSL gives them (vec4<u32>: up to 128 lanes), shared by the radix rank and
// the look-back's window.

// The lowest lane of a ballot, or `none` where it is empty.
fn ballot_first(ballot: vec4<u32>, none: u32) -> u32 {
    for (var i = 0u; i < 4u; i++) {
        if ballot[i] != 0u {
            return 32u * i + firstTrailingBit(ballot[i]);
        }
    }
    return none;
}
