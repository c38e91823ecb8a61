// One tile of merge path's output, as a workgroup merges it: the A and B elements that TILE
// consecutive outputs come from are loaded into workgroup memory with coalesced loads (every load
// of an invocation issued before its first store, so that all are in flight at once), then every
// invocation co-ranks the start of its ITEMS_PER_THREAD outputs (its diagonal) inside workgroup
// memory and merges them without branches, handing each output to `put_output`, which the
// including kernel defines:
//
//     fn put_output(r: u32, k: u32, key: Key, slot: u32)
//
// (the r-th output of the invocation, tile output k, whose key sits in tile slot `slot`: A's
// elements first, then B's from slot a_count), and a constant saying whether it may also be
// called for the steps past the invocation's last output, which is cheaper:
//
//     const PUT_PAST_END: bool
//
// (true where put_output only sets the invocation's registers, which nothing reads past its
// outputs; run 238: two instructions fewer at each step of the merge). The tile boundaries come
// from the partition pass (partition.wgsl), one co-rank per boundary.

#import lib/co_rank
#import lib/segments

override TILE: u32 = WORKGROUP_SIZE * ITEMS_PER_THREAD;
// Largest ITEMS_PER_THREAD (tuning.rs: MAX_ITEMS_PER_THREAD): the length of the private arrays
// that hold an invocation's loads. Loops over them run ITEMS_PER_THREAD steps, a constant when the
// pipeline is built, so the driver unrolls them and keeps the used elements in registers.
const MAX_ITEMS: u32 = 64u;

// The tile's A elements, then its B elements.
var<workgroup> tile: array<Key, TILE>;
// The invocation's loads of a tile, held until they are stored to `tile`.
var<private> loaded: array<Key, MAX_ITEMS>;
// The tile slots where the pair being merged starts: A's elements from a_start, B's from
// a_count. Merge path's tile is one pair, so a_start stays 0 there (never written: a constant to
// the compiler); the block sort (merge_sort.wgsl) merges many pairs of runs in one tile.
var<private> a_start: u32;
var<private> a_count: u32;

// Set by kernels whose answers hold only where their input is sorted (sorted search): then each
// merge_tile step also checks the key it takes against the next key of the same input, which it
// reads anyway, and clears `walk_in_order` where the two are out of order. The invocation's walk
// through A is recorded (`walk_a`: the A index it started at and the one it stopped at), so that
// the kernel can check that the invocations' walks meet end to start; then every key of the tile
// was taken once and every pair of neighbours compared. Run 184: the check as a loop over the
// tile cost 14% of the search's time.
override CHECK_ORDER: bool = false;
// The input whose order CHECK_ORDER checks: A where true, else B (sorted search checks its
// needles; the haystack's order is the caller's promise, and a haystack out of order only makes
// the answers unspecified, never out of range).
override CHECK_A: bool = true;
var<private> walk_in_order: bool = true;
var<private> walk_a: vec2<u32>;

// co_rank.wgsl's accessors: the tile is the only memory co-ranked here.
fn read_a(space: u32, i: u32) -> Key {
    return tile[a_start + i];
}
fn read_b(space: u32, j: u32) -> Key {
    return tile[a_count + j];
}
// co_rank.wgsl's sequential merge, which calls this, is not used here: merge_tile merges.
fn emit(space: u32, k: u32, key: Key, from_a: bool, src: u32) {}

// One tile's outputs and where its inputs are.
struct TileRange {
    k0: u32,
    count: u32,
    a0: u32,
    a_len: u32,
    b0: u32,
}

// The tile of outputs from k0 in `segment` (up to TILE, not beyond the segment), whose first and
// last outputs have co-ranks a_split and a_next in the segment.
fn tile_range(k0: u32, a_split: u32, a_next: u32, segment: Segment) -> TileRange {
    let segment_end = segment.start + segment.a_len + segment.b_len;
    let count = min(TILE, remaining(segment_end, k0));
    let a_end = select(a_next, segment.a_len, k0 + count >= segment_end);
    // Clamped so that unsorted input (where co-rank need not grow with rank) stays in the tile.
    let a_len = min(remaining(a_end, a_split), count);
    return TileRange(k0, count, segment.a_base + a_split, a_len,
                     segment.b_base + (k0 - segment.start - a_split));
}

// Set where B is A's buffer bound again, the tile's B offsets into it: merge sort's and the
// many-way merge's passes (merge.rs: MergePlan::segmented). Each key of a tile is then one load
// from an address chosen without a branch between A and B: merge sort 1.5-3% faster, 4% for
// 64-bit keys (docs/tuning-log.md, run 323); lib/merge_path/pairs.wgsl gathers values so too.
override ONE_BUFFER: bool = false;

// Issues every load of the invocation's items of `range` into `loaded`.
fn load_range(range: TileRange, lid: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if ONE_BUFFER {
            if x < range.count {
                loaded[r] = a_keys[select(range.b0 + x - range.a_len, range.a0 + x,
                                          x < range.a_len)];
            }
        } else if x < range.a_len {
            loaded[r] = a_keys[range.a0 + x];
        } else if x < range.count {
            loaded[r] = b_keys[range.b0 + x - range.a_len];
        }
    }
}

// Stores the invocation's loads of `range` into the tile, for the whole workgroup to merge.
fn stage_loaded(range: TileRange, lid: u32) {
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        let x = r * WORKGROUP_SIZE + lid;
        if x < range.count { tile[x] = loaded[r]; }
    }
    a_count = range.a_len;
    workgroupBarrier();
}

// Merges the outputs [d0, d1) of the pair at a_start and a_count, handing each to put_output:
// co_rank.wgsl's sequential merge without its branches. Only the start is co-ranked: merging on
// from the right start point takes exactly the outputs d0.. of the pair's merge, bounded by its A
// and B (never beyond them, even for unsorted input, as d1 <= a_len + b_len). Each step reads one
// key, from A or B as the step decided, at an index clamped into the tile, so the invocations of
// a wave never split on which input they read. The loop runs ITEMS_PER_THREAD steps whatever d1
// is (steps past d1 put nothing), so the driver unrolls it.
fn merge_tile(d0: u32, d1: u32, a_len: u32, b_len: u32) {
    var i = co_rank(SPACE_TILE, d0, a_len, b_len);
    var j = d0 - i;
    var key_a = tile[min(a_start + i, TILE - 1u)];
    var key_b = tile[min(a_count + j, TILE - 1u)];
    walk_a = vec2(i, i);
    for (var r = 0u; r < ITEMS_PER_THREAD; r++) {
        // `&` and `|`, not `&&` and `||`: no branch (lib/order.wgsl).
        let take_a = (i < a_len) & ((j >= b_len) | !key_before(key_b, key_a));
        let taken = select(key_b, key_a, take_a);
        if PUT_PAST_END | (d0 + r < d1) {
            put_output(r, d0 + r, taken, select(a_count + j, a_start + i, take_a));
        }
        i += select(0u, 1u, take_a);
        j += select(1u, 0u, take_a);
        let next = tile[min(select(a_count + j, a_start + i, take_a), TILE - 1u)];
        if CHECK_ORDER {
            // Steps past d1 compare neighbours too: true neighbours, so no false alarm. `&&`
            // here is faster than `&` (run 237: search 4-12%).
            let last = select(j >= b_len, i >= a_len, take_a);
            let unchecked = take_a != CHECK_A;
            walk_in_order = walk_in_order && (last || unchecked || !key_before(next, taken));
            if d0 + r + 1u == d1 { walk_a.y = i; }
        }
        key_a = select(key_a, next, take_a);
        key_b = select(next, key_b, take_a);
    }
}

// The tile outputs [d0, d1) invocation lid merges, of `count`.
fn invocation_outputs(count: u32, lid: u32) -> vec2<u32> {
    let d0 = min(lid * ITEMS_PER_THREAD, count);
    return vec2(d0, min(d0 + ITEMS_PER_THREAD, count));
}
