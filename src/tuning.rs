//! Tuning: every shape, size and count the operations choose for themselves, as small pure
//! functions of (key type, value size, length, device limits) that tests check without an adapter.
//! Each number cites the benchmark run that chose it (docs/tuning-log.md; runs 1-304 on an NVIDIA
//! H100 through Vulkan, from run 307 on an H200 through the same driver). None of it is public:
//! options that override a choice are validated against the limits here.
//!
//! On the H100 the workgroups resident on one SM share 48 KiB of workgroup memory in all, not
//! the SM's 228 (run 292: `set_tiles` with 2 KiB more, never used, ran two workgroups of 256 an
//! SM instead of the three its registers allow, 1.29x the time; with 12 KiB more one, 2.2x; the
//! radix scatter took 1.18x the time with 1 KiB more). So a shape's workgroup memory bounds its
//! occupancy as much as its registers do, and both bounds sit together in the shapes chosen here:
//! merge sort's block sort (22.5 KiB, 44 registers: two workgroups of 512), the radix scatter
//! (15 KiB, 78 registers: three of 256), the set operations (union 12 KiB, 64: four of 256;
//! intersection, the differences and 64-bit keys 15-16 KiB, 61-80: three). Lowering one alone buys
//! nothing. The H200's choices (runs 308-309) follow the same rule.

use crate::key::KeyType;
use crate::ops::SetOperation;

/// A kernel's shape: invocations per workgroup and items per invocation.
pub(crate) type Shape = (u32, u32);

/// Largest `items_per_thread` accepted: the length of merge path's private arrays
/// (`MAX_ITEMS` in lib/merge_tile.wgsl); beyond it an invocation's sequential merge only adds
/// latency.
pub(crate) const MAX_ITEMS_PER_THREAD: u32 = 64;

/// Largest `tiles_per_workgroup` accepted.
pub(crate) const MAX_TILES_PER_WORKGROUP: u32 = 4096;

/// Largest merged length (keys) one dispatch handles on any device; a device's binding limits
/// may allow fewer. The slice forms merge longer inputs piece by piece.
pub(crate) const MAX_MERGED_LEN: usize = 1 << 30;

/// Most tiles one workgroup takes in turn when a tile costs an invocation at most
/// `loops_per_tile` loop iterations. A limit, not a speed: llvmpipe (lavapipe) stops an
/// invocation's loops after about 65,535 iterations in all and silently leaves the rest of its
/// work undone (run 33 for merges; a scan of 2^24 u32 keys on lavapipe went wrong from element
/// 12.4 million, its first workgroups having taken most of the tiles); this keeps a workgroup
/// within a quarter of that. GPUs have no such limit, and no default comes near it. Merges
/// ([`most_tiles_per_workgroup`]) and single passes with look-back (`MOST_TILES` in
/// lib/look_back.wgsl) stop there.
pub(crate) fn most_tiles_within_loop_budget(loops_per_tile: u32) -> u32 {
    (16384 / loops_per_tile.max(1)).max(1)
}

/// Most tiles one workgroup merges with `items_per_thread` outputs per invocation and tile
/// (`MOST_TILES` in merge_path.wgsl); `tiles_per_workgroup` is clamped to it: a tile costs the
/// kernels at most about `8 * items_per_thread + 32` loop iterations
/// ([`most_tiles_within_loop_budget`]).
pub(crate) fn most_tiles_per_workgroup(items_per_thread: u32) -> u32 {
    most_tiles_within_loop_budget(8 * items_per_thread + 32)
}

/// Merges at least this long take [`merge_path_shape`]'s large shapes where the device has room.
pub(crate) const LARGE_MERGE_LEN: usize = 1 << 24;

/// Merges of 32-bit keys alone at least this long take 256 x 11 (runs 308 and 310, below).
pub(crate) const NARROW_LARGE_MERGE_LEN: usize = 1 << 25;

/// Merge path's shape for a merge of `total` keys of `key_size` bytes (with values of
/// `value_size` bytes, 0 for none), the first that `fits` the device (invocations and workgroup
/// memory):
/// - 32-bit keys 256 x 7; from 2^24 keys 256 x 6, one tile a workgroup (6 KiB and 32 registers:
///   eight workgroups, 64 warps an SM), and from 2^25 256 x 11 (11 KiB). Run 323 (H200), in one
///   call: 256 x 6 0.0720-0.0721 ms at 2^24 against 512 x 11's 0.0742 (four tiles a workgroup),
///   0.1188 at 2^25 against 256 x 11's 0.1178-0.1179; 512 x 6 0.0743. Runs 308-309 (H200), ms at
///   2^24 / 2^26 / 2^28: 512 x 11 0.0742 / 0.2135-0.2136 / 0.7501-0.7504, 256 x 11 0.0762 /
///   0.2044-0.2051 / 0.7228-0.7242, 256 x 15 0.0784 / 0.2124 / 0.7227, 256 x 9 0.0747 / 0.2093 /
///   0.7500, 256 x 7 0.0751 / 0.2171 / 0.7968, 384 x 11 and 1024 x 5 slower; run 322: 256 x 6
///   0.2112 / 0.7850 at 2^26 / 2^28. Run 310 at 2^25, 1 / 2 / 3 / 4 tiles a workgroup: 512 x 11
///   0.1320 / 0.1246 / 0.1234 / 0.1265, 256 x 11 0.1260 / 0.1186 / 0.1186 / 0.1171;
/// - 64-bit keys 256 x 7, and from 2^24 256 x 11 (22 KiB: two workgroups an SM, where 512 x 11's
///   45 KiB holds one). Runs 308-309 (H200): 0.1137 / 0.3523 ms at 2^24 / 2^26 against 512 x 11's
///   0.1223 / 0.3997, 256 x 7 0.1232 and 512 x 5 0.1337 at 2^24;
/// - pairs 256 x 3, and from 2^24 keys 512 x 3 (runs 17 and 22: 7-11% faster), since pairs
///   gather their values from global memory per output, which more items per invocation slow.
pub(crate) fn merge_path_shape(
    key_size: u32,
    value_size: u32,
    total: usize,
    fits: impl Fn(Shape) -> bool,
) -> Shape {
    let (default, large): (Shape, &[Shape]) = match (key_size, value_size) {
        (_, 1..) => ((256, 3), &[(512, 3)]),
        (4, _) if total >= NARROW_LARGE_MERGE_LEN => ((256, 7), &[(256, 11)]),
        (4, _) => ((256, 7), &[(256, 6)]),
        _ => ((256, 7), &[(256, 11)]),
    };
    let large = if total >= LARGE_MERGE_LEN { large } else { &[] };
    first_fitting(large, &fits).unwrap_or(default)
}

/// The first of `shapes` that `fits` the device.
fn first_fitting(shapes: &[Shape], fits: &impl Fn(Shape) -> bool) -> Option<Shape> {
    shapes.iter().copied().find(|&shape| fits(shape))
}

/// Merge sort's shape for `total` keys of `key_size` bytes (with values of `value_size` bytes, 0
/// for none): its block sort and every merge pass take it, since a tile of a pass must lie in one
/// pair of runs. Keys take 256 x 11 below [`LARGE_MERGE_LEN`] where it `fits` (run 71: 5-8%
/// faster than 256 x 7 at 2^20 and 2^22, as a larger tile saves a merge pass for a round of the
/// block sort, which costs less); 32-bit keys with 32-bit values 256 x 6 from there (run 324,
/// H200, twice in one call: 1.7223-1.7241 / 6.7955-6.8012 / 28.914-28.919 ms at 2^24 / 2^26 /
/// 2^28 against 512 x 3's 1.7889-1.7898 / 7.1081-7.1166 / 30.592-30.596; keys alone in 256 x 6
/// 6-16% slower, u64 keys 17-21%); otherwise the passes' shape, [`merge_pass_shape`].
pub(crate) fn merge_sort_shape(
    key_size: u32,
    value_size: u32,
    total: usize,
    fits: impl Fn(Shape) -> bool,
) -> Shape {
    let wanted: &[Shape] = match (key_size, value_size, total) {
        (_, 0, t) if t < LARGE_MERGE_LEN => &[(256, 11)],
        (4, 4, t) if t >= LARGE_MERGE_LEN => &[(256, 6)],
        _ => &[],
    };
    first_fitting(wanted, &fits)
        .unwrap_or_else(|| merge_pass_shape(key_size, value_size, total, fits))
}

/// The shape of passes that merge many pairs of runs of `total` keys in all (merge sort's and
/// the many-way merge's): merge path's, except 32-bit keys alone from [`LARGE_MERGE_LEN`] to
/// [`NARROW_LARGE_MERGE_LEN`], which take 512 x 11 (256 x 11 where 512 invocations do not fit)
/// where a single merge takes 256 x 6. Merge sort at 2^24 (H200): 512 x 11 0.995 ms against 256 x
/// 11's 1.027 (run 308) and 256 x 6's 1.1426 (run 323, a tile of 1536 taking one more pass);
/// merge_many of 1024 runs at 2^24 (run 324): 0.6976-0.6993 in 512 x 11 against 0.7081-0.7083 in
/// 256 x 6. For 32-bit keys from 2^25 merge path's 256 x 11 (run 310: merge sort 1.858 ms at 2^25
/// against 1.905; run 309: 3.561 / 14.637 ms at 2^26 / 2^28 against 512 x 11's 3.702 / 15.390);
/// for 64-bit keys 256 x 11 (runs 308-309: 1.654 / 6.419 ms at 2^24 / 2^26 against 512 x 11's
/// 1.781 / 7.182); pairs as merge path (run 309: 256 x 11 4% slower at 2^26 and 2^28).
pub(crate) fn merge_pass_shape(
    key_size: u32,
    value_size: u32,
    total: usize,
    fits: impl Fn(Shape) -> bool,
) -> Shape {
    let narrow = (LARGE_MERGE_LEN..NARROW_LARGE_MERGE_LEN).contains(&total);
    let wanted: &[Shape] = if (key_size, value_size) == (4, 0) && narrow {
        &[(512, 11), (256, 11)]
    } else {
        &[]
    };
    first_fitting(wanted, &fits)
        .unwrap_or_else(|| merge_path_shape(key_size, value_size, total, fits))
}

/// The book's kernels' shapes: the basic kernel 256 x 8 (no workgroup memory); the tiled and
/// circular-buffer kernels keep two tiles of 1024 32-bit keys (8 KiB) or 512 64-bit keys, within
/// WebGPU's default 16 KiB. Kept as the book has them: they are stepping stones, not tuned.
pub(crate) fn book_shape(tiled: bool, key: KeyType) -> Shape {
    match (tiled, key.size()) {
        (false, _) => (256, 8),
        (true, 8) => (128, 4),
        (true, _) => (128, 8),
    }
}

/// Tiles each merge-path workgroup merges, one after another, loading each while it merges the
/// one before, for `total` keys in tiles of `items_per_thread` an invocation: one below
/// [`LARGE_MERGE_LEN`] keys, 4 from there, and from 2^27 keys 6 for keys-only merges and 8 with
/// values (runs 19-23 and 39: long merges gain 5-10% from 4 tiles and another 1-2% from 6 or 8 at
/// 2^28, while short ones need every workgroup they can get). Keys-only merges take their tiles in
/// chunks of this many from a counter (run 40: 2.8% at 2^26), except in tiles of at most 6 keys
/// an invocation, one a workgroup (run 322: 256 x 6 in four tiles 0.0806 / 0.2300 / 0.8538 ms at
/// 2^24 / 2^26 / 2^28, in one 0.0717 / 0.2112 / 0.7850; 512 x 6, 256 x 5, 512 x 5 and 1024 x 3
/// alike: a small tile leaves its next tile's loads too little merging to hide behind).
pub(crate) fn merge_path_tiles_per_workgroup(
    total: usize,
    items_per_thread: u32,
    with_values: bool,
) -> u32 {
    match total {
        _ if items_per_thread <= 6 && !with_values => 1,
        t if t >= 1 << 27 && with_values => 8,
        t if t >= 1 << 27 => 6,
        t if t >= LARGE_MERGE_LEN => 4,
        _ => 1,
    }
}

/// The tiled kernels' tiles per workgroup: enough to amortise its two global co-ranks, while
/// keeping about 4096 workgroups to fill a large GPU.
pub(crate) fn book_tiles_per_workgroup(total: usize, tile: u32) -> u32 {
    (total as u64)
        .div_ceil(u64::from(tile))
        .div_ceil(4096)
        .clamp(1, 16) as u32
}

/// Invocations per workgroup of the partition pass (`WORKGROUP_SIZE` in partition.wgsl): small
/// workgroups spread the searches over every compute unit.
pub(crate) const PARTITION_WORKGROUP_SIZE: u32 = 64;

/// Most invocations searching one boundary together: a partition workgroup holds
/// PARTITION_WORKGROUP_SIZE / lanes searches (at least 2; `SEARCH_SLOTS` in partition.wgsl).
pub(crate) const MAX_PARTITION_LANES: u32 = 32;
const _: () = assert!(PARTITION_WORKGROUP_SIZE / 2 <= 32);

/// Invocations that search each boundary together in the partition pass for `boundaries`
/// boundaries (`LANES` in partition.wgsl). Each step of a search cuts its interval by this plus
/// one, so a search waits on fewer loads one after another, but issues more. Up to a few thousand
/// boundaries the GPU runs every search at once and waits on the latency of one: there lanes pay
/// (run 27: 32 lanes take a 2^20 merge from 18.6 to 16.4 us, 8 lanes a 2^24 one from 84.7 to
/// 82.3 us). Beyond that the loads are the limit, and one invocation per boundary is fastest.
pub(crate) fn partition_lanes(boundaries: u32) -> u32 {
    if boundaries > 4096 {
        return 1;
    }
    // The most, a power of two up to 32, that keeps about 2^15 invocations searching.
    let lanes = (32768 / boundaries.max(1)).max(1);
    (1 << lanes.ilog2()).min(MAX_PARTITION_LANES)
}

/// Sorted search's tile shape (`search_tiles`) on a device where `fits` says which shapes fit, or
/// None where none does: 256 x 11 (11 KiB for u32 keys), else 256 x 7, 256 x 5 or 256 x 3. Run 187
/// on the H100, the order checked as the merge takes each key, sorted needles at 2^20 / 2^22 /
/// 2^24 / 2^26 keys: 256 x 11 0.0265 / 0.0423 / 0.1001 / 0.2784 ms, 256 x 9 0.0268 / 0.0431 /
/// 0.1036 / 0.2982, 256 x 7 0.0270 / 0.0424 / 0.0987 / 0.2847 (main's loop over the tile in
/// 256 x 7: 0.0271 / 0.0424 / 0.0985 / 0.2854); runs 185-186 at 2^27 / 2^28: 256 x 11 0.5188 /
/// 1.0173, 256 x 7 0.5376 / 1.0773 (main 0.5392 / 1.0817), 512 x 7 0.5581 / 1.0718. With the
/// loop over the tile, 256 x 11 had been slower than 256 x 7 below 2^27 (run 183).
pub(crate) fn search_shape(fits: impl Fn(Shape) -> bool) -> Option<Shape> {
    [(256, 11), (256, 7), (256, 5), (256, 3)]
        .into_iter()
        .find(|&s| fits(s))
}

/// Consecutive tiles each workgroup of a sorted search answers (`search_tiles_in_turn`, each
/// tile loaded while the one before is answered; one is `search_tiles`) for a merge of needles and
/// haystack of `total` keys: 4 from [`SEARCH_IN_TURN_LEN`], else 1. Run 311 (H200, 256 x 11,
/// sorted needles, ms at 2^24 / 2^26 / 2^28): 1 tile (in the loop) 0.0941 / 0.2597 / 0.9456, 2
/// 0.0940 / 0.2552, 4 0.0954 / 0.2524 / 0.8985, 6 0.0962 / 0.2552, 8 0.0981 / 0.2542 / 0.8962;
/// `search_tiles` alone (run 310) 0.0921 / 0.2537.
pub(crate) fn search_tiles_per_workgroup(total: usize) -> u32 {
    if total >= SEARCH_IN_TURN_LEN {
        4
    } else {
        1
    }
}

/// Searches of needles and haystack of at least this many keys in all answer several tiles a
/// workgroup ([`search_tiles_per_workgroup`]): level with one at 2^26, 5% faster at 2^28.
pub(crate) const SEARCH_IN_TURN_LEN: usize = 1 << 27;

/// Most workgroups of a search's `search_fix`, which stride over the needles: one workgroup per
/// 256 needles cost sorted needles 0.6 ms at 2^28 just to read the flag (run 81: 2.15 ms, run 82
/// with this cap: 1.54). Runs 328-329 (H200, 2^26): 1024 workgroups saved sorted needles 3.5 us
/// (0.2434 ms against 0.2468) but cost shuffled ones 10% (1.18 ms against 1.07), 2048 half of
/// each; the time followed the invocations, each reading the flag, so now one invocation a
/// workgroup reads it (run 330: 0.2444, shuffled 1.064).
pub(crate) const SEARCH_FIX_WORKGROUPS: usize = 4096;

/// Whether a sorted search goes through merge-path tiles, which read the whole haystack once,
/// rather than a binary search per needle, which reads about log2(haystack) keys each: from one
/// needle per 8 haystack keys. Run 78, 2^27 needles in 2^27 keys on the H100: binary searches
/// took 3.0 ms for sorted needles (3.6x merge's time) and 46.7 ms for shuffled ones.
pub(crate) fn search_by_tiles(haystack: usize, needles: usize) -> bool {
    needles > 0 && needles.saturating_mul(8) >= haystack
}

/// Keys per invocation of a selection (dedup, the key filter) of `key_size`-byte keys:
/// lib/select.wgsl's 4 rows of 32 bytes (`ROWS` of `ROW_KEYS`, scan.wgsl's layout). Run 177,
/// dedup of 2^28 u32 keys on the H100 in workgroups of 256: 0.570 ms with 32 (4 x 8), 0.593 with
/// 32 as 8 x 4 (run 176), 0.705 with 16 (4 x 4, run 175); 32 in workgroups of 128 0.783, 16 in
/// 512 0.857. Run 178, as landed: 0.566 (80% of the copy) against 0.730 before. u64 keys at 2^26:
/// 16 (4 x 4) 0.298 ms (run 181), 32 (4 x 8) 0.388 (run 180), the kernel before 0.327.
pub(crate) fn select_items(key_size: u32) -> u32 {
    4 * 32 / key_size.max(1)
}

/// Invocations per workgroup of a selection, within WebGPU's default limit. Runs 168-169, dedup
/// on the H100 (each tile's counts through the lane scan two to a word): 0.733 ms at 2^28 with
/// 256 (62% of the copy) against 0.820 with 512, 0.797 with 384, 0.846 with 192, 0.911 with 128
/// and 1.31 with 1024; 256 is faster from 2^22 (0.0300 ms against 0.0321) and 5% slower at 2^20
/// (0.0213 against 0.0203). Run 86 had chosen 512 (1.07 ms against 1.25) for the kernel before
/// tiles took their places by look-back.
pub(crate) const SELECT_WORKGROUP: u32 = 256;

/// A set operation's tiling: its shape, and the elements a tile holds (at most the shape's
/// outputs: a tile may stop short of them so that its workgroup memory stays under a bound).
pub(crate) type SetTiling = (Shape, u32);

/// Union's tiling where it fits (and intersection's second choice): 256 invocations of 11
/// outputs, tiles of 2800 keys (not 2816), so that `set_tiles` holds 12252 bytes of workgroup
/// memory and, in 64 registers, four workgroups fit an SM by both bounds (this file's head). Run
/// 297, u32 keys at 2^22 / 2^24 / 2^26 / 2^28 on the H100: union 0.0546 / 0.1434 / 0.4433 /
/// 1.8080 ms and intersection 0.0486 / 0.1257 / 0.3856 / 1.5420, against
/// [`SET_DIFFERENCE_FOUR_TILING`]'s 0.0567 / 0.1473-0.1474 / 0.4652-0.4656 / 1.8554-1.8715 and
/// 0.0495 / 0.1307 / 0.4067-0.4071 / 1.6364-1.6383; at 2^20 level. Union in
/// [`SET_INTERSECTION_TILING`] or [`SET_DIFFERENCE_TILING`] (three an SM) is 15-26% slower (runs
/// 308-309, H200: 0.5389 and 0.5584 against 0.4291 ms at 2^26, 2.0821 and 2.1759 against 1.8186
/// at 2^28): NVIDIA's driver builds union in 256 x 14 in 97 registers, two workgroups an SM,
/// where symmetric difference takes 73 (run 360).
pub(crate) const SET_TILING: SetTiling = ((256, 11), 2800);

/// Intersection's tiling for 32-bit keys alone where it fits: 256 x 15 in tiles of 3833 (16384
/// bytes with subgroups' look-back, 16640 without; 79 registers: three workgroups an SM). It writes
/// at most half its input, so larger tiles at one workgroup fewer an SM pay, as for 64-bit keys
/// ([`SET_WIDE_FROM_A_TILING`]). H200, same calls: 0.3662 ms at 2^26 against [`SET_TILING`]'s
/// 0.3755 (run 308), 1.3981 at 2^28 against 1.5199 (run 309); [`SET_DIFFERENCE_TILING`] 0.3789 and
/// 1.4544. H100 (run 304, main's rows from runs 299 and 303): 0.1233 / 0.3720 ms at 2^24 / 2^26
/// against 0.1246 / 0.3867.
pub(crate) const SET_INTERSECTION_TILING: SetTiling = ((256, 15), 3833);

/// Difference's and symmetric difference's tiling for 32-bit keys alone where it fits: 256 x 14
/// (15388 bytes; 80 and 73 registers: three workgroups an SM). H200, same calls, difference and
/// symmetric difference: 0.4095 and 0.4225 ms at 2^26 against [`SET_DIFFERENCE_FOUR_TILING`]'s
/// 0.4262 and 0.4358 (run 308), 1.5630 and 1.6224 at 2^28 against 1.6960 and 1.7446 (run 309);
/// [`SET_INTERSECTION_TILING`] 0.5171 and 0.4306 at 2^26, 1.9984 and 1.6850 at 2^28. H100 (run
/// 304, main's rows from run 299): 0.1378 / 0.4197 and 0.1423 / 0.4361 at 2^24 / 2^26 against
/// 0.1400 / 0.4415 and 0.1438 / 0.4567.
pub(crate) const SET_DIFFERENCE_TILING: SetTiling = ((256, 14), 3584);

/// Difference's and symmetric difference's second choice: 256 x 10 (11292 bytes; 64 and 60
/// registers: four workgroups an SM), their tiling until run 309. At 256 x 11 they take 74 and 80
/// registers (three an SM): run 297 at 2^28, 1.8803 and 2.0420 ms in tiles of 2800 against
/// 1.7474-1.7664 and 1.7992-1.8062 here. Runs 295-296 chose 256 x 10 over 256 x 11 (with two
/// words an invocation for the scan: 12316 bytes, three an SM) for every operation: union 6-7%
/// faster from 2^24; and over 512 x 10 and 512 x 9 (two workgroups of 512 an SM: union at 2^28
/// 1.9103 and 1.967-2.000 against 1.8591). Run 152 (three workgroups of 256 or one of 512 an SM):
/// 256 x 9 and 256 x 13 slower than 256 x 11, 512 x 9 level.
pub(crate) const SET_DIFFERENCE_FOUR_TILING: SetTiling = ((256, 10), 2560);

/// Set operations' shape with values: the kept elements' slots are staged too, and smaller tiles
/// keep the workgroup's memory where the keys' shape holds it. Run 161, union of 2^28 u32 keys
/// with u32 values on the H100: 5.71 ms at 256 x 6, 6.23 at 256 x 4, 6.47 at 256 x 5, 6.76 at
/// 256 x 7, 6.65 at 256 x 8, 9.57 at 256 x 11, 8.22 at 128 x 11; intersection 3.59 at 256 x 6,
/// 5.06 at 256 x 11 (run 160: the kernel before the balanced path, 5.42 and 3.49).
pub(crate) const SET_PAIRS_SHAPE: Shape = (256, 6);

/// Set operations' tiling with values, where it fits: [`SET_PAIRS_SHAPE`] in tiles of 1400
/// (12248 bytes, 64 registers: four workgroups an SM, where full tiles of 1536 hold 13336 bytes
/// and 68-72 registers, three). H100, u32 keys and values at 2^22 / 2^24 / 2^26 / 2^28, ms:
/// - run 298: union 0.0983 / 0.2831 / 1.2378 / 5.4248 and intersection 0.0631 / 0.1887 / 0.7500
///   / 3.3416, against full tiles' 0.1034 / 0.3121-0.3125 / 1.2806-1.2857 / 5.5776-5.6654 and
///   0.0657-0.0658 / 0.2056-0.2057 / 0.7813-0.7815 / 3.4412-3.4526; 256 x 5 (11288 bytes)
///   5.6896 and 3.6375 at 2^28, 256 x 4 5.8808 and 3.9262;
/// - run 300: difference 0.0842-0.0843 / 0.2325-0.2326 / 0.9401-0.9411 / 4.1051-4.1127 and
///   symmetric difference 0.0991 / 0.2853 / 1.2489-1.2730 / 5.5820-5.6367 (16 bytes spilled),
///   against full tiles' 0.0872-0.0874 / 0.2580 / 0.9895 / 4.3119-4.3275 and 0.1039-0.1040 /
///   0.3140-0.3141 / 1.2893-1.2930 / 5.7469-5.7924; 256 x 5 4.5502 and 5.5774 at 2^28.
pub(crate) const SET_PAIRS_TILING: SetTiling = (SET_PAIRS_SHAPE, 1400);

/// Intersection's tiling with values for 32-bit keys, where it fits: 256 x 8 in tiles of 1916
/// (16376 bytes, 80 registers: three workgroups an SM). Like intersection of keys alone it writes
/// at most half its input, so larger tiles at one workgroup fewer an SM pay. H200, u32 values, ms
/// at 2^24 / 2^26 / 2^28 against [`SET_PAIRS_TILING`]: 0.1789-0.1791 / 0.6704-0.6706 (run 310,
/// twice) / 2.9352 (run 311) against 0.1833-0.1834 / 0.7250-0.7275 / 3.2764; H100 (run 304)
/// 0.1838 / 0.6874 at 2^24 / 2^26 against 0.1885 / 0.7494. The other operations stay: union and
/// symmetric difference 8-11% slower at 2^26 and 2^28, difference 2% slower at 2^24 and 1-4% faster
/// beyond.
pub(crate) const SET_PAIRS_INTERSECTION_TILING: SetTiling = ((256, 8), 1916);

/// Union's and symmetric difference's tiling for 8-byte keys alone, where it fits: 256 x 7 (15388
/// bytes, 61-72 registers: three workgroups an SM, where [`SET_TILING`] holds 23452 and two).
/// H100, u64 keys at 2^22 / 2^24 / 2^26, ms (runs 301-302): union 0.0815-0.0818 / 0.2182-0.2189
/// / 0.7663-0.7689 and symmetric difference 0.0817-0.0820 / 0.2182-0.2189 / 0.7637-0.7651,
/// against [`SET_TILING`]'s 0.1292 / 0.2860-0.2861 / 0.8465-0.8480 and
/// [`SET_DIFFERENCE_TILING`]'s 0.1393-0.1394 / 0.3013 / 0.9146-0.9148; 256 x 6 in tiles of 1400
/// (four an SM) 0.8063-0.8161 and 0.8024-0.8038 at 2^26, 256 x 5 0.8260 and 0.8251, 256 x 8 in
/// tiles of 1916 0.8138-0.8251 and 0.8126-0.8154, full 256 x 8 (two an SM) 0.9838 and 0.9808.
pub(crate) const SET_WIDE_TILING: SetTiling = ((256, 7), 1792);

/// Intersection's and difference's tiling for 8-byte keys alone (they keep elements of A only),
/// where it fits: 256 x 8 in tiles of 1916 (16252 bytes, 70 and 80 registers: three workgroups an
/// SM). Runs 301-302 as [`SET_WIDE_TILING`]: intersection 0.0679 / 0.1850-0.1853 / 0.6593-0.6596
/// and difference 0.0775-0.0776 / 0.2014-0.2015 / 0.7024-0.7059, against [`SET_WIDE_TILING`]'s
/// 0.0685-0.0687 / 0.1913-0.1915 / 0.6842-0.6861 and 0.0780-0.0783 / 0.2069-0.2075 /
/// 0.7265-0.7303 and the 32-bit tilings' 0.1255-0.1256 / 0.2635-0.2636 / 0.7436-0.7442 and
/// 0.1364-0.1366 / 0.2918 / 0.8696-0.8702.
pub(crate) const SET_WIDE_FROM_A_TILING: SetTiling = ((256, 8), 1916);

/// A set operation's tiling for keys of `key_size` bytes on a device where `fits` says which
/// tilings fit. 32-bit keys alone: [`SET_TILING`] for union, [`SET_INTERSECTION_TILING`] (then
/// [`SET_TILING`]) for intersection, [`SET_DIFFERENCE_TILING`] (then
/// [`SET_DIFFERENCE_FOUR_TILING`]) for the others; 64-bit keys alone: [`SET_WIDE_TILING`] for
/// union and symmetric difference, [`SET_WIDE_FROM_A_TILING`] for the others. With values
/// [`SET_PAIRS_TILING`] (timed with 32-bit keys only), for intersection with 32-bit keys
/// [`SET_PAIRS_INTERSECTION_TILING`] first. Else smaller tiles of the same workgroup
/// (WebGPU's default 16 KiB takes the first or, for intersection without subgroups, the second
/// for 32-bit keys alone, the first for 32-bit pairs, 256 x 7 for 64-bit keys, 256 x 4 for 64-bit
/// pairs), or None. A tile may stop short of its shape's outputs, never beyond them.
pub(crate) fn set_tiling(
    operation: SetOperation,
    key_size: u32,
    with_values: bool,
    fits: impl Fn(SetTiling) -> bool,
) -> Option<SetTiling> {
    use SetOperation::*;
    let full = |(w, i): Shape| ((w, i), w * i);
    let (first, second) = match (operation, key_size) {
        (Intersection, 4) if with_values => (SET_PAIRS_INTERSECTION_TILING, SET_PAIRS_TILING),
        _ if with_values => (SET_PAIRS_TILING, SET_PAIRS_TILING),
        (Union, 4) => (SET_TILING, SET_TILING),
        (Intersection, 4) => (SET_INTERSECTION_TILING, SET_TILING),
        (Difference | SymmetricDifference, 4) => {
            (SET_DIFFERENCE_TILING, SET_DIFFERENCE_FOUR_TILING)
        }
        (Union | SymmetricDifference, _) => (SET_WIDE_TILING, SET_WIDE_TILING),
        (Intersection | Difference, _) => (SET_WIDE_FROM_A_TILING, SET_WIDE_TILING),
    };
    [
        first,
        second,
        SET_WIDE_TILING,
        full((256, 5)),
        full((256, 4)),
        SMALLEST_SET_TILING,
    ]
    .into_iter()
    .find(|&t| fits(t))
}

/// The last tiling set_tiling tries.
pub(crate) const SMALLEST_SET_TILING: SetTiling = ((256, 3), 768);

/// Rounds of 256 keys each workgroup of radix sort ranks per tile (tiles of 2048) unless
/// [`radix_rounds_wanted`] says otherwise, and its ceiling (`MAX_ROUNDS` in radix_sort.wgsl).
/// Runs 60, 62 and 65 on the H100 tried 8, 12 and 16 rounds. In run 65 8 was fastest from 2^22
/// to 2^28 keys, u32 keys alone (14.5 against 16.3 ms at 2^28), with u32 values (25.6 against
/// 36.0) and with lane masks (18.0 against 29.0); 16 gained 2-5% at 2^20 only. 16 rounds won
/// pairs only in run 60, before the subgroup rank. The ceiling, 18, is the most that keeps two
/// workgroups an SM in the 48 KiB of workgroup memory NVIDIA's Vulkan driver gives an SM (run 292):
/// 4608 slots and the subgroup rank's 5 KiB take 23588 bytes.
pub(crate) const RADIX_ROUNDS: u32 = 8;
pub(crate) const MAX_RADIX_ROUNDS: u32 = 18;
const _: () = assert!(RADIX_ROUNDS <= MAX_RADIX_ROUNDS);

/// Bytes of workgroup memory a radix sort scatter ranking with lane masks needs besides its
/// tile: the digit masks (one bit per lane and digit), their counts (16 bits per mask) and a
/// word per digit.
pub(crate) const RADIX_MASKS_MEMORY: u64 = 256 * 8 * 4 + 256 * 4 * 4 + 256 * 4;

/// Bytes of workgroup memory per key of a radix sort tile sorted by digit: one word, which each
/// key's words and its value pass through in turn.
pub(crate) const RADIX_SLOT_BYTES: u64 = 4;

/// Rounds of 256 keys per radix sort tile on a device with `workgroup_memory` bytes of it, of
/// which the rank takes `rank_memory` (13 KiB with lane masks, 5 KiB with 32-lane subgroups):
/// the scatter sorts its tile by digit in workgroup memory a word a key (the keys' words and then
/// their values pass through the same slots), so that each digit's keys and values leave in one
/// run; larger tiles make longer runs and fewer histogram words per key. `wanted`
/// ([`radix_rounds_wanted`]) where they fit, else as many as fit (at least one).
pub(crate) fn radix_rounds(workgroup_memory: u32, rank_memory: u64, wanted: u32) -> u32 {
    let room = u64::from(workgroup_memory).saturating_sub(rank_memory);
    let fit = (room / (256 * RADIX_SLOT_BYTES)) as u32;
    fit.clamp(1, wanted.clamp(1, MAX_RADIX_ROUNDS))
}

/// The rounds a radix sort tile of `len` keys takes where workgroup memory allows, with the
/// subgroup rank (the lane-mask rank takes [`RADIX_ROUNDS`]):
/// - reduce-then-scan: 4-byte keys alone 6 rounds (tiles of 1536), [`RADIX_WIDE_ROUNDS`] from
///   [`RADIX_WIDE_ROUNDS_MIN_LEN`] keys; with 4-byte values 6, [`MAX_RADIX_ROUNDS`] (18) from
///   [`RADIX_LARGE_TILES_MIN_LEN`]; 8-byte keys alone 8, 9 from there;
/// - the single sweep: 4-byte keys alone 6 rounds up to [`SWEEP_SIX_ROUNDS_MAX_LEN`] keys, 8
///   beyond, [`SWEEP_LARGE_ROUNDS`] (16) from [`SWEEP_MOST_ROUNDS_MIN_LEN`]; 4-byte keys with
///   4-byte values and 8-byte keys alone [`SWEEP_LARGE_ROUNDS`] for lengths in
///   [`SWEEP_WIDE_LARGE_ROUNDS_LENS`], 8 otherwise;
/// - [`RADIX_ROUNDS`] otherwise.
///
/// H200, the rounds re-measured (run 346, `WGMERGE_PROBE_ROUNDS` on branch `wip/rounds-h200`,
/// one call, ms): u32 keys at 2^26 / 2^28, reduce-then-scan, 10 rounds 2.2472-2.2507 /
/// 8.2872-8.2973, 8 2.3158 / 8.6508, 12 2.5336 / 9.4265, 14 2.4672 / 9.1329, 16 2.4031 / 8.8540,
/// 18 2.3463 / 8.5983; pairs at 2^24 / 2^26 / 2^28, 16 rounds 0.9187-0.9193 / 2.8941-2.8960 /
/// 10.836-10.852, 17 0.9121 / 2.8643 / 10.684, 18 0.9010 / 2.8052 / 10.352; the single sweep at
/// 2^20 / 2^22, pairs 8 rounds 0.1213 / 0.3154-0.3162, 9 0.1327 / 0.3226, 10 0.1290 / 0.3398, 12
/// 0.1267 / 0.3130, 16 0.1119 / 0.3249, u64 keys 8 0.2238-0.2245 / 0.5895-0.5896, 9 0.2523 /
/// 0.6063, 10 0.2420 / 0.6490, 12 0.2382 / 0.6196, 16 0.2164 / 0.6075; u32 keys on bits 0..16 at
/// 2^26 / 2^28, 10 rounds 1.1255 / 4.1446, 12 1.2699 / 4.7199, 16 1.2052 / 4.4451.
///
/// H200, u32 keys with u32 values, reduce-then-scan from 2^24 (run 342, the values sorted
/// through the keys' slots, twice in one call, ms at 2^24 / 2^26 / 2^28): 16 rounds
/// 0.9241-0.9251 / 2.874-2.879 / 10.70-10.71, 12 0.958-0.959 / 3.081-3.095 / 11.45, 10 0.988-0.989
/// / 3.215-3.216 / 12.04, 9 0.977 / 3.305-3.308 / 13.06-13.07, against 9 rounds with the values
/// staged beside the keys (main before) 1.048-1.049 / 3.554 / 13.66; the single sweep at 2^22 with
/// 8 rounds 0.3145-0.3151, 10 0.336, 12 0.323, 16 0.320.
///
/// H200, u64 keys a word a slot (run 344, one call, ms at 2^22 / 2^24 / 2^26): 9 rounds 0.6058 /
/// 1.8618-1.8631 / 6.1103-6.1157, 12 0.6061 / 1.9989 / 6.6112, 16 0.6260 / 1.9126 / 6.1811,
/// against 8-byte slots (main before, 8 rounds at 2^22, 9 beyond) 0.6421 (run 343) / 2.0111 /
/// 6.7572: 9 stays.
///
/// H100, u32 keys, by probe:
/// - the single sweep, keys alone (runs 269-272, 684b67e's WGSL, ms at 2^18 / 2^20 / 2^21 /
///   2^22 / 2^23 / 2^24 / 2^26 / 2^28): 16 rounds 0.0916 / 0.1100 / 0.1605 / 0.2780-0.2784 /
///   0.4694 / 0.8176-0.8179 / 2.878 / 10.99 against 8's 0.0807 / 0.1208 / 0.1712 / 0.2751 /
///   0.4938 / 0.8887 and 9's 0.894 / 3.100-3.101 / 11.71-11.77; 15 rounds 0.0901 / 0.1193 /
///   0.1624 / 0.2653 / 0.4784 / 0.8385, 14 0.8601 / 3.007 / 11.48. Pairs in the sweep lost at
///   15-16 (0.449 against 0.390 at 2^22);
/// - run 265, against main in the same call (6 rounds for keys and pairs in reduce-then-scan, 8
///   in the single sweep and for u64 keys), ms at 2^24 / 2^26 / 2^28: reduce-then-scan 10
///   rounds 0.797 / 2.527 / 9.377 against 0.790 / 2.589 / 10.18 (0.783 / 2.551 / 10.33 as the
///   default), 9 rounds 0.802 / 2.575 / 9.66; pairs 9 rounds 1.216 / 4.240 / 17.03 against
///   1.369 / 4.771 / 18.79; the single sweep 9 rounds 0.894 / 3.101 / 11.77 against 0.901 /
///   3.200 / 12.31 (16 since runs 269-272); u64 keys 9 rounds 2.270 / 7.943 against 8's 2.317
///   / 8.12. Run 264, at 2^20 / 2^22: 9 rounds slower in the single sweep (0.1288 / 0.2797
///   against 0.1214 / 0.2754), with values and with u64 keys; reduce-then-scan 10 rounds 0.3324
///   against 0.3315 at 2^22. Beyond: 10 rounds slower with values or u64 keys (6.10 and 11.54
///   ms at 2^26), 12 slower everywhere (run 264);
/// - reduce-then-scan (run 121): 6 rounds took 2.57 ms at 2^26 and 10.33 at 2^28 against 8
///   rounds' 3.16 and 12.04 (2, 3, 4 and 5 rounds: 4.07, 3.32, 2.92, 2.76 at 2^26; 12 and 16:
///   3.65, 3.59, run 120), before the rank was written out beyond 8 rounds;
/// - the single sweep (run 220, twice, alike within 0.3%): 8 rounds 0.0735 / 0.0819 / 0.1231 /
///   0.2829 ms at 2^16 / 2^18 / 2^20 / 2^22, 6 rounds 0.0713 / 0.0835 / 0.1331 (to 2^20);
/// - the lane-mask rank stays fastest at 8 (4.19 against 4.03 ms at 2^26).
pub(crate) fn radix_rounds_wanted(
    key_size: u32,
    value_size: u32,
    subgroup_rank: bool,
    single_sweep: bool,
    len: usize,
) -> u32 {
    if !subgroup_rank {
        return RADIX_ROUNDS;
    }
    match (single_sweep, key_size, value_size) {
        (false, 4, 0) if len >= RADIX_WIDE_ROUNDS_MIN_LEN => RADIX_WIDE_ROUNDS,
        (false, 4, 4) if len >= RADIX_LARGE_TILES_MIN_LEN => MAX_RADIX_ROUNDS,
        (false, 8, 0) if len >= RADIX_LARGE_TILES_MIN_LEN => 9,
        (false, 4, 0 | 4) => 6,
        (true, 4, 0) if len >= SWEEP_MOST_ROUNDS_MIN_LEN => SWEEP_LARGE_ROUNDS,
        (true, 4, 4) | (true, 8, 0) if SWEEP_WIDE_LARGE_ROUNDS_LENS.contains(&len) => {
            SWEEP_LARGE_ROUNDS
        }
        (true, 4, 0) if len <= SWEEP_SIX_ROUNDS_MAX_LEN => 6,
        _ => RADIX_ROUNDS,
    }
}

/// Rounds reduce-then-scan takes for 4-byte keys alone, ranked with subgroups, from
/// [`RADIX_WIDE_ROUNDS_MIN_LEN`] keys (tiles of 2560; [`radix_rounds_wanted`]). H100, run 265:
/// 8% faster than 6 at 2^28, 2% at 2^26, 1% slower at 2^24. H200, run 349: 0.7039 against 6
/// rounds' 0.7091-0.7102 ms at 2^24 and 1.2218 against 1.2386-1.2389 at 2^25 (8 rounds 0.7126 /
/// 1.2545, 18 0.7469 / 1.2858); 8-18 slower at 2^26-2^28 (run 346).
pub(crate) const RADIX_WIDE_ROUNDS: u32 = 10;
pub(crate) const RADIX_WIDE_ROUNDS_MIN_LEN: usize = 1 << 24;

/// The fewest keys for which tiles of 9 rounds are taken for 8-byte keys and of the most for
/// 4-byte keys with 4-byte values ([`radix_rounds_wanted`]): 9 faster than 6 or 8 from 2^24 (run
/// 265), slower at 2^20 and 2^22 (run 264); 16 faster than 9-12 for pairs at 2^24 (run 342), 18
/// than 16 (run 346).
pub(crate) const RADIX_LARGE_TILES_MIN_LEN: usize = 1 << 24;

/// Whether the subgroup rank's rounds are written out as one call each
/// (lib/rank_rounds/unrolled.wgsl) rather than left as a loop (looped.wgsl). NVIDIA's driver
/// unrolls the loop itself up to 8 rounds, where the calls were 2% slower (run 263: the single
/// sweep 12.59 against 12.32 ms at 2^28, 0.131 against 0.121 at 2^20); beyond, it kept the
/// loop and put the rank's arrays in local memory (192 bytes a thread at 10 and 12 rounds,
/// none with the calls).
pub(crate) fn radix_rank_unrolled(rounds: u32) -> bool {
    rounds > RADIX_ROUNDS
}

/// The single sweep's largest tiles' rounds: 16, faster than 8-14 for keys alone (runs 269-272 on
/// the H100). 18 would not fit two workgroups an SM in 48 KiB: the sweep's scatter holds 1036
/// bytes more than reduce-then-scan's.
pub(crate) const SWEEP_LARGE_ROUNDS: u32 = 16;
const _: () = assert!(SWEEP_LARGE_ROUNDS <= MAX_RADIX_ROUNDS);

/// The lengths at which the single sweep takes tiles of [`SWEEP_LARGE_ROUNDS`] for 4-byte keys
/// with 4-byte values and for 8-byte keys alone ([`radix_rounds_wanted`]). Against 8 rounds,
/// pairs and u64 keys were 8% and 3.5% faster at 2^20 and 3% slower at 2^22 (run 346), 3.4% and
/// 1.2% faster at 2^21 and 4% and 7% slower at 2^19 (run 347: 0.1808-0.1809 / 0.3350-0.3358 ms
/// against 0.1871-0.1873 / 0.3395-0.3398, 0.0948-0.0952 / 0.1793-0.1794 against 0.0910-0.0912 /
/// 0.1666-0.1667).
pub(crate) const SWEEP_WIDE_LARGE_ROUNDS_LENS: std::ops::Range<usize> = (1 << 20)..(1 << 22);

/// The fewest keys the single sweep takes tiles of [`SWEEP_LARGE_ROUNDS`] for, keys alone
/// ([`radix_rounds_wanted`]): 9% faster than 8 at 2^20 and 6-8% from 2^23 (runs 269-272), 1%
/// slower at 2^22, 13% at 2^18.
pub(crate) const SWEEP_MOST_ROUNDS_MIN_LEN: usize = 1 << 20;

/// The most keys the single sweep takes tiles of 6 rounds for ([`radix_rounds_wanted`]): where
/// it was measured faster than 8 (run 220: 3% at 2^16; 8 rounds 2% faster at 2^18 and 8% at
/// 2^20); beyond, up to [`SINGLE_SWEEP_MAX_LEN`], 8.
pub(crate) const SWEEP_SIX_ROUNDS_MAX_LEN: usize = 1 << 16;

/// Tiles each workgroup of a radix sort pass takes, one after another, for `tiles` tiles: enough
/// that about 1024 workgroups cover the input (the H100 holds 1056 of them at once), so that the
/// digit histograms are 256 words per workgroup and their scan is short. Run 63 (2^26 u32 keys,
/// one tile a workgroup): the histogram pass took 0.19 ms a pass and the scatter 0.66 against
/// floors of 0.09 and 0.18, their per-tile histograms moving as many bytes as the keys.
pub(crate) fn radix_tiles_per_workgroup(tiles: usize) -> usize {
    tiles.div_ceil(1024).max(1)
}

/// Whether a radix sort of `len` keys takes the single sweep by default (where the adapter is
/// known to give forward progress): up to 2^22 keys, where its five dispatches for four passes
/// beat reduce-then-scan's twelve. Run 266 (H100, u32 keys, each forced, in the same call):
/// 0.121 against 0.203 ms at 2^20, 0.275 against 0.330 at 2^22; from 2^24 slower, 0.896 against
/// 0.788 at 2^24 and 11.77 against 9.39 at 2^28 (run 259, before tiles of 9 and 10 rounds: 0.902
/// against 0.790 at 2^24; run 215, before the sweep's tiles published their counts before their
/// ranks were done: 0.964 against 0.781).
pub(crate) fn radix_single_sweep(len: usize) -> bool {
    len <= SINGLE_SWEEP_MAX_LEN
}

/// The most keys a radix sort takes the single sweep for by default ([`radix_single_sweep`]).
pub(crate) const SINGLE_SWEEP_MAX_LEN: usize = 1 << 22;

/// Whether a many-way merge of `runs` runs (none empty) merges them in a merge tree, ceil(log2
/// runs) merge path passes and, with `copy_back` (the resident form, whose result must end in
/// the caller's buffer), a copy pass after an odd number of them, rather than radix sorting them
/// end to end: while that takes at most 10 passes. Run 142 (H100, u32 keys, resident): a pass
/// takes 0.014 / 0.077 / 0.25 / 0.90 ms at 2^20 / 2^24 / 2^26 / 2^28 keys (1024 runs, 10 passes:
/// 0.139 / 0.775 / 2.498 / 8.982 ms), the radix sort of the same runs 0.167 / 0.792 / 2.586 /
/// 10.543, about 10 to 12 passes' worth. Radix sorts of 8-byte keys or with values take as many
/// passes' worth or more (runs 105 and 122), so one bound serves them all.
pub(crate) fn merge_many_by_tree(runs: usize, copy_back: bool) -> bool {
    let passes = runs.next_power_of_two().trailing_zeros();
    passes + u32::from(copy_back && passes % 2 == 1) <= 10
}

/// Scan's and reduce's shape: 256 invocations of 16 elements, a tile of 4096 (16 KiB of
/// input per tile, loaded as 4 `vec4`s per invocation). Run 48 chose it.
pub(crate) const SCAN_SHAPE: Shape = (256, 16);

/// Invocations per workgroup of a scan (tiles of that many times `SCAN_SHAPE.1` elements):
/// twice `SCAN_SHAPE`'s for the single-pass strategies where the device allows it, whose time
/// goes to the chain of look-backs, one per tile (run 58 on the H100, 512 against 256: look-back
/// 11% faster at 2^26 and 2^28, decoupled fallback 4%); `SCAN_SHAPE`'s for reduce-then-scan,
/// which larger tiles make 15% slower (run 58), and within WebGPU's default limits.
pub(crate) fn scan_workgroup(single_pass: bool, max_invocations: u32) -> u32 {
    if single_pass && max_invocations >= 2 * SCAN_SHAPE.0 {
        2 * SCAN_SHAPE.0
    } else {
        SCAN_SHAPE.0
    }
}

/// Workgroups dispatched for a single-pass scan of `tiles` tiles of `workgroup` invocations, each
/// taking at most `most_tiles` ([`most_tiles_within_loop_budget`]): each takes tiles in turn from
/// the look-back's counter (loading the next while it waits on the predecessors of this one), so a
/// dispatch needs only as many as the device holds at once, and enough that every tile is taken.
/// At most 2^19 invocations (1024 workgroups of 512) where `most_tiles` allows: on the H100, one
/// workgroup a tile took 0.990 ms at 2^28, 4096 workgroups 0.924, 2048 0.917, 1024 0.883 and 512
/// 0.882 (runs 111-112); the workgroups beyond those the device holds start only at the end and
/// each costs there.
pub(crate) fn scan_single_pass_groups(tiles: usize, workgroup: u32, most_tiles: u32) -> u32 {
    let most = (1usize << 19) / workgroup.max(1) as usize;
    tiles
        .min(most)
        .max(tiles.div_ceil(most_tiles.max(1) as usize)) as u32
}

/// Workgroups of a reduction's first pass for `len` elements of tiles of `tile`: each reduces
/// whole tiles one after another (more loads in flight per invocation), leaving a few thousand
/// partial results for the second pass. Run 48 chose 2048 at most.
pub(crate) fn reduce_workgroups(len: usize, tile: u32) -> u32 {
    let tiles = (len as u64).div_ceil(u64::from(tile)).max(1);
    tiles.min(2048) as u32
}

/// Bytes of one staging buffer of the slice forms' uploads and readbacks. Copies go through a
/// ring of [`STAGING_BUFFERS`] of them per direction, so the host's copy into (or out of) one
/// overlaps the GPU's transfer of another. Run 48 chose 32 MiB; run 53 found that two such
/// buffers fill one of wgpu's 64 MiB host memory blocks (gpu-allocator's, Vulkan and DX12)
/// exactly, so every call's small uploads (parameters) allocated a fresh block and freed it
/// again: 2.5-3 ms a call on the H100. One MiB less leaves room in every block.
pub(crate) const STAGING_BYTES: u64 = 31 << 20;

/// Staging buffers per direction: host memory of the slice forms' transfers is bounded by
/// `2 * STAGING_BUFFERS * STAGING_BYTES` (248 MiB), whatever the input's size.
pub(crate) const STAGING_BUFFERS: usize = 4;

/// Elements a slice form's piece holds, for a call of `len` elements where one piece may hold
/// `most` (one binding of the device, or the caller's `max_piece_len`): the whole call whenever
/// it fits. Run 49 measured pipelined pieces of a quarter of the call against one piece, end to
/// end on an H100: one piece is faster for keys at 2^24 (16.0 against 29.5 ms) and 2^26 (46.6
/// against 55.8 ms) and level at 2^28 (247 against 249 ms): the overlap of one piece's upload
/// with another's readback does not pay for the extra submissions and waits.
pub(crate) fn host_piece_len(len: usize, most: usize) -> usize {
    len.min(most).max(1)
}

/// Bytes each host thread copies of a staging buffer (native targets; rayon's pool): 1 MiB, so
/// that an 8 MiB input already takes 8 threads. Memory bandwidth and page faults, not one core,
/// bound a large copy (run 49: 4 MiB per thread left most of 16 cores idle below 2^24 keys).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) const COPY_BYTES_PER_THREAD: usize = 1 << 20;

/// Whether the driver faults in the pages of a fresh result of `bytes` (one piece's output)
/// while the GPU still works on it, instead of letting the readback's copy fault them: from 64
/// MiB. H100 host, glibc's defaults, end to end into a new `Vec`, ms, median of 9:
/// - run 227 (every size): results of 16 MiB (pairs at 2^22) 10-20% slower, as the GPU's
///   transfers are too short to hide the faults; from 64 MiB faster;
/// - run 228 (as here, alternated with main twice): keys at 2^24 / 2^26 / 2^28 7.04-8.55 /
///   25.7-26.9 / 94.1-98.3 against 8.17-9.10 / 29.8-29.9 / 110.3-112.3; pairs 15.3-15.6 /
///   50.8-56.0 / 183-190 against 16.5-24.1 / 59.1-63.1 / 227-229; into the caller's slices
///   (already in memory, so left alone) level.
#[cfg(target_os = "linux")]
pub(crate) fn prefault_wanted(bytes: usize) -> bool {
    bytes >= 64 << 20
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn results_from_64_mib_are_prefaulted() {
        assert!(!prefault_wanted(16 << 20));
        assert!(!prefault_wanted((64 << 20) - 1));
        assert!(prefault_wanted(64 << 20));
        assert!(prefault_wanted(1 << 30));
    }

    #[test]
    fn selections_load_32_bytes_a_row() {
        assert_eq!(select_items(4), 32);
        assert_eq!(select_items(8), 16);
    }

    #[test]
    fn many_runs_merge_in_a_tree_while_it_takes_fewer_passes() {
        assert!(merge_many_by_tree(1, true));
        assert!(merge_many_by_tree(2, true));
        assert!(merge_many_by_tree(1024, false));
        assert!(merge_many_by_tree(1024, true));
        assert!(!merge_many_by_tree(1025, false));
        // 9 passes and a copy back; 10 and none.
        assert!(merge_many_by_tree(512, true));
        assert!(merge_many_by_tree(513, true));
    }

    #[test]
    fn merge_path_shapes_follow_size_and_room() {
        let everything = |_| true;
        assert_eq!(merge_path_shape(4, 0, 1 << 20, everything), (256, 7));
        assert_eq!(merge_path_shape(4, 0, 1 << 24, everything), (256, 6));
        assert_eq!(merge_path_shape(4, 0, (1 << 25) - 1, everything), (256, 6));
        assert_eq!(merge_path_shape(4, 0, 1 << 25, everything), (256, 11));
        assert_eq!(merge_path_shape(4, 0, 1 << 26, everything), (256, 11));
        assert_eq!(merge_path_shape(8, 0, 1 << 20, everything), (256, 7));
        assert_eq!(merge_path_shape(8, 0, 1 << 24, everything), (256, 11));
        assert_eq!(merge_path_shape(4, 4, 1 << 24, everything), (512, 3));
        assert_eq!(merge_path_shape(8, 4, 1 << 28, everything), (512, 3));
        assert_eq!(merge_path_shape(4, 8, 1 << 20, everything), (256, 3));
        // Within WebGPU's defaults (256 invocations, 16 KiB): a smaller large shape, or the
        // default.
        let small = |(w, i): Shape| w <= 256 && w * i * 4 <= 16384;
        assert_eq!(merge_path_shape(4, 0, 1 << 24, small), (256, 6));
        assert_eq!(merge_path_shape(4, 0, 1 << 26, small), (256, 11));
        assert_eq!(merge_path_shape(4, 4, 1 << 26, small), (256, 3));
        let small_u64 = |(w, i): Shape| w <= 256 && w * i * 8 <= 16384;
        assert_eq!(merge_path_shape(8, 0, 1 << 24, small_u64), (256, 7));
    }

    #[test]
    fn merge_sort_shapes_follow_size_and_room() {
        let everything = |_| true;
        assert_eq!(merge_sort_shape(4, 0, 1 << 20, everything), (256, 11));
        assert_eq!(merge_sort_shape(4, 0, 1 << 24, everything), (512, 11));
        assert_eq!(merge_sort_shape(4, 0, (1 << 25) - 1, everything), (512, 11));
        assert_eq!(merge_sort_shape(4, 0, 1 << 25, everything), (256, 11));
        let narrow = |(w, _): Shape| w <= 256;
        assert_eq!(merge_sort_shape(4, 0, 1 << 24, narrow), (256, 11));
        assert_eq!(merge_sort_shape(4, 0, 1 << 26, everything), (256, 11));
        assert_eq!(merge_sort_shape(8, 0, 1 << 24, everything), (256, 11));
        assert_eq!(merge_sort_shape(4, 4, 1 << 20, everything), (256, 3));
        assert_eq!(merge_sort_shape(4, 4, 1 << 24, everything), (256, 6));
        assert_eq!(merge_sort_shape(4, 4, 1 << 28, everything), (256, 6));
        assert_eq!(merge_sort_shape(4, 8, 1 << 24, everything), (512, 3));
        assert_eq!(merge_sort_shape(8, 4, 1 << 24, everything), (512, 3));
        // WebGPU's default 16 KiB: 2816 u64 keys do not fit, merge path's 256 x 7 does.
        let webgpu = |(w, i): Shape| u64::from(w * i) * 8 <= 16384;
        assert_eq!(merge_sort_shape(8, 0, 1 << 20, webgpu), (256, 7));
        assert_eq!(merge_sort_shape(8, 0, 1 << 26, webgpu), (256, 7));
    }

    #[test]
    fn merge_passes_keep_large_tiles_where_single_merges_take_small_ones() {
        let everything = |_| true;
        assert_eq!(merge_pass_shape(4, 0, 1 << 20, everything), (256, 7));
        assert_eq!(merge_pass_shape(4, 0, 1 << 24, everything), (512, 11));
        assert_eq!(merge_pass_shape(4, 0, 1 << 25, everything), (256, 11));
        assert_eq!(merge_pass_shape(4, 4, 1 << 24, everything), (512, 3));
        assert_eq!(merge_pass_shape(8, 0, 1 << 24, everything), (256, 11));
        let narrow = |(w, _): Shape| w <= 256;
        assert_eq!(merge_pass_shape(4, 0, 1 << 24, narrow), (256, 11));
    }

    #[test]
    fn radix_sorts_sweep_once_only_when_short() {
        assert!(radix_single_sweep(1 << 22));
        assert!(!radix_single_sweep((1 << 22) + 1));
    }

    #[test]
    fn tiles_per_workgroup_grow_with_the_merge() {
        assert_eq!(merge_path_tiles_per_workgroup(1 << 20, 7, false), 1);
        assert_eq!(merge_path_tiles_per_workgroup(1 << 24, 11, false), 4);
        assert_eq!(merge_path_tiles_per_workgroup(1 << 27, 11, false), 6);
        assert_eq!(merge_path_tiles_per_workgroup(1 << 28, 3, true), 8);
        // Small keys-only tiles, one a workgroup at every length.
        assert_eq!(merge_path_tiles_per_workgroup(1 << 24, 6, false), 1);
        assert_eq!(merge_path_tiles_per_workgroup(1 << 28, 6, false), 1);
        assert_eq!(most_tiles_per_workgroup(7), 186);
        assert_eq!(most_tiles_per_workgroup(64), 30);
        assert!(most_tiles_per_workgroup(MAX_ITEMS_PER_THREAD) >= 1);
        assert_eq!(book_tiles_per_workgroup(0, 1024), 1);
        assert_eq!(book_tiles_per_workgroup(1 << 30, 1024), 16);
    }

    #[test]
    fn partition_lanes_are_powers_of_two_up_to_32() {
        for boundaries in [0, 1, 101, 585, 2980, 4096, 4097, 11916, u32::MAX] {
            let lanes = partition_lanes(boundaries);
            assert!(
                lanes.is_power_of_two() && lanes <= MAX_PARTITION_LANES,
                "{boundaries}"
            );
        }
        assert_eq!(partition_lanes(585), 32);
        assert_eq!(partition_lanes(2980), 8);
        assert_eq!(partition_lanes(11916), 1);
    }

    #[test]
    fn single_pass_scans_dispatch_what_a_device_holds_and_take_every_tile() {
        assert_eq!(scan_single_pass_groups(0, 512, 128), 0);
        assert_eq!(scan_single_pass_groups(300, 512, 128), 300);
        assert_eq!(scan_single_pass_groups(1 << 15, 512, 128), 1024);
        assert_eq!(scan_single_pass_groups(1 << 15, 256, 128), 2048);
        // Enough workgroups that none takes more than its most.
        assert_eq!(scan_single_pass_groups(1 << 15, 512, 16), 2048);
        assert_eq!(scan_single_pass_groups(1 << 15, 512, 0), 1 << 15);
        assert_eq!(most_tiles_within_loop_budget(128), 128);
        assert_eq!(most_tiles_within_loop_budget(100_000), 1);
    }

    #[test]
    fn scans_take_larger_tiles_only_in_a_single_pass_where_allowed() {
        let defaults = wgpu::Limits::default().max_compute_invocations_per_workgroup;
        assert_eq!(scan_workgroup(true, defaults), SCAN_SHAPE.0);
        assert_eq!(scan_workgroup(false, 1024), SCAN_SHAPE.0);
        assert_eq!(scan_workgroup(true, 1024), 2 * SCAN_SHAPE.0);
    }

    #[test]
    fn long_searches_answer_tiles_in_turn() {
        assert_eq!(search_tiles_per_workgroup(0), 1);
        assert_eq!(search_tiles_per_workgroup((1 << 27) - 1), 1);
        assert_eq!(search_tiles_per_workgroup(1 << 27), 4);
        assert_eq!(search_tiles_per_workgroup(1 << 28), 4);
    }

    #[test]
    fn searches_take_tiles_from_one_needle_per_8_keys() {
        assert!(search_by_tiles(1 << 27, 1 << 27));
        assert!(search_by_tiles(800, 100));
        assert!(!search_by_tiles(801, 100));
        assert!(!search_by_tiles(100, 0));
        assert!(search_by_tiles(0, 1));
        // H100 (1024 invocations, 48 KiB) and WebGPU's defaults (256, 16 KiB).
        // A tile of keys, within (invocations, bytes).
        let fits = |key: u32, invocations: u32, memory: u32| {
            move |(w, items): Shape| w <= invocations && w * items * key <= memory
        };
        assert_eq!(search_shape(fits(4, 1024, 49152)), Some((256, 11)));
        assert_eq!(search_shape(fits(4, 256, 16384)), Some((256, 11)));
        assert_eq!(search_shape(fits(8, 256, 16384)), Some((256, 7)));
        assert_eq!(search_shape(fits(8, 256, 12288)), Some((256, 5)));
        assert_eq!(search_shape(fits(8, 256, 8192)), Some((256, 3)));
        assert_eq!(search_shape(fits(8, 256, 4096)), None);
        assert_eq!(search_shape(fits(4, 128, 16384)), None);
    }

    #[test]
    fn shapes_fit_webgpu_defaults() {
        let limits = wgpu::Limits::default();
        let memory = u64::from(limits.max_compute_workgroup_storage_size);
        for (workgroup, items) in [SET_TILING.0, SCAN_SHAPE, book_shape(true, KeyType::U64)] {
            assert!(workgroup <= limits.max_compute_invocations_per_workgroup);
            assert!(items <= MAX_ITEMS_PER_THREAD);
        }
        // Sets: some shape takes a tile of 64-bit keys and slots (and a word per invocation and
        // the look-back's 280 bytes).
        let fits = |((w, _), tile): SetTiling| u64::from(tile * (8 + 4) + w * 4 + 280) <= memory;
        for operation in SetOperation::ALL {
            assert!(set_tiling(operation, 8, true, fits).is_some());
            assert!(set_tiling(operation, 8, false, fits).is_some());
        }
    }

    #[test]
    fn radix_tiles_as_large_as_measured_faster() {
        let large = 1 << 28;
        let wide = RADIX_WIDE_ROUNDS_MIN_LEN;
        let large_tiles = RADIX_LARGE_TILES_MIN_LEN;
        // Reduce-then-scan, keys alone: 6 rounds, then 10 from the wide length.
        assert_eq!(
            radix_rounds_wanted(4, 0, true, false, large),
            RADIX_WIDE_ROUNDS
        );
        assert_eq!(
            radix_rounds_wanted(4, 0, true, false, wide),
            RADIX_WIDE_ROUNDS
        );
        assert_eq!(radix_rounds_wanted(4, 0, true, false, wide - 1), 6);
        assert_eq!(radix_rounds_wanted(4, 0, true, false, 1 << 20), 6);
        assert_eq!(
            radix_rounds_wanted(4, 0, true, false, 1 << 24),
            RADIX_WIDE_ROUNDS
        );
        // With 4-byte values the most rounds, and 8-byte keys alone 9, from the large tiles'
        // length.
        assert_eq!(
            radix_rounds_wanted(4, 4, true, false, large_tiles),
            MAX_RADIX_ROUNDS
        );
        assert_eq!(radix_rounds_wanted(4, 4, true, false, large_tiles - 1), 6);
        assert_eq!(radix_rounds_wanted(8, 0, true, false, large), 9);
        assert_eq!(
            radix_rounds_wanted(8, 0, true, false, large_tiles - 1),
            RADIX_ROUNDS
        );
        assert_eq!(radix_rounds_wanted(4, 8, true, false, large), RADIX_ROUNDS);
        assert_eq!(radix_rounds_wanted(8, 8, true, false, large), RADIX_ROUNDS);
        // The lane-mask rank: 8 everywhere.
        assert_eq!(radix_rounds_wanted(4, 0, false, false, large), RADIX_ROUNDS);
        assert_eq!(
            radix_rounds_wanted(4, 0, false, true, 1 << 10),
            RADIX_ROUNDS
        );
        // The single sweep, keys alone: 6 up to SWEEP_SIX_ROUNDS_MAX_LEN, 8 beyond, the most
        // from SWEEP_MOST_ROUNDS_MIN_LEN, within the lengths where it is the default.
        let small = SWEEP_SIX_ROUNDS_MAX_LEN;
        let most = SWEEP_MOST_ROUNDS_MIN_LEN;
        assert!(radix_single_sweep(small) && radix_single_sweep(most));
        assert_eq!(radix_rounds_wanted(4, 0, true, true, small), 6);
        assert_eq!(
            radix_rounds_wanted(4, 0, true, true, small + 1),
            RADIX_ROUNDS
        );
        assert_eq!(
            radix_rounds_wanted(4, 0, true, true, most - 1),
            RADIX_ROUNDS
        );
        assert_eq!(
            radix_rounds_wanted(4, 0, true, true, most),
            SWEEP_LARGE_ROUNDS
        );
        assert_eq!(
            radix_rounds_wanted(4, 0, true, true, large),
            SWEEP_LARGE_ROUNDS
        );
        // Pairs and 8-byte keys: the sweep's large tiles at the lengths measured to gain.
        let lens = SWEEP_WIDE_LARGE_ROUNDS_LENS;
        for (key, value) in [(4, 4), (8, 0)] {
            let rounds = |len| radix_rounds_wanted(key, value, true, true, len);
            assert_eq!(rounds(lens.start - 1), RADIX_ROUNDS);
            assert_eq!(rounds(lens.start), SWEEP_LARGE_ROUNDS);
            assert_eq!(rounds(lens.end - 1), SWEEP_LARGE_ROUNDS);
            assert_eq!(rounds(lens.end), RADIX_ROUNDS);
            assert_eq!(rounds(large), RADIX_ROUNDS);
        }
        assert_eq!(
            radix_rounds_wanted(8, 4, true, true, lens.start),
            RADIX_ROUNDS
        );
        // Loops the driver unrolls itself up to 8 rounds; written out beyond.
        assert!(radix_rank_unrolled(9));
        assert!(radix_rank_unrolled(RADIX_WIDE_ROUNDS));
        assert!(!radix_rank_unrolled(RADIX_ROUNDS));
        assert!(!radix_rank_unrolled(6));
    }

    #[test]
    fn radix_tiles_fit_workgroup_memory() {
        let defaults = wgpu::Limits::default().max_compute_workgroup_storage_size;
        assert_eq!(defaults, 16384);
        let masks = RADIX_MASKS_MEMORY;
        let most = RADIX_ROUNDS;
        assert_eq!(radix_rounds(defaults, masks, most), 3);
        assert_eq!(radix_rounds(1024, masks, most), 1);
        assert_eq!(radix_rounds(49152, masks, most), RADIX_ROUNDS);
        assert_eq!(radix_rounds(49152, 5 << 10, 6), 6);
        assert_eq!(radix_rounds(49152, 5 << 10, 99), MAX_RADIX_ROUNDS);
        assert_eq!(radix_rounds(defaults, 5 << 10, most), RADIX_ROUNDS);
        let rounds = radix_rounds(defaults, masks, most);
        let staged = u64::from(rounds) * 256 * RADIX_SLOT_BYTES;
        assert!(masks + staged <= u64::from(defaults));
        assert!(rounds <= MAX_RADIX_ROUNDS);
    }

    #[test]
    fn radix_workgroups_take_runs_of_tiles() {
        assert_eq!(radix_tiles_per_workgroup(0), 1);
        assert_eq!(radix_tiles_per_workgroup(1000), 1);
        assert_eq!(radix_tiles_per_workgroup(1 << 15), 32);
        let tiles: usize = (1 << 28) / 2048;
        assert!(tiles.div_ceil(radix_tiles_per_workgroup(tiles)) <= 1024);
    }

    #[test]
    fn pieces_only_beyond_what_fits() {
        assert_eq!(host_piece_len(1000, 1 << 29), 1000);
        assert_eq!(host_piece_len(1 << 28, 1 << 29), 1 << 28);
        assert_eq!(host_piece_len(1 << 28, 1000), 1000);
        assert_eq!(host_piece_len(0, 1 << 29), 1);
        assert!(reduce_workgroups(0, 4096) >= 1);
        assert_eq!(reduce_workgroups(1 << 28, 4096), 2048);
    }

    #[test]
    fn set_tiling_shrinks_to_fit() {
        use SetOperation::*;
        let any = |_| true;
        assert_eq!(set_tiling(Union, 4, false, any), Some(SET_TILING));
        assert_eq!(
            set_tiling(Intersection, 4, false, any),
            Some(SET_INTERSECTION_TILING)
        );
        assert_eq!(
            set_tiling(Difference, 4, false, any),
            Some(SET_DIFFERENCE_TILING)
        );
        assert_eq!(
            set_tiling(SymmetricDifference, 4, false, any),
            Some(SET_DIFFERENCE_TILING)
        );
        assert_eq!(set_tiling(Union, 8, false, any), Some(SET_WIDE_TILING));
        assert_eq!(
            set_tiling(SymmetricDifference, 8, false, any),
            Some(SET_WIDE_TILING)
        );
        assert_eq!(
            set_tiling(Intersection, 8, false, any),
            Some(SET_WIDE_FROM_A_TILING)
        );
        assert_eq!(
            set_tiling(Difference, 8, false, any),
            Some(SET_WIDE_FROM_A_TILING)
        );
        for op in SetOperation::ALL {
            for key_size in [4, 8] {
                let wanted = match (op, key_size) {
                    (Intersection, 4) => SET_PAIRS_INTERSECTION_TILING,
                    _ => SET_PAIRS_TILING,
                };
                assert_eq!(set_tiling(op, key_size, true, any), Some(wanted));
            }
        }
        // Every tile is at most its shape's outputs (each part at most ITEMS_PER_THREAD + 1).
        for op in SetOperation::ALL {
            for (key_size, values) in [(4, false), (4, true), (8, false), (8, true)] {
                let ((w, i), tile) = set_tiling(op, key_size, values, any).unwrap();
                assert!(tile <= w * i, "{op:?}");
            }
        }
        // A tile of keys and, with values, their slots; the rest: a word an invocation (its part,
        // then its count), the look-back's.
        let fits = |key: u32, slot: u32, limit: u32| {
            move |((w, _), tile): SetTiling| tile * (key + slot) + 4 + w * 4 + 280 <= limit
        };
        assert_eq!(
            set_tiling(Union, 4, false, fits(4, 0, 16_384)),
            Some(SET_TILING)
        );
        // Intersection's tiles fill 16 KiB with subgroups' 24 bytes of look-back, not with 280.
        assert_eq!(
            set_tiling(Intersection, 4, false, fits(4, 0, 16_384)),
            Some(SET_TILING)
        );
        assert_eq!(
            set_tiling(Difference, 4, false, fits(4, 0, 16_384)),
            Some(SET_DIFFERENCE_TILING)
        );
        assert_eq!(
            set_tiling(Difference, 4, false, fits(4, 0, 12_288)),
            Some(SET_DIFFERENCE_FOUR_TILING)
        );
        assert_eq!(
            set_tiling(Union, 8, false, fits(8, 0, 16_384)),
            Some(SET_WIDE_TILING)
        );
        assert_eq!(
            set_tiling(Intersection, 8, false, fits(8, 0, 16_384)),
            Some(SET_WIDE_TILING)
        );
        assert_eq!(
            set_tiling(Union, 4, true, fits(4, 4, 16_384)),
            Some(SET_PAIRS_TILING)
        );
        // Intersection's tiles with values fill 16 KiB with subgroups' look-back only.
        assert_eq!(
            set_tiling(Intersection, 4, true, fits(4, 4, 16_384)),
            Some(SET_PAIRS_TILING)
        );
        let subgroups = |((w, _), tile): SetTiling| tile * 8 + 4 + w * 4 + 24 <= 16_384;
        assert_eq!(
            set_tiling(Intersection, 4, true, subgroups),
            Some(SET_PAIRS_INTERSECTION_TILING)
        );
        assert_eq!(
            set_tiling(Union, 8, true, fits(8, 4, 16_384)),
            Some(((256, 4), 1024))
        );
        // Three workgroups an SM within 48 KiB (with subgroups' 24 bytes of look-back), as runs
        // 301-302 (64-bit keys) and 304-309 (32-bit) timed; four of union's.
        let per_sm = |count: u32, key: u32| {
            move |((w, _), tile): SetTiling| count * (tile * key + 4 + w * 4 + 24) <= 48 * 1024
        };
        assert!(per_sm(3, 8)(SET_WIDE_TILING) && per_sm(3, 8)(SET_WIDE_FROM_A_TILING));
        assert!(per_sm(3, 4)(SET_INTERSECTION_TILING) && per_sm(3, 4)(SET_DIFFERENCE_TILING));
        assert!(per_sm(4, 4)(SET_TILING) && per_sm(4, 4)(SET_DIFFERENCE_FOUR_TILING));
        assert_eq!(set_tiling(Union, 4, false, |_| false), None);
    }
}
