//! `lib/look_back.wgsl` as its importers (scan, selection, set operations) specialise and size
//! it: decoupled look-back over tiles, waiting on predecessors only where the adapter gives
//! forward progress and with decoupled fallback everywhere else.

use crate::Gpu;

/// `MODE` in lib/look_back.wgsl: decoupled fallback (safe on every adapter).
pub(crate) const MODE_FALLBACK: u32 = 1;
/// `MODE` in lib/look_back.wgsl: waiting on each predecessor.
pub(crate) const MODE_LOOK_BACK: u32 = 2;
/// Look-back rounds that find nothing new before a tile computes the nearest unpublished
/// predecessor's reduction itself.
pub(crate) const SPINS: u32 = 64;
/// The window that reads and combines predecessors (`look_back_window`): one subgroup, with no
/// workgroup barrier a round (run 104: set operations and dedup 12-15% faster on the H100, the
/// decoupled fallback's scan 16%), or workgroup memory where subgroups are not used.
pub(crate) fn window_module(subgroups: bool) -> &'static str {
    if subgroups {
        "lib/look_back_window/subgroups"
    } else {
        "lib/look_back_window/plain"
    }
}

/// Bytes of workgroup memory the module adds: its tile, index, prefix, whether done, spins and
/// whether it fell back; without subgroups, the window of 32 predecessors read at once.
pub(crate) fn workgroup_memory(subgroups: bool) -> u64 {
    24 + if subgroups { 0 } else { 32 * 8 }
}

/// Words of look-back state for `tiles` tiles: the tile counter and two published values of
/// two words per tile.
pub(crate) fn state_words(tiles: usize) -> u64 {
    4 * tiles as u64 + 1
}

/// How a single pass's look-back runs: waiting or falling back, and its patience.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct LookBack {
    pub(crate) wait: bool,
    /// `SPINS` (tests set 0, so that every look-back not done at once falls back).
    pub(crate) spins: u32,
}

impl LookBack {
    /// The decoupled fallback with no patience (tests): every look-back not done at once
    /// computes its predecessors' values from their input.
    #[cfg(test)]
    pub(crate) const IMPATIENT: LookBack = LookBack {
        wait: false,
        spins: 0,
    };

    /// The override constants `MODE` and `SPINS`.
    pub(crate) fn constants(self) -> [(&'static str, u32); 2] {
        let mode = if self.wait {
            MODE_LOOK_BACK
        } else {
            MODE_FALLBACK
        };
        [("MODE", mode), ("SPINS", self.spins)]
    }
}

impl Gpu {
    /// The look-back a single pass takes by default on this adapter: waiting where it is known to
    /// give forward progress, decoupled fallback elsewhere.
    pub(crate) fn default_look_back(&self) -> LookBack {
        LookBack {
            wait: self.has_forward_progress(),
            spins: SPINS,
        }
    }
}
