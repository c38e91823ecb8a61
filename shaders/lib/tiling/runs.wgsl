// Tiles of a pass over segments of run_len (lib/segments.wgsl), or over one merge: tile g covers
// outputs g * spacing.., and lies in one segment because spacing divides 2 * run_len.

#import lib/segments

// Tiles of `spacing` outputs in a pass of `total` outputs.
fn tile_count(total: u32, spacing: u32) -> u32 {
    return (total + spacing - 1u) / spacing;
}

// Tile g (g = tile_count closes the output), in a pass over A and B as bound.
fn place_tile(g: u32, spacing: u32, a_len: u32, b_len: u32, run_len: u32) -> PlacedTile {
    let k0 = min(g * spacing, a_len + b_len);
    return PlacedTile(k0, segment_of(k0, a_len, b_len, run_len));
}
