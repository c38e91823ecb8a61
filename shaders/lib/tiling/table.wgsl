// Tiles of a pass over segments of any lengths, which the host lists in a table (the many-way
// merge's passes, whose runs have any lengths). Each segment's tiles start at its first output,
// so no tile crosses a segment; a segment's last tile may be short. The pass binds one buffer as
// both A and B, with a_len its length and b_len 0.
//
// segment_table[0] = (segments, tiles, 0, 0); segment_table[1 + s] = (start, a_len, b_len,
// first tile) of segment s, in output order, none empty: it merges a_keys[start..][..a_len] with
// b_keys[start + a_len..][..b_len] into outputs [start, start + a_len + b_len).

#import lib/segments

@group(0) @binding(9) var<storage, read> segment_table: array<vec4<u32>>;

fn tile_count(total: u32, spacing: u32) -> u32 {
    return segment_table[0].y;
}

// Tile g, found among the segments by binary search over their first tiles (the table is small
// and read by every tile, so it stays in cache). g = tile_count closes the output: an empty
// segment at its end.
fn place_tile(g: u32, spacing: u32, a_len: u32, b_len: u32, run_len: u32) -> PlacedTile {
    let header = segment_table[0];
    if g >= header.y || header.x == 0u {
        let total = a_len + b_len;
        return PlacedTile(total, Segment(total, total, 0u, total, 0u));
    }
    // The last segment whose first tile is at most g.
    var lo = 0u;
    var hi = header.x - 1u;
    while lo < hi {
        let mid = hi - (hi - lo) / 2u;
        if segment_table[1u + mid].w <= g {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    let s = segment_table[1u + lo];
    let segment = Segment(s.x, s.x, s.y, s.x + s.y, s.z);
    return PlacedTile(s.x + (g - s.w) * spacing, segment);
}
