//! The WGSL sources and the one step that composes them into a kernel's module.
//!
//! Kernels share modules: one of `keys/*.wgsl` (the key type and its ascending `key_less`),
//! `order.wgsl` (`key_before`, ascending or descending), `co_rank.wgsl` (co-rank and the
//! sequential merge, reading through accessors the kernel defines), `merge_io.wgsl` (bindings and
//! output) and `values.wgsl` or `no_values.wgsl` (the value bindings, or none, so that a
//! keys-only kernel needs only three storage buffers). WGSL allows declarations in any order, so
//! composing is concatenation in the order [`Kernel::modules`] lists, plus one generated line
//! naming the value type (`alias Value = u32;` or `vec2<u32>`): no preprocessor, no templates.
//! Workgroup size, items per invocation and the order are WGSL override constants, set when a
//! pipeline is created ([`PipelineConfig::constants`]), so one module serves every size.

use wgpu::BufferBindingType;

use crate::key::{KeyType, Order};
use crate::set::SetOperation;

/// A WGSL module, by file name and text (included at compile time).
#[derive(Clone, Copy, Debug)]
pub struct Module {
    /// File name under `shaders/`.
    pub name: &'static str,
    /// WGSL text.
    pub source: &'static str,
}

macro_rules! module {
    ($file:literal) => {
        Module {
            name: $file,
            source: include_str!(concat!("../shaders/", $file)),
        }
    };
}

const DISPATCH: Module = module!("dispatch.wgsl");
const ORDER: Module = module!("order.wgsl");
const CO_RANK: Module = module!("co_rank.wgsl");
const MERGE_IO: Module = module!("merge_io.wgsl");
const VALUES: Module = module!("values.wgsl");
const NO_VALUES: Module = module!("no_values.wgsl");
const MERGE_BASIC: Module = module!("merge_basic.wgsl");
const MERGE_TILED: Module = module!("merge_tiled.wgsl");
const MERGE_CIRCULAR: Module = module!("merge_circular.wgsl");
const MERGE_PATH: Module = module!("merge_path.wgsl");
const MERGE_PATH_STAGE_KEYS: Module = module!("merge_path_keys.wgsl");
const MERGE_PATH_STAGE_PAIRS: Module = module!("merge_path_pairs.wgsl");
const SORT_BLOCK: Module = module!("sort_block.wgsl");
const COPY: Module = module!("copy.wgsl");
const VALIDATE: Module = module!("validate.wgsl");
const SET_OPS: Module = module!("set_ops.wgsl");
/// The value type, by size: the one generated piece of WGSL.
const VALUE_4_BYTES: Module = Module {
    name: "value type (4 bytes)",
    source: "alias Value = u32;\n",
};
const VALUE_8_BYTES: Module = Module {
    name: "value type (8 bytes)",
    source: "alias Value = vec2<u32>;\n",
};

/// Every compute kernel the crate dispatches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// `merge_basic.wgsl`
    MergeBasic,
    /// `merge_tiled.wgsl`
    MergeTiled,
    /// `merge_circular.wgsl`
    MergeCircular,
    /// `merge_path.wgsl`, first pass: co-rank of every tile boundary, `lanes` invocations
    /// searching each (`PARTITION_LANES`; merge.rs: `partition_lanes`); for
    /// [`Kernel::MergePathChunks`] (`chunks`) it also zeroes the chunk counter.
    MergePathPartition {
        /// Invocations per boundary.
        lanes: u32,
        /// Whether the merge pass is [`Kernel::MergePathChunks`].
        chunks: bool,
    },
    /// `merge_path.wgsl`, second pass: the merge, one tile per workgroup.
    MergePath,
    /// `merge_path.wgsl`, second pass: the merge, `tiles_per_group` tiles per workgroup, each
    /// loaded while the one before merges.
    MergePathTiles,
    /// `merge_path.wgsl`, second pass: the merge, workgroups taking chunks of `tiles_per_group`
    /// tiles from a counter until none is left, each tile loaded while the one before merges.
    MergePathChunks,
    /// `sort_block.wgsl`: merge sort's first pass, sorting each workgroup's tile.
    SortBlock,
    /// `copy.wgsl`: the bandwidth reference for benchmarks.
    Copy,
    /// `validate.wgsl`: the first out-of-order key of an input.
    Validate,
    /// `set_ops.wgsl`, first pass: which elements the operation keeps.
    SetMark(SetOperation),
    /// `set_ops.wgsl`, second pass: offsets of each block's kept elements.
    SetScanBlocks,
    /// `set_ops.wgsl`, third pass: each kept element's rank.
    SetScanLocal,
    /// `set_ops.wgsl`, last pass: kept elements to their places in the output.
    SetScatter,
}

/// Co-rank searches one workgroup of merge path's partition pass holds (`SEARCH_SLOTS` in
/// `merge_path.wgsl`).
const SEARCH_SLOTS: u32 = 32;
// Searches together take at least 2 lanes each.
const _: () = assert!(crate::merge::PARTITION_WORKGROUP_SIZE / 2 <= SEARCH_SLOTS);

impl Kernel {
    /// All kernels, for tests that check every shader.
    pub const ALL: [Kernel; 19] = [
        Kernel::MergeBasic,
        Kernel::MergeTiled,
        Kernel::MergeCircular,
        Kernel::MergePathPartition {
            lanes: 1,
            chunks: false,
        },
        Kernel::MergePathPartition {
            lanes: crate::merge::MAX_PARTITION_LANES,
            chunks: false,
        },
        Kernel::MergePathPartition {
            lanes: 1,
            chunks: true,
        },
        Kernel::MergePath,
        Kernel::MergePathTiles,
        Kernel::MergePathChunks,
        Kernel::SortBlock,
        Kernel::Copy,
        Kernel::Validate,
        Kernel::SetMark(SetOperation::Union),
        Kernel::SetMark(SetOperation::Intersection),
        Kernel::SetMark(SetOperation::Difference),
        Kernel::SetMark(SetOperation::SymmetricDifference),
        Kernel::SetScanBlocks,
        Kernel::SetScanLocal,
        Kernel::SetScatter,
    ];

    /// Whether the kernel is one of merge path's passes (composed from `merge_path.wgsl`).
    pub fn is_merge_path(self) -> bool {
        matches!(
            self,
            Kernel::MergePathPartition { .. }
                | Kernel::MergePath
                | Kernel::MergePathTiles
                | Kernel::MergePathChunks
        )
    }

    /// Whether the kernel is one of the set operation's passes.
    pub fn is_set_operation(self) -> bool {
        matches!(
            self,
            Kernel::SetMark(_) | Kernel::SetScanBlocks | Kernel::SetScanLocal | Kernel::SetScatter
        )
    }

    /// The modules composed, in order, into this kernel's shader module for `config` (kernels
    /// that move no values ignore its value size, the copy its key type too).
    pub fn modules(self, config: &PipelineConfig) -> Vec<Module> {
        let kernel = match self {
            Kernel::MergeBasic => MERGE_BASIC,
            Kernel::MergeTiled => MERGE_TILED,
            Kernel::MergeCircular => MERGE_CIRCULAR,
            Kernel::MergePathPartition { .. }
            | Kernel::MergePath
            | Kernel::MergePathTiles
            | Kernel::MergePathChunks => MERGE_PATH,
            Kernel::SortBlock => SORT_BLOCK,
            Kernel::Copy => return vec![DISPATCH, COPY],
            Kernel::Validate => return vec![DISPATCH, config.key.module(), ORDER, VALIDATE],
            Kernel::SetMark(_)
            | Kernel::SetScanBlocks
            | Kernel::SetScanLocal
            | Kernel::SetScatter => SET_OPS,
        };
        let key = config.key.module();
        let mut modules = vec![DISPATCH, key, ORDER, CO_RANK, MERGE_IO];
        if self.is_set_operation() {
            // Searches of its own instead of co-rank's accessors.
            modules.retain(|m| m.name != CO_RANK.name);
        }
        match config.value_size {
            0 => modules.push(NO_VALUES),
            4 => modules.extend([VALUE_4_BYTES, VALUES]),
            _ => modules.extend([VALUE_8_BYTES, VALUES]),
        }
        modules.push(kernel);
        if self.is_merge_path() {
            // What the merge stages per output: the key itself, or its slot for its value.
            modules.push(match config.value_size {
                0 => MERGE_PATH_STAGE_KEYS,
                _ => MERGE_PATH_STAGE_PAIRS,
            });
        }
        modules
    }

    /// Whether the kernel can move values with its keys.
    pub fn has_values(self) -> bool {
        !matches!(
            self,
            Kernel::Copy | Kernel::MergePathPartition { .. } | Kernel::Validate
        )
    }

    /// The kernel's bindings, mirroring its WGSL declarations: `(binding, type)`.
    pub fn bindings(self, with_values: bool) -> &'static [(u32, BufferBindingType)] {
        const READ: BufferBindingType = BufferBindingType::Storage { read_only: true };
        const WRITE: BufferBindingType = BufferBindingType::Storage { read_only: false };
        // Params, A (source), B (destination for the copy), output keys, then A, B and output
        // values.
        const MERGE: [(u32, BufferBindingType); 7] = [
            (0, BufferBindingType::Uniform),
            (1, READ),
            (2, READ),
            (3, WRITE),
            (4, READ),
            (5, READ),
            (6, WRITE),
        ];
        const COPY: [(u32, BufferBindingType); 3] =
            [(0, BufferBindingType::Uniform), (1, READ), (2, WRITE)];
        // Merge path adds the splits at binding 7, and merge_path_chunks its chunk counter at 8.
        const PARTITION: [(u32, BufferBindingType); 5] = [
            (0, BufferBindingType::Uniform),
            (1, READ),
            (2, READ),
            (7, WRITE),
            (8, WRITE),
        ];
        const MERGE_PATH_KEYS: [(u32, BufferBindingType); 6] = [
            MERGE[0],
            MERGE[1],
            MERGE[2],
            MERGE[3],
            (7, WRITE),
            (8, WRITE),
        ];
        const MERGE_PATH_PAIRS: [(u32, BufferBindingType); 9] = [
            MERGE[0],
            MERGE[1],
            MERGE[2],
            MERGE[3],
            MERGE[4],
            MERGE[5],
            MERGE[6],
            (7, WRITE),
            (8, WRITE),
        ];
        match self {
            // Params, keys and the result have the copy's layout.
            Kernel::Copy | Kernel::Validate => &COPY,
            Kernel::MergePathPartition { chunks: true, .. } => &PARTITION,
            Kernel::MergePathPartition { chunks: false, .. } => &PARTITION[..4],
            Kernel::MergePathChunks if with_values => &MERGE_PATH_PAIRS,
            Kernel::MergePathChunks => &MERGE_PATH_KEYS,
            Kernel::MergePath | Kernel::MergePathTiles if with_values => &MERGE_PATH_PAIRS[..8],
            Kernel::MergePath | Kernel::MergePathTiles => &MERGE_PATH_KEYS[..5],
            // The set operation's passes share one layout, so that one bind group serves them
            // all; their lengths are in the work buffer, so they bind no uniform.
            Kernel::SetMark(_)
            | Kernel::SetScanBlocks
            | Kernel::SetScanLocal
            | Kernel::SetScatter
                if with_values =>
            {
                &MERGE_PATH_PAIRS[1..8]
            }
            Kernel::SetMark(_)
            | Kernel::SetScanBlocks
            | Kernel::SetScanLocal
            | Kernel::SetScatter => &MERGE_PATH_KEYS[1..5],
            _ if with_values => &MERGE,
            _ => &MERGE[..4],
        }
    }

    /// Storage buffers the kernel binds per shader stage.
    pub fn storage_buffers(self, with_values: bool) -> u32 {
        let storage =
            |(_, ty): &&(u32, BufferBindingType)| matches!(ty, BufferBindingType::Storage { .. });
        self.bindings(with_values).iter().filter(storage).count() as u32
    }

    /// The entry point's name.
    pub fn entry_point(self) -> &'static str {
        match self {
            Kernel::MergeBasic => "merge_basic",
            Kernel::MergeTiled => "merge_tiled",
            Kernel::MergeCircular => "merge_circular",
            Kernel::MergePathPartition { chunks: false, .. } => "merge_path_partition",
            Kernel::MergePathPartition { chunks: true, .. } => "merge_path_partition_chunks",
            Kernel::MergePath => "merge_path",
            Kernel::MergePathTiles => "merge_path_tiles",
            Kernel::MergePathChunks => "merge_path_chunks",
            Kernel::SortBlock => "sort_block",
            Kernel::Copy => "copy",
            Kernel::Validate => "find_unsorted",
            Kernel::SetMark(_) => "set_mark",
            Kernel::SetScanBlocks => "set_scan_blocks",
            Kernel::SetScanLocal => "set_scan_local",
            Kernel::SetScatter => "set_scatter",
        }
    }

    /// Bytes of workgroup memory the kernel uses in `config`.
    pub fn workgroup_memory(self, config: &PipelineConfig) -> u64 {
        let tile = u64::from(config.workgroup_size) * u64::from(config.items_per_thread);
        let key = u64::from(config.key.size());
        match self {
            // Two tiles of keys plus the two co-rank results shared by the workgroup.
            Kernel::MergeTiled | Kernel::MergeCircular => tile * key * 2 + 8,
            // One tile of keys, which keys-only merges reuse for their output; with values,
            // also each output's slot (4 bytes).
            Kernel::MergePath | Kernel::MergePathTiles if config.value_size == 0 => tile * key,
            Kernel::MergePath | Kernel::MergePathTiles => tile * (key + 4),
            // The same, and the chunk a workgroup takes next.
            Kernel::MergePathChunks if config.value_size == 0 => tile * key + 4,
            Kernel::MergePathChunks => tile * (key + 4) + 4,
            // The co-rank searches of its boundaries: three words each.
            Kernel::MergePathPartition { .. } => u64::from(SEARCH_SLOTS) * 3 * 4,
            // One tile of keys and two permutations of its slots.
            Kernel::SortBlock => tile * (key + 8),
            // The scan's slots, one per invocation, and the block count.
            Kernel::SetMark(_)
            | Kernel::SetScanBlocks
            | Kernel::SetScanLocal
            | Kernel::SetScatter => u64::from(config.workgroup_size) * 4 + 4,
            Kernel::MergeBasic | Kernel::Copy | Kernel::Validate => 0,
        }
    }

    /// The composed WGSL source for `config`.
    pub fn source(self, config: &PipelineConfig) -> String {
        compose(&self.modules(config))
    }
}

/// Concatenates modules, each headed by a comment naming its file so that compiler messages
/// can be traced back to it.
pub fn compose(modules: &[Module]) -> String {
    let mut out = String::new();
    for module in modules {
        out.push_str("// ---- ");
        out.push_str(module.name);
        out.push_str(" ----\n");
        out.push_str(module.source);
        if !module.source.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// What a pipeline is built for: the composed modules and the values of their override
/// constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PipelineConfig {
    /// `WORKGROUP_SIZE`: invocations per workgroup.
    pub workgroup_size: u32,
    /// `ITEMS_PER_THREAD`: outputs each invocation merges per step.
    pub items_per_thread: u32,
    /// The key type (composes `keys/<type>.wgsl`).
    pub key: KeyType,
    /// `DESCENDING`: the merge order.
    pub order: Order,
    /// Bytes of the value moved with each key: 0 for keys only, 4 or 8 (composes `values.wgsl`).
    pub value_size: u32,
}

impl PipelineConfig {
    /// Whether a value travels with each key.
    pub fn with_values(&self) -> bool {
        self.value_size > 0
    }

    /// Keys only, ascending, in the given shape.
    pub fn keys(key: KeyType, workgroup_size: u32, items_per_thread: u32) -> Self {
        PipelineConfig {
            workgroup_size,
            items_per_thread,
            key,
            order: Order::Ascending,
            value_size: 0,
        }
    }

    /// The override constants `kernel` declares, as wgpu's pipeline creation (and naga) take
    /// them.
    pub fn constants(&self, kernel: Kernel) -> Vec<(&'static str, f64)> {
        let mut constants = vec![
            ("WORKGROUP_SIZE", f64::from(self.workgroup_size)),
            ("ITEMS_PER_THREAD", f64::from(self.items_per_thread)),
        ];
        if kernel != Kernel::Copy {
            let descending = self.order == Order::Descending;
            constants.push(("DESCENDING", f64::from(u8::from(descending))));
        }
        if let Kernel::MergePathPartition { lanes, .. } = kernel {
            constants.push((
                "PARTITION_WORKGROUP_SIZE",
                f64::from(crate::merge::PARTITION_WORKGROUP_SIZE),
            ));
            constants.push(("PARTITION_LANES", f64::from(lanes)));
        }
        if kernel == Kernel::MergePathChunks {
            let most = crate::merge::most_tiles_per_workgroup(self.items_per_thread);
            constants.push(("MOST_TILES", f64::from(most)));
        }
        if let Kernel::SetMark(operation) = kernel {
            constants.push(("SET_OPERATION", f64::from(operation.index())));
        }
        constants
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_keeps_every_module_in_order() {
        let config = PipelineConfig {
            value_size: 8,
            ..PipelineConfig::keys(KeyType::I64, 64, 2)
        };
        let source = Kernel::MergeTiled.source(&config);
        let positions: Vec<usize> = Kernel::MergeTiled
            .modules(&config)
            .iter()
            .map(|m| source.find(m.source).expect("module text present"))
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]));
        assert!(source.contains("// ---- co_rank.wgsl ----\n"));
        assert!(source.contains("// ---- keys/i64.wgsl ----\n"));
        assert!(source.contains("alias Value = vec2<u32>;\n"));
    }

    #[test]
    fn merge_path_private_arrays_hold_the_most_items_per_thread() {
        let source = MERGE_PATH.source;
        let declared = format!(
            "const MAX_ITEMS: u32 = {}u;",
            crate::merge::MAX_ITEMS_PER_THREAD
        );
        assert!(source.contains(&declared), "merge_path.wgsl: {declared}");
    }

    #[test]
    fn partition_search_slots_hold_every_boundary_of_a_workgroup() {
        let source = MERGE_PATH.source;
        let declared = format!("const SEARCH_SLOTS: u32 = {SEARCH_SLOTS}u;");
        assert!(source.contains(&declared), "merge_path.wgsl: {declared}");
        for tiles in [0, 1, 100, 584, 2979, 4095, 4096, 11915, 1 << 30] {
            let lanes = crate::merge::partition_lanes(tiles);
            assert!(lanes.is_power_of_two() && lanes <= crate::merge::MAX_PARTITION_LANES);
        }
        assert_eq!(crate::merge::partition_lanes(584), 32);
        assert_eq!(crate::merge::partition_lanes(2979), 8);
        assert_eq!(crate::merge::partition_lanes(11915), 1);
    }

    #[test]
    fn compose_terminates_each_module() {
        let a = Module {
            name: "a",
            source: "fn a() {}",
        };
        let b = Module {
            name: "b",
            source: "fn b() {}\n",
        };
        assert_eq!(
            compose(&[a, b]),
            "// ---- a ----\nfn a() {}\n// ---- b ----\nfn b() {}\n"
        );
    }
}
