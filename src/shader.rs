//! The WGSL sources and the one step that composes them into a kernel's module.
//!
//! Kernels share modules: `keys.wgsl` (the key type and its order), `co_rank.wgsl` (co-rank and
//! the sequential merge, reading through accessors the kernel defines), `merge_io.wgsl`
//! (bindings and output) and `values.wgsl` or `no_values.wgsl` (the value bindings, or none, so
//! that a keys-only kernel needs only three storage buffers). WGSL allows declarations in any
//! order, so composing is concatenation in the order [`Kernel::modules`] lists: no preprocessor,
//! no templates. Workgroup size and items per invocation are WGSL override constants, set when a
//! pipeline is created ([`PipelineConfig::constants`]), so one module serves every size.

use wgpu::BufferBindingType;

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
const KEYS: Module = module!("keys.wgsl");
const CO_RANK: Module = module!("co_rank.wgsl");
const MERGE_IO: Module = module!("merge_io.wgsl");
const VALUES: Module = module!("values.wgsl");
const NO_VALUES: Module = module!("no_values.wgsl");
const MERGE_BASIC: Module = module!("merge_basic.wgsl");
const MERGE_TILED: Module = module!("merge_tiled.wgsl");
const MERGE_CIRCULAR: Module = module!("merge_circular.wgsl");
const MERGE_PATH: Module = module!("merge_path.wgsl");
const COPY: Module = module!("copy.wgsl");

/// Every compute kernel the crate dispatches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// `merge_basic.wgsl`
    MergeBasic,
    /// `merge_tiled.wgsl`
    MergeTiled,
    /// `merge_circular.wgsl`
    MergeCircular,
    /// `merge_path.wgsl`, first pass: co-rank of every workgroup boundary.
    MergePathPartition,
    /// `merge_path.wgsl`, second pass: the merge.
    MergePath,
    /// `copy.wgsl`: the bandwidth reference for benchmarks.
    Copy,
}

impl Kernel {
    /// All kernels, for tests that check every shader.
    pub const ALL: [Kernel; 6] = [
        Kernel::MergeBasic,
        Kernel::MergeTiled,
        Kernel::MergeCircular,
        Kernel::MergePathPartition,
        Kernel::MergePath,
        Kernel::Copy,
    ];

    /// The modules composed, in order, into this kernel's shader module, with or without values
    /// (kernels that move no values ignore `with_values`).
    pub fn modules(self, with_values: bool) -> Vec<Module> {
        let kernel = match self {
            Kernel::MergeBasic => MERGE_BASIC,
            Kernel::MergeTiled => MERGE_TILED,
            Kernel::MergeCircular => MERGE_CIRCULAR,
            Kernel::MergePathPartition | Kernel::MergePath => MERGE_PATH,
            Kernel::Copy => return vec![DISPATCH, COPY],
        };
        let values = if with_values { VALUES } else { NO_VALUES };
        vec![DISPATCH, KEYS, CO_RANK, MERGE_IO, values, kernel]
    }

    /// Whether the kernel can move values with its keys.
    pub fn has_values(self) -> bool {
        !matches!(self, Kernel::Copy | Kernel::MergePathPartition)
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
        // Merge path adds the splits at binding 7.
        const PARTITION: [(u32, BufferBindingType); 4] = [
            (0, BufferBindingType::Uniform),
            (1, READ),
            (2, READ),
            (7, WRITE),
        ];
        const MERGE_PATH_KEYS: [(u32, BufferBindingType); 5] =
            [MERGE[0], MERGE[1], MERGE[2], MERGE[3], (7, WRITE)];
        const MERGE_PATH_PAIRS: [(u32, BufferBindingType); 8] = [
            MERGE[0],
            MERGE[1],
            MERGE[2],
            MERGE[3],
            MERGE[4],
            MERGE[5],
            MERGE[6],
            (7, WRITE),
        ];
        match self {
            Kernel::Copy => &COPY,
            Kernel::MergePathPartition => &PARTITION,
            Kernel::MergePath if with_values => &MERGE_PATH_PAIRS,
            Kernel::MergePath => &MERGE_PATH_KEYS,
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
            Kernel::MergePathPartition => "merge_path_partition",
            Kernel::MergePath => "merge_path",
            Kernel::Copy => "copy",
        }
    }

    /// Whether the kernel keeps two arrays of `workgroup_size * items_per_thread` words in
    /// workgroup memory.
    pub fn uses_tiles(self) -> bool {
        matches!(
            self,
            Kernel::MergeTiled | Kernel::MergeCircular | Kernel::MergePath
        )
    }

    /// The composed WGSL source.
    pub fn source(self, with_values: bool) -> String {
        compose(&self.modules(with_values))
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

/// The values of a kernel's override constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PipelineConfig {
    /// `WORKGROUP_SIZE`: invocations per workgroup.
    pub workgroup_size: u32,
    /// `ITEMS_PER_THREAD`: outputs each invocation merges per step.
    pub items_per_thread: u32,
    /// Whether a 4-byte value travels with each key (composes `values.wgsl`).
    pub with_values: bool,
}

impl PipelineConfig {
    /// The override constants as wgpu's pipeline creation (and naga) take them.
    pub fn constants(&self) -> [(&'static str, f64); 2] {
        [
            ("WORKGROUP_SIZE", f64::from(self.workgroup_size)),
            ("ITEMS_PER_THREAD", f64::from(self.items_per_thread)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_keeps_every_module_in_order() {
        let source = Kernel::MergeTiled.source(true);
        let positions: Vec<usize> = Kernel::MergeTiled
            .modules(true)
            .iter()
            .map(|m| source.find(m.source).expect("module text present"))
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]));
        assert!(source.contains("// ---- co_rank.wgsl ----\n"));
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
