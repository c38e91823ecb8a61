//! Sorted search (`search_sorted.wgsl`): where each needle would go in a sorted haystack, one
//! binary search per needle with the shared searches of `lib/search.wgsl`.

use bytemuck::{Pod, Zeroable};

use crate::device::{bind_elements, dispatch};
use crate::host::{self, Call, Piece, PieceWork, Recorded, ResultVec};
use crate::key::{Key, KeyType, Order};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scratch::Scratch;
use crate::{Error, Gpu};

/// `search_sorted` in search_sorted.wgsl.
pub(crate) static SEARCH_SORTED: Kernel = Kernel {
    file: "search_sorted",
    entry: "search_sorted",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE)],
    value_bindings: &[],
};

/// `WORKGROUP_SIZE` in search_sorted.wgsl.
const WORKGROUP_SIZE: usize = 256;

/// Which end of a run of keys equal to the needle [`Gpu::search_sorted`] returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The first index whose key is not before the needle (`partition_point(|h| h < needle)`
    /// ascending): before any equal keys.
    #[default]
    Lower,
    /// The first index whose key is after the needle (`partition_point(|h| h <= needle)`
    /// ascending): after any equal keys.
    Upper,
}

/// How to search. A plain struct: set the fields you need and take the rest from `Default`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// Which end of a run of equal keys.
    pub bound: Bound,
    /// The order the haystack is sorted in.
    pub order: Order,
}

/// The caller's GPU buffers for [`Gpu::encode_search_sorted`]: keys of the [`Key`] type the
/// call names, from offset 0; `out` receives one `u32` index per needle. Every buffer needs
/// `STORAGE`, and `out` must be a buffer of its own.
#[derive(Clone, Copy, Debug)]
pub struct SearchBuffers<'a> {
    /// The sorted keys searched.
    pub haystack: &'a wgpu::Buffer,
    /// Keys in `haystack`.
    pub haystack_len: usize,
    /// The keys looked up.
    pub needles: &'a wgpu::Buffer,
    /// Keys in `needles`.
    pub needles_len: usize,
    /// Receives each needle's index.
    pub out: &'a wgpu::Buffer,
}

/// `SearchParams` in search_sorted.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct SearchParams {
    haystack_len: u32,
    needles_len: u32,
}

fn specialization(key: KeyType, options: &SearchOptions) -> Specialization {
    Specialization {
        params: vec![("key", key.module())],
        constants: vec![
            ("DESCENDING", u32::from(options.order == Order::Descending)),
            ("UPPER", u32::from(options.bound == Bound::Upper)),
        ],
        with_values: false,
    }
}

impl Gpu {
    /// For each needle, the index at which it would go in the sorted `haystack` (ascending), as
    /// `haystack.partition_point` gives it: before keys equal to it with [`Bound::Lower`], after
    /// them with [`Bound::Upper`]. Needles need not be sorted. If the haystack is not sorted the
    /// indices are unspecified, but each lies within `0..=haystack.len()`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn search_sorted<K: Key>(
        &self,
        haystack: &[K],
        needles: &[K],
        bound: Bound,
    ) -> Result<Vec<u32>, Error> {
        let options = SearchOptions {
            bound,
            ..Default::default()
        };
        self.search_sorted_with(haystack, needles, &options)
    }

    /// [`Gpu::search_sorted`] with `options` (the bound and the haystack's order).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn search_sorted_with<K: Key>(
        &self,
        haystack: &[K],
        needles: &[K],
        options: &SearchOptions,
    ) -> Result<Vec<u32>, Error> {
        self.block_on(self.search_sorted_async(haystack, needles, options))
    }

    /// [`Gpu::search_sorted_with`] without blocking.
    pub async fn search_sorted_async<K: Key>(
        &self,
        haystack: &[K],
        needles: &[K],
        options: &SearchOptions,
    ) -> Result<Vec<u32>, Error> {
        self.check_lost()?;
        self.plan_search(K::TYPE, haystack.len(), needles.len())?;
        let mut found = ResultVec::<u32>::new(needles.len())?;
        if needles.is_empty() {
            return Ok(found.into_vec(0));
        }
        let (h, n) = (haystack.len(), needles.len());
        let key_size = K::TYPE.size() as usize;
        let call = Call {
            inputs: vec![
                (bytemuck::cast_slice(haystack), key_size),
                (bytemuck::cast_slice(needles), key_size),
            ],
            output_sizes: vec![4],
            pieces: vec![Piece {
                inputs: vec![0..h, 0..n],
                output: 0..n,
            }],
            input_room: vec![h, n],
            output_room: n,
        };
        let mut work = SearchWork {
            specialization: specialization(K::TYPE, options),
            key_size: K::TYPE.size(),
            scratch: self.create_scratch(),
        };
        let written =
            host::run(self, &call, &mut work, &mut [found.bytes()], &mut |_, _| {}).await?;
        Ok(found.into_vec(written))
    }

    /// Records a sorted search of GPU-resident `buffers` into `encoder`; nothing is read back.
    /// Haystack and needles must each fit one storage binding.
    pub fn encode_search_sorted<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &SearchBuffers<'_>,
        options: &SearchOptions,
    ) -> Result<(), Error> {
        self.check_lost()?;
        let (h, n) = (buffers.haystack_len, buffers.needles_len);
        self.plan_search(K::TYPE, h, n)?;
        let key_size = K::TYPE.size();
        self.check_arrays(&[
            ("haystack", buffers.haystack, h, key_size, false),
            ("needles", buffers.needles, n, key_size, false),
            ("out", buffers.out, n, 4, true),
        ])?;
        let specialization = specialization(K::TYPE, options);
        self.checked(|| {
            self.record_search(
                encoder,
                scratch,
                [buffers.haystack, buffers.needles, buffers.out],
                (h, n, key_size),
                &specialization,
            )
        })?
    }

    /// Checks a search's lengths against the device.
    fn plan_search(&self, key: KeyType, haystack: usize, needles: usize) -> Result<(), Error> {
        let max = self.max_merge_len(key, 0);
        for (what, len) in [("search haystack", haystack), ("search needles", needles)] {
            if len > max {
                return Err(Error::TooLarge { what, len, max });
            }
        }
        Ok(())
    }

    fn record_search(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        [haystack, needles, out]: [&wgpu::Buffer; 3],
        (h, n, key_size): (usize, usize, u32),
        specialization: &Specialization,
    ) -> Result<(), Error> {
        if n == 0 {
            return Ok(());
        }
        let placeholder = scratch.placeholder();
        let params = self.uniform(
            "wgmerge search params",
            bytemuck::bytes_of(&SearchParams {
                haystack_len: h as u32,
                needles_len: n as u32,
            }),
        );
        let bind_group = self.bind_group(
            &SEARCH_SORTED,
            false,
            &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: bind_elements(haystack, 0, h, key_size, placeholder),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: bind_elements(needles, 0, n, key_size, placeholder),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: bind_elements(out, 0, n, 4, placeholder),
                },
            ],
        );
        let pipeline = self.pipeline(&SEARCH_SORTED, specialization)?;
        let groups = self.dispatch_shape(n.div_ceil(WORKGROUP_SIZE) as u32)?;
        dispatch(encoder, "search_sorted", &pipeline, &bind_group, groups);
        Ok(())
    }
}

/// A slice-form search, in one piece: the slot's inputs are the haystack and the needles, its
/// output the indices.
struct SearchWork {
    specialization: Specialization,
    key_size: u32,
    scratch: Scratch,
}

impl PieceWork for SearchWork {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error> {
        let (h, n) = (piece.inputs[0].len(), piece.inputs[1].len());
        gpu.record_search(
            encoder,
            &self.scratch,
            [&inputs[0], &inputs[1], &outputs[0]],
            (h, n, self.key_size),
            &self.specialization,
        )?;
        Ok(Recorded::outputs(&[&outputs[0]]))
    }
}

/// Every configuration of the search kernel, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for key in KeyType::ALL {
        for order in [Order::Ascending, Order::Descending] {
            for bound in [Bound::Lower, Bound::Upper] {
                out.push(crate::kernel_tests::Configuration {
                    kernel: &SEARCH_SORTED,
                    specialization: specialization(key, &SearchOptions { bound, order }),
                    workgroup_memory: 0,
                });
            }
        }
    }
    out
}
