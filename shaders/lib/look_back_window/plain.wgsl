// lib/look_back.wgsl's window without subgroups: invocations 0..WINDOW read one predecessor each
// into workgroup memory, and invocation 0 combines them, a workgroup barrier each round.

// Predecessors read at once (CUB reads a warp's worth): a tile's prefix is usually a few tiles
// back, behind tiles still running.
const WINDOW: u32 = 32u;
var<workgroup> wg_window: array<vec2<u32>, WINDOW>;

// One round: invocation 0 combines the window into wg_prefix from the nearest predecessor on, up
// to the first inclusive prefix (the look-back is done: wg_done) or the first tile that has
// published nothing (wg_look moves to it; wg_spins counts rounds that found nothing new).
fn look_back_round(lid: u32) {
    let look = wg_look;
    if lid < WINDOW {
        var read = vec2(KIND_NONE, 0u);
        if lid <= look {
            read = read_predecessor(look - lid);
        }
        wg_window[lid] = read;
    }
    workgroupBarrier();
    if lid == 0u {
        var j = 0u;
        loop {
            if j >= WINDOW || j > look || wg_window[j].x == KIND_NONE {
                break;
            }
            wg_prefix = combine(wg_window[j].y, wg_prefix);
            if wg_window[j].x == KIND_INCLUSIVE {
                wg_done = 1u;
                break;
            }
            j++;
        }
        // Tile 0 always ends the window with its inclusive prefix or nothing, so j <= look.
        if wg_done == 0u {
            wg_look = look - min(j, look);
            wg_spins = select(0u, wg_spins + 1u, j == 0u);
        }
    }
}

// Rounds until the look-back is done or, in MODE_FALLBACK, SPINS rounds in a row found nothing
// new; every invocation calls it (it holds barriers).
fn look_back_rounds(lid: u32) {
    loop {
        look_back_round(lid);
        if workgroupUniformLoad(&wg_done) == 1u {
            return;
        }
        if MODE == MODE_FALLBACK && workgroupUniformLoad(&wg_spins) >= SPINS {
            return;
        }
        // Everyone has read the window before the next round writes it.
        workgroupBarrier();
    }
}
