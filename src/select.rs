//! Selection in one pass (`lib/select.wgsl`, CUB's `DeviceSelect::If`): an operation's entry file
//! says which keys stay (`is_kept`), and each tile keeps its kept keys (and values) in input order
//! at the place that decoupled look-back gives it, the number kept written by the last tile. The
//! input is read once and only the kept keys are written. Dedup and the key filter select with it.

use bytemuck::{Pod, Zeroable};

use crate::device::{bind_elements, dispatch, entry, whole, whole_vec4_bytes};
use crate::host::{self, Call, Piece, PieceWork, Recorded};
use crate::key::{move_values_module, Key, KeyType};
use crate::look_back::{self, LookBack};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scan::{lanes_memory, lanes_module};
use crate::scratch::Scratch;
use crate::{tuning, Error, Gpu};

/// The bindings of every selection kernel; the key filter adds its B at 6.
pub(crate) const BINDINGS: &[(u32, wgpu::BufferBindingType)] =
    &[(0, UNIFORM), (1, READ), (2, WRITE), (3, WRITE), (7, WRITE)];
/// The value bindings of every selection kernel (lib/move_values/words.wgsl).
pub(crate) const VALUE_BINDINGS: &[(u32, wgpu::BufferBindingType)] = &[(4, READ), (5, WRITE)];
/// The binding of a selection's second input.
const OTHER: u32 = 6;

/// The scratch temporary holding the look-back state (scan.rs numbers its own from 0, set.rs
/// from 40, radix_sort.rs from 42).
const STATE: usize = 44;
/// Where a selection of no keys binds its output, which must still be a buffer of its own.
const SPARE: usize = 45;
/// The slice forms' count.
const COUNT: usize = 46;

/// Loop iterations an invocation runs a tile, for [`tuning::most_tiles_within_loop_budget`]: the
/// scan's share (scan.rs measured 73 to 109 on lavapipe), its loads, and staging and writing up
/// to 4 chunks of the output (40 each); a kernel that binds a second input searches it for each
/// of its keys, at most 32 iterations each.
fn loops_per_tile(kernel: &Kernel) -> u32 {
    let searches = kernel.bindings.iter().any(|&(binding, _)| binding == OTHER);
    384 + if searches {
        tuning::select_items(4) * 32
    } else {
        0
    }
}

/// `MOST_TILES` of selection `kernel`.
fn most_tiles(kernel: &Kernel) -> u32 {
    tuning::most_tiles_within_loop_budget(loops_per_tile(kernel))
}

/// Values of [`DedupBuffers`](crate::DedupBuffers) and [`FilterBuffers`](crate::FilterBuffers):
/// one per key, 4 or 8 bytes each; the kept keys' values go to `out`.
#[derive(Clone, Copy, Debug)]
pub struct KeptValueBuffers<'a> {
    /// The values.
    pub values: &'a wgpu::Buffer,
    /// Receives the kept keys' values.
    pub out: &'a wgpu::Buffer,
    /// Bytes per value: 4 or 8.
    pub value_size: u32,
}

/// `SelectParams` in lib/select.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SelectParams {
    len: u32,
    tiles: u32,
    other_len: u32,
    _pad: u32,
}

/// How a selection runs on a device: whether its lanes scan with subgroups, and its look-back.
/// Its workgroups are tuning::SELECT_WORKGROUP invocations on every device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SelectConfig {
    subgroups: bool,
    look_back: LookBack,
}

impl SelectConfig {
    /// The kernel's specialization: the operation's own (`op`: its parameters and constants)
    /// with the selection's.
    pub(crate) fn specialization(
        self,
        (kernel, op): (&Kernel, &Specialization),
        (key, vec4): (KeyType, bool),
        value_size: u32,
    ) -> Specialization {
        let (values, mut constants) = move_values_module(value_size);
        let lanes = lanes_module(self.subgroups);
        constants.push(("WORKGROUP_SIZE", tuning::SELECT_WORKGROUP));
        constants.push(("MOST_TILES", most_tiles(kernel)));
        constants.extend(self.look_back.constants());
        // Counts, below 2^30: one word of look-back state a tile (run 155).
        constants.push(("NARROW", 1));
        constants.extend(op.constants.iter().copied());
        let mut params = vec![
            ("key", key.module()),
            (
                "keys_in",
                if vec4 {
                    "lib/select_io/vec4"
                } else {
                    "lib/select_io/scalar"
                },
            ),
            ("move_values", values),
            ("lanes", lanes),
            ("look_back_window", look_back::window_module(self.subgroups)),
        ];
        params.extend(op.params.iter().copied());
        Specialization {
            params,
            constants,
            with_values: value_size > 0,
        }
    }

    /// Workgroup memory of a selection kernel of `key` keys.
    fn workgroup_memory(self, key: KeyType) -> u64 {
        let lanes = lanes_memory(self.subgroups, tuning::SELECT_WORKGROUP);
        // The staged sources (`STAGE` in lib/select.wgsl: 64 for each key an invocation takes)
        // and the tile's count.
        let stage = u64::from(tuning::select_items(key.size())) * 64;
        lanes + look_back::workgroup_memory(self.subgroups) + stage * 4 + 4
    }

    /// Keys of one tile of `key` keys.
    fn tile(self, key: KeyType) -> usize {
        tuning::SELECT_WORKGROUP as usize * tuning::select_items(key.size()) as usize
    }

    /// A selection with no patience in its look-back (tests; `LookBack::IMPATIENT`).
    #[cfg(test)]
    pub(crate) fn impatient(subgroups: bool) -> SelectConfig {
        SelectConfig {
            subgroups,
            look_back: LookBack::IMPATIENT,
        }
    }

    /// Every configuration a device may build, for the kernel tests.
    #[cfg(test)]
    fn all() -> Vec<SelectConfig> {
        let mut all = Vec::new();
        for subgroups in [false, true] {
            for wait in [false, true] {
                all.push(SelectConfig {
                    subgroups,
                    look_back: LookBack {
                        wait,
                        spins: look_back::SPINS,
                    },
                });
            }
        }
        all
    }
}

/// Whether `len` keys of type `key` at the start of `keys` may be bound as whole vec4s
/// (lib/select_io/vec4.wgsl): 4-byte keys, with the buffer, and a binding of at most
/// `max_binding` bytes, holding their length rounded up to a multiple of 4.
pub(crate) fn keys_as_vec4(
    key: KeyType,
    keys: &wgpu::Buffer,
    len: usize,
    max_binding: u64,
) -> bool {
    let bytes = whole_vec4_bytes(len);
    key.size() == 4 && len > 0 && bytes <= keys.size() && bytes <= max_binding
}

/// A selection's buffers: the keys selected, any second input its kernel reads, where the kept
/// keys (and values) go, and the word of `count` that receives their number.
pub(crate) struct Selection<'a> {
    pub(crate) keys: (&'a wgpu::Buffer, usize),
    pub(crate) other: Option<(&'a wgpu::Buffer, usize)>,
    pub(crate) out: &'a wgpu::Buffer,
    pub(crate) values: Option<[&'a wgpu::Buffer; 2]>,
    pub(crate) count: &'a wgpu::Buffer,
}

impl Gpu {
    /// How selections run on this device: subgroups where the device has them and a workgroup
    /// fills its subgroups, waiting look-back where the adapter gives forward progress and
    /// decoupled fallback elsewhere (as scans choose by default).
    pub(crate) fn select_config(&self) -> SelectConfig {
        SelectConfig {
            subgroups: self.subgroups_fill(tuning::SELECT_WORKGROUP),
            look_back: self.default_look_back(),
        }
    }

    /// Checks that the device can run selection `kernel`.
    pub(crate) fn check_select(
        &self,
        kernel: &Kernel,
        key: KeyType,
        with_values: bool,
    ) -> Result<(), Error> {
        let config = self.select_config();
        self.check_workgroup_memory(config.workgroup_memory(key), kernel.entry)?;
        self.check_storage_buffers(kernel, with_values)
    }

    /// Records selection `kernel` (specialised for the operation by `op`) over `buffers`.
    pub(crate) fn record_selection(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        (kernel, op, config): (&'static Kernel, &Specialization, SelectConfig),
        buffers: &Selection<'_>,
        (key, value_size): (KeyType, u32),
    ) -> Result<(), Error> {
        let (keys, len) = buffers.keys;
        let tiles = len.div_ceil(config.tile(key));
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let state_bytes = look_back::state_words(tiles) * 4;
        let state = scratch.temporary(&self.device, STATE, state_bytes, usage);
        // Published values start unset and the tile counter at 0.
        encoder.clear_buffer(&state, 0, Some(state_bytes));
        let params = SelectParams {
            len: len as u32,
            tiles: tiles as u32,
            other_len: buffers.other.map_or(0, |(_, n)| n as u32),
            _pad: 0,
        };
        let params = self.uniform("wgmerge select params", bytemuck::bytes_of(&params));
        let placeholder = scratch.placeholder();
        let key_size = key.size();
        let vec4 = keys_as_vec4(key, keys, len, self.max_binding_bytes());
        let keys_binding = if vec4 {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: keys,
                offset: 0,
                size: wgpu::BufferSize::new(whole_vec4_bytes(len)),
            })
        } else {
            bind_elements(keys, 0, len, key_size, placeholder)
        };
        // With no keys only the count is written: the output binding gets a spare buffer, and
        // no values are bound.
        let spare;
        let out = if len == 0 {
            spare = scratch.temporary(&self.device, SPARE, 16, wgpu::BufferUsages::STORAGE);
            spare.as_entire_binding()
        } else {
            bind_elements(buffers.out, 0, len, key_size, placeholder)
        };
        let values = buffers.values.filter(|_| len > 0);
        let value_size = if values.is_some() { value_size } else { 0 };
        let mut entries = vec![
            whole(0, &params),
            entry(1, keys_binding),
            entry(2, out),
            whole(3, &state),
            entry(7, bind_elements(buffers.count, 0, 1, 4, placeholder)),
        ];
        if let Some((other, n)) = buffers.other {
            entries.push(entry(
                OTHER,
                bind_elements(other, 0, n, key_size, placeholder),
            ));
        }
        if let Some(values) = values {
            entries.extend([
                entry(4, bind_elements(values[0], 0, len, value_size, placeholder)),
                entry(5, bind_elements(values[1], 0, len, value_size, placeholder)),
            ]);
        }
        let bind_group = self.bind_group(kernel, values.is_some(), &entries);
        let specialization = config.specialization((kernel, op), (key, vec4), value_size);
        let pipeline = self.pipeline(kernel, &specialization)?;
        // Workgroups take tiles in turn; at least one, which writes the count when there are no
        // keys.
        let groups =
            tuning::scan_single_pass_groups(tiles, tuning::SELECT_WORKGROUP, most_tiles(kernel));
        let groups = self.dispatch_shape(groups.max(1))?;
        dispatch(encoder, kernel.entry, &pipeline, &bind_group, groups);
        Ok(())
    }

    /// A selection's slice form, through the host driver in one piece: `keys` (and `other`, a
    /// second key input the kernel reads, and `values`) go up, the kept keys (and values) come
    /// back, their number first, from the GPU.
    pub(crate) async fn select_host<K: Key>(
        &self,
        (kernel, op): (&'static Kernel, &Specialization),
        keys: &[K],
        other: Option<&[K]>,
        values: Option<(&[u8], u32)>,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let len = keys.len();
        if len == 0 {
            return Ok(0);
        }
        let key_size = K::TYPE.size() as usize;
        let mut call = Call::one_piece(len);
        call.whole_input(bytemuck::cast_slice(keys), key_size);
        call.output(key_size);
        if let Some(other) = other {
            call.whole_input(bytemuck::cast_slice(other), key_size);
        }
        let value_size = values.map_or(0, |(_, size)| size);
        if let Some((bytes, size)) = values {
            call.whole_input(bytes, size as usize);
            call.output(size as usize);
        }
        let mut work = SelectWork {
            kernel,
            op,
            key: K::TYPE,
            value_size,
            has_other: other.is_some(),
            scratch: self.create_scratch(),
        };
        host::run(self, &call, &mut work, destinations, &mut |_, _| {}).await
    }
}

/// A selection's slice form in one piece: the slot's inputs are the keys, any other key input,
/// then the values; its outputs receive the kept keys and values.
struct SelectWork<'a> {
    kernel: &'static Kernel,
    op: &'a Specialization,
    key: KeyType,
    value_size: u32,
    has_other: bool,
    scratch: Scratch,
}

impl PieceWork for SelectWork<'_> {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error> {
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let count = self.scratch.temporary(&gpu.device, COUNT, 4, usage);
        let key_inputs = 1 + usize::from(self.has_other);
        let buffers = Selection {
            keys: (&inputs[0], piece.inputs[0].len()),
            other: self.has_other.then(|| (&inputs[1], piece.inputs[1].len())),
            out: &outputs[0],
            values: (self.value_size > 0).then(|| [&inputs[key_inputs], &outputs[1]]),
            count: &count,
        };
        let config = gpu.select_config();
        gpu.record_selection(
            encoder,
            &self.scratch,
            (self.kernel, self.op, config),
            &buffers,
            (self.key, self.value_size),
        )?;
        let mut recorded = Recorded::outputs(&outputs.iter().collect::<Vec<_>>());
        recorded.count = Some((count, 0));
        Ok(recorded)
    }
}

/// Every configuration of selection `kernel` for the operation's specializations `ops`, for the
/// kernel tests.
#[cfg(test)]
pub(crate) fn configurations(
    kernel: &'static Kernel,
    ops: &[Specialization],
) -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for op in ops {
        for key in KeyType::ALL {
            for value_size in [0, 4, 8] {
                for config in SelectConfig::all() {
                    let layouts: &[bool] = if key.size() == 4 {
                        &[false, true]
                    } else {
                        &[false]
                    };
                    for &vec4 in layouts {
                        out.push(crate::kernel_tests::Configuration {
                            kernel,
                            specialization: config.specialization(
                                (kernel, op),
                                (key, vec4),
                                value_size,
                            ),
                            workgroup_memory: config.workgroup_memory(key),
                        });
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_buffers::upload;

    /// Keys bind as vec4s only where the buffer and a binding hold their length rounded up to 4.
    #[test]
    fn keys_bind_as_vec4_only_where_they_fit() {
        let gpu = Gpu::new().expect("an adapter (lavapipe in CI)");
        let buffer = upload(&gpu, &[0; 8]);
        assert!(keys_as_vec4(KeyType::U32, &buffer, 8, 32));
        assert!(keys_as_vec4(KeyType::F32, &buffer, 5, 32));
        assert!(!keys_as_vec4(KeyType::U32, &buffer, 5, 28));
        assert!(!keys_as_vec4(KeyType::U64, &buffer, 4, 32));
        assert!(!keys_as_vec4(KeyType::U32, &buffer, 0, 32));
        let odd = upload(&gpu, &[0; 7]);
        assert!(!keys_as_vec4(KeyType::I32, &odd, 7, 1 << 20));
        assert!(keys_as_vec4(KeyType::I32, &odd, 4, 1 << 20));
    }
}
