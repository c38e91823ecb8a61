//! The sort API, for both algorithms: [`SortOptions`], the slice, async and encoder forms, and
//! argsort. Each call checks its options against the algorithm it names, then records the radix
//! sort (radix_sort.rs) or the merge sort (merge_sort.rs).

use std::borrow::Cow;
use std::ops::Range;

use bytemuck::Pod;

use crate::host::{
    self, element_sizes, expect_written, outputs_at, values_at, Call, Piece, PieceWork, Recorded,
    ResultVec,
};
use crate::key::{Key, KeyType, Order};
use crate::merge::SortedRuns;
use crate::merge_sort::MergeSortPlan;
use crate::radix_sort::{RadixPlan, RadixStrategy};
use crate::scratch::Scratch;
use crate::values::{check_value_size, host_values};
use crate::{Error, Gpu};

/// How to sort. A plain struct: set the fields you need and take the rest from `Default`.
///
/// ```
/// use wgmerge::{Order, SortOptions};
/// let options = SortOptions { order: Order::Descending, ..Default::default() };
/// # let _ = options;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SortOptions {
    /// The sort: LSD radix sort (the default) or merge sort.
    pub algorithm: SortAlgorithm,
    /// The order of the output. Equal keys keep their input order either way (stable).
    pub order: Order,
    /// Radix sort only: sort on these bits of each key's order-preserving bit pattern
    /// ([`Key::order_bits`]; CUB's `begin_bit..end_bit`), keeping the input order of keys equal
    /// there. `None` sorts on all of them. A range beyond the key's bits is
    /// [`Error::InvalidOptions`]. Fewer bits mean fewer passes. A pass over 8 bits that are the
    /// same in every key (keys below 2^16 in `u32`s, say) is not sorted, only counted and
    /// copied; naming the bits that vary saves even that.
    pub bits: Option<Range<u32>>,
    /// Radix sort only: whether to rank keys with subgroup ballots (lib/radix_rank/subgroups)
    /// or with lane masks in workgroup memory (lib/radix_rank/masks). `None` takes subgroups
    /// where the device has them with one fixed subgroup size; `Some(true)` where it has not is
    /// [`Error::Unsupported`].
    pub subgroups: Option<bool>,
    /// Radix sort only: how each pass finds where a tile's keys go ([`RadixStrategy`]). `None`
    /// takes the single sweep for up to 2^22 keys where the adapter is known to give workgroups
    /// forward progress, and reduce-then-scan otherwise.
    pub strategy: Option<RadixStrategy>,
    /// Merge sort only: invocations per workgroup, for the block sort and the merge passes;
    /// `None` lets wgmerge choose.
    pub workgroup_size: Option<u32>,
    /// Merge sort only: keys each invocation sorts and merges per pass; `None` lets wgmerge
    /// choose. A workgroup sorts `workgroup_size * items_per_thread` keys in its first pass.
    pub items_per_thread: Option<u32>,
    /// Slice forms: the most keys one piece may hold. A longer input is sorted piece by piece,
    /// and the sorted pieces are merged on the GPU (merge path, itself in pieces), earlier
    /// pieces first on equal keys, so the result is the same stable sort. `None`: pieces of at
    /// most one storage binding ([`Gpu::max_merge_len`]). With `bits`, an input longer than a
    /// piece is [`Error::TooLarge`]: the merges compare whole keys.
    pub max_piece_len: Option<usize>,
}

/// Which sort [`SortOptions`] runs. Both are stable and give the same result on all bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SortAlgorithm {
    /// LSD radix sort, 8 bits a pass (4 passes for 32-bit keys, 8 for 64-bit ones): per-tile
    /// digit histograms, their scan, and a stable scatter. No workgroup waits on another, so it
    /// is safe on every adapter.
    #[default]
    Radix,
    /// Merge sort built on merge path: each workgroup sorts a tile, then every pass merges pairs
    /// of sorted runs.
    Merge,
}

/// [`Error::InvalidOptions`] unless `options` sort with [`SortAlgorithm::Radix`], the one sort
/// that `what` (an encoder form) has.
fn radix_only(options: &SortOptions, what: &str) -> Result<(), Error> {
    if options.algorithm != SortAlgorithm::Radix {
        return Err(Error::InvalidOptions(format!(
            "{what} sorts with SortAlgorithm::Radix only"
        )));
    }
    Ok(())
}

/// A sort planned for the device.
enum SortPlanned {
    Radix(RadixPlan),
    Merge(MergeSortPlan),
}

impl Gpu {
    /// Sorts `keys` ascending, stably: upload, sort, read back.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sort<K: Key>(&self, keys: &[K]) -> Result<Vec<K>, Error> {
        self.sort_with(keys, &SortOptions::default())
    }

    /// [`Gpu::sort`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sort_with<K: Key>(&self, keys: &[K], options: &SortOptions) -> Result<Vec<K>, Error> {
        self.block_on(self.sort_async(keys, options))
    }

    /// [`Gpu::sort_with`] without blocking.
    pub async fn sort_async<K: Key>(
        &self,
        keys: &[K],
        options: &SortOptions,
    ) -> Result<Vec<K>, Error> {
        let mut sorted = ResultVec::<K>::new(keys.len())?;
        let written = self
            .sort_host(keys, None, options, &mut [sorted.bytes()])
            .await?;
        Ok(sorted.into_vec(written))
    }

    /// Sorts `keys` ascending and moves each key's value with it; stable, so equal keys keep
    /// their values' input order. Values are 4 or 8 bytes, one per key.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sort_pairs<K: Key, V: Pod>(
        &self,
        keys: &[K],
        values: &[V],
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.sort_pairs_with(keys, values, &SortOptions::default())
    }

    /// [`Gpu::sort_pairs`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sort_pairs_with<K: Key, V: Pod>(
        &self,
        keys: &[K],
        values: &[V],
        options: &SortOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.block_on(self.sort_pairs_async(keys, values, options))
    }

    /// [`Gpu::sort_pairs_with`] without blocking.
    pub async fn sort_pairs_async<K: Key, V: Pod>(
        &self,
        keys: &[K],
        values: &[V],
        options: &SortOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        let values = host_values(keys, values, "keys and values")?;
        let mut sorted_keys = ResultVec::<K>::new(keys.len())?;
        let mut sorted_values = ResultVec::<V>::new(keys.len())?;
        let written = self
            .sort_host(
                keys,
                Some(values),
                options,
                &mut [sorted_keys.bytes(), sorted_values.bytes()],
            )
            .await?;
        Ok((
            sorted_keys.into_vec(written),
            sorted_values.into_vec(written),
        ))
    }

    /// Upload, sort, read back through the host driver: in one piece where the input fits one
    /// (`max_piece_len`, at most one storage binding), else in pieces merged afterwards.
    pub(crate) async fn sort_host<K: Key>(
        &self,
        keys: &[K],
        values: Option<(&[u8], u32)>,
        options: &SortOptions,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let most = self.sort_piece_len(K::TYPE, values.map_or(0, |(_, size)| size), options)?;
        if keys.len() <= most {
            return self.sort_piece(keys, values, options, destinations).await;
        }
        self.sort_in_pieces(keys, values, options, most, destinations)
            .await
    }

    /// The most keys one piece of a slice-form sort holds.
    fn sort_piece_len(
        &self,
        key: KeyType,
        value_size: u32,
        options: &SortOptions,
    ) -> Result<usize, Error> {
        host::piece_len(options.max_piece_len, self.max_merge_len(key, value_size))
    }

    /// A sort longer than one piece: each piece of `most` keys sorted on the GPU in turn, then
    /// the sorted pieces merged two by two ([`Gpu::merge_sorted_runs`]), earlier pieces first on
    /// equal keys, so the result is the stable sort's.
    async fn sort_in_pieces<K: Key>(
        &self,
        keys: &[K],
        values: Option<(&[u8], u32)>,
        options: &SortOptions,
        most: usize,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let len = keys.len();
        if options.bits.is_some() {
            return Err(Error::TooLarge {
                what: "sort input on a bit range (sorted pieces are merged on whole keys)",
                len,
                max: most,
            });
        }
        let value_size = values.map_or(0, |(_, size)| size as usize);
        // Every piece is planned as the first is: check the options before any work.
        self.plan_any_sort(K::TYPE, most, value_size as u32, false, options)?;
        let sizes = element_sizes(K::TYPE, value_size);
        let bounds: Vec<usize> = (0..len).step_by(most).chain([len]).collect();
        let mut sorted_keys = ResultVec::<K>::new(len)?;
        let mut sorted_values = ResultVec::<u8>::new(len * value_size)?;
        for piece in bounds.windows(2) {
            let range = piece[0]..piece[1];
            let piece_values = values_at(values, &range);
            let mut outputs = [sorted_keys.bytes(), sorted_values.bytes()];
            let written = self
                .sort_piece(
                    &keys[range.clone()],
                    piece_values,
                    options,
                    &mut outputs_at(&mut outputs, &sizes, &range),
                )
                .await?;
            expect_written(written, &range)?;
        }
        let runs = SortedRuns {
            keys: Cow::Owned(sorted_keys.into_vec(len)),
            values: Cow::Owned(sorted_values.into_vec(len * value_size)),
            value_size,
            bounds,
        };
        self.merge_sorted_runs(runs, options.order, destinations)
            .await
    }

    /// Upload, sort, read back through the host driver, in one piece: the input fits one
    /// storage binding.
    async fn sort_piece<K: Key>(
        &self,
        keys: &[K],
        values: Option<(&[u8], u32)>,
        options: &SortOptions,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let value_size = values.map_or(0, |(_, size)| size);
        let len = keys.len();
        self.plan_any_sort(K::TYPE, len, value_size, false, options)?;
        if len == 0 {
            return Ok(0);
        }
        let key_size = K::TYPE.size() as usize;
        let mut call = Call::one_piece(len);
        call.whole_input(bytemuck::cast_slice(keys), key_size);
        call.output(key_size);
        if let Some((bytes, size)) = values {
            call.whole_input(bytes, size as usize);
            call.output(size as usize);
        }
        let mut work = SortWork {
            key: K::TYPE,
            options,
            value_size,
            scratch: self.create_scratch(),
            indices_only: false,
        };
        host::run(self, &call, &mut work, destinations, &mut |_, _| {}).await
    }

    /// The stable order of `keys`, ascending: indices such that `keys[i]` for each index in
    /// turn is sorted, equal keys in input order (as `slice::sort_by_key` on `(key, index)`).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn argsort<K: Key>(&self, keys: &[K]) -> Result<Vec<u32>, Error> {
        self.argsort_with(keys, &SortOptions::default())
    }

    /// [`Gpu::argsort`] with `options` (order, algorithm, bits).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn argsort_with<K: Key>(
        &self,
        keys: &[K],
        options: &SortOptions,
    ) -> Result<Vec<u32>, Error> {
        self.block_on(self.argsort_async(keys, options))
    }

    /// [`Gpu::argsort_with`] without blocking.
    pub async fn argsort_async<K: Key>(
        &self,
        keys: &[K],
        options: &SortOptions,
    ) -> Result<Vec<u32>, Error> {
        let len = u32::try_from(keys.len()).map_err(|_| Error::TooLarge {
            what: "argsort input",
            len: keys.len(),
            max: u32::MAX as usize,
        })?;
        let most = self.sort_piece_len(K::TYPE, 4, options)?;
        if keys.len() > most {
            return self.argsort_in_pieces(keys, options, most).await;
        }
        self.plan_any_sort(K::TYPE, keys.len(), 4, false, options)?;
        let mut order = ResultVec::<u32>::new(keys.len())?;
        if keys.is_empty() {
            return Ok(order.into_vec(0));
        }
        // The indices are values, and only they come back. The radix sort's first pass writes
        // them; the merge sort's go up.
        let written_on_gpu = options.algorithm == SortAlgorithm::Radix;
        let mut indices = Vec::new();
        if !written_on_gpu {
            indices
                .try_reserve_exact(keys.len())
                .map_err(|_| Error::OutOfMemory(format!("no host memory for {len} indices")))?;
            indices.extend(0..len);
        }
        let n = keys.len();
        let key_size = K::TYPE.size() as usize;
        let call = Call {
            // The keys, their indices, and room for the keys' temporary copy, which nothing
            // uploads.
            inputs: vec![
                (bytemuck::cast_slice(keys), key_size),
                (bytemuck::cast_slice(&indices), 4),
                (&[], key_size),
            ],
            output_sizes: vec![4],
            pieces: vec![Piece {
                inputs: vec![0..n, 0..indices.len(), 0..0],
                output: 0..n,
            }],
            input_room: vec![n, n, n],
            output_room: n,
        };
        let mut work = SortWork {
            key: K::TYPE,
            options,
            value_size: 4,
            scratch: self.create_scratch(),
            indices_only: true,
        };
        let written =
            host::run(self, &call, &mut work, &mut [order.bytes()], &mut |_, _| {}).await?;
        Ok(order.into_vec(written))
    }

    /// An argsort longer than one piece: the keys sorted in pieces with their indices as values,
    /// of which only the indices are kept.
    async fn argsort_in_pieces<K: Key>(
        &self,
        keys: &[K],
        options: &SortOptions,
        most: usize,
    ) -> Result<Vec<u32>, Error> {
        let len = keys.len();
        let mut indices = Vec::new();
        indices
            .try_reserve_exact(len)
            .map_err(|_| Error::OutOfMemory(format!("no host memory for {len} indices")))?;
        indices.extend(0..len as u32);
        let mut sorted_keys = ResultVec::<K>::new(len)?;
        let mut order = ResultVec::<u32>::new(len)?;
        let values = Some((bytemuck::cast_slice(&indices), 4));
        let written = self
            .sort_in_pieces(
                keys,
                values,
                options,
                most,
                &mut [sorted_keys.bytes(), order.bytes()],
            )
            .await?;
        Ok(order.into_vec(written))
    }

    /// Records a sort of GPU-resident buffers of `K` keys into `encoder`; nothing is read back.
    /// The sorted keys (and values) end in `buffers.keys` (and `values`); the temporary buffers
    /// are overwritten. The input must fit one storage binding ([`Gpu::max_merge_len`]).
    pub fn encode_sort<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &SortBuffers<'_>,
        options: &SortOptions,
    ) -> Result<(), Error> {
        self.encode_sort_checked::<K>(encoder, scratch, buffers, None, options, false)
    }

    /// Records an argsort of GPU-resident keys into `encoder`: `buffers.values` (4-byte values,
    /// required) receive the stable order as `u32` indices into the keys, and `buffers.keys` the
    /// sorted keys. Nothing is uploaded: the radix sort's first pass writes each key's index as
    /// its value. Radix sort only ([`SortAlgorithm::Merge`] is [`Error::InvalidOptions`]).
    pub fn encode_argsort<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &SortBuffers<'_>,
        options: &SortOptions,
    ) -> Result<(), Error> {
        radix_only(options, "encode_argsort")?;
        if buffers.values.map(|v| v.value_size) != Some(4) {
            return Err(Error::InvalidOptions(
                "encode_argsort writes u32 indices: buffers.values must hold 4-byte values".into(),
            ));
        }
        self.encode_sort_checked::<K>(encoder, scratch, buffers, None, options, true)
    }

    /// [`Gpu::encode_sort`] of as many keys as the first `u32` of `count` says, written there by
    /// earlier GPU work (a renderer's culling pass, say), so nothing is read back to learn it.
    /// `buffers.len` is the capacity: the buffers' room, and the most keys sorted (a larger
    /// count is taken as the capacity). Keys beyond the count are left as they are. Radix sort
    /// only; `count` needs `STORAGE`.
    pub fn encode_sort_counted<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &SortBuffers<'_>,
        count: &wgpu::Buffer,
        options: &SortOptions,
    ) -> Result<(), Error> {
        radix_only(options, "encode_sort_counted")?;
        self.encode_sort_checked::<K>(encoder, scratch, buffers, Some(count), options, false)
    }

    /// The encoder forms' checks and recording; `indexed`: an argsort's, whose values are the
    /// keys' indices.
    fn encode_sort_checked<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &SortBuffers<'_>,
        count: Option<&wgpu::Buffer>,
        options: &SortOptions,
        indexed: bool,
    ) -> Result<(), Error> {
        self.check_lost()?;
        let value_size = check_value_size(buffers.values.map_or(0, |v| v.value_size))?;
        let mut plan =
            self.plan_any_sort(K::TYPE, buffers.len, value_size, count.is_some(), options)?;
        if let (SortPlanned::Radix(plan), true) = (&mut plan, indexed) {
            plan.index_values();
        }
        self.check_sort_arrays(buffers, K::TYPE, value_size, count)?;
        if buffers.len == 0 {
            return Ok(());
        }
        let keys = [buffers.keys, buffers.temp];
        let values = buffers.values.map(|v| [v.values, v.temp]);
        let result = match &plan {
            SortPlanned::Radix(plan) => self.checked(|| {
                self.record_radix_sort(encoder, scratch, keys, values, count, plan, true)
            })??,
            SortPlanned::Merge(plan) => {
                let prepared =
                    self.checked(|| self.prepare_merge_sort(scratch, keys, values, plan, true))??;
                prepared.record(encoder)
            }
        };
        debug_assert_eq!(result, 0, "the resident sort ends in the caller's buffers");
        Ok(())
    }

    /// Checks the buffers of a resident sort (and of whatever else runs on [`SortBuffers`]):
    /// each is this device's, has room and is bound once; `count` is a GPU-side count.
    pub(crate) fn check_sort_arrays(
        &self,
        buffers: &SortBuffers<'_>,
        key: KeyType,
        value_size: u32,
        count: Option<&wgpu::Buffer>,
    ) -> Result<(), Error> {
        let key_size = key.size();
        let len = buffers.len;
        let mut arrays = vec![
            ("keys", buffers.keys, len, key_size, true),
            ("temp", buffers.temp, len, key_size, true),
        ];
        if let Some(count) = count {
            arrays.push(("count", count, 1, 4, false));
        }
        if let Some(values) = &buffers.values {
            arrays.push(("values", values.values, len, value_size, true));
            arrays.push(("values temp", values.temp, len, value_size, true));
        }
        self.check_arrays(&arrays)
    }

    /// Checks a sort's options against its algorithm and the device, and plans it.
    fn plan_any_sort(
        &self,
        key: KeyType,
        len: usize,
        value_size: u32,
        counted: bool,
        options: &SortOptions,
    ) -> Result<SortPlanned, Error> {
        let misplaced = match options.algorithm {
            SortAlgorithm::Radix => (options.workgroup_size.is_some()
                || options.items_per_thread.is_some())
            .then_some("workgroup_size and items_per_thread shape SortAlgorithm::Merge only"),
            SortAlgorithm::Merge => (options.bits.is_some()
                || options.subgroups.is_some()
                || options.strategy.is_some())
            .then_some("bits, subgroups and strategy are options of SortAlgorithm::Radix only"),
        };
        if let Some(why) = misplaced {
            return Err(Error::InvalidOptions(why.into()));
        }
        let max = self.max_merge_len(key, value_size);
        if len > max {
            return Err(Error::TooLarge {
                what: "sort input",
                len,
                max,
            });
        }
        Ok(match options.algorithm {
            SortAlgorithm::Radix => {
                SortPlanned::Radix(self.plan_radix_sort(key, len, value_size, counted, options)?)
            }
            SortAlgorithm::Merge => {
                SortPlanned::Merge(self.plan_merge_sort(key, len, value_size, options)?)
            }
        })
    }
}

/// A slice-form sort, in one piece: the slot's input buffers are the keys (and values), its
/// output buffers the temporaries, and the result is read from whichever the last pass wrote.
struct SortWork<'a> {
    key: KeyType,
    options: &'a SortOptions,
    value_size: u32,
    scratch: Scratch,
    /// Argsort: the inputs are the keys, their indices (uploaded for merge sort, written by
    /// radix sort's first pass) and the keys' temporary; the one output is the indices'
    /// temporary, and only the indices are read back.
    indices_only: bool,
}

impl PieceWork for SortWork<'_> {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error> {
        let len = piece.output.len();
        let mut plan = gpu.plan_any_sort(self.key, len, self.value_size, false, self.options)?;
        if let (SortPlanned::Radix(plan), true) = (&mut plan, self.indices_only) {
            plan.index_values();
        }
        let (keys, values) = if self.indices_only {
            ([&inputs[0], &inputs[2]], Some([&inputs[1], &outputs[0]]))
        } else {
            let values = (self.value_size > 0).then(|| [&inputs[1], &outputs[1]]);
            ([&inputs[0], &outputs[0]], values)
        };
        // Here the result may stay in the temporary buffers: no extra pass.
        let result = match &plan {
            SortPlanned::Radix(plan) => {
                gpu.record_radix_sort(encoder, &self.scratch, keys, values, None, plan, false)?
            }
            SortPlanned::Merge(plan) => {
                let prepared = gpu.prepare_merge_sort(&self.scratch, keys, values, plan, false)?;
                prepared.record(encoder)
            }
        };
        let mut outputs = Vec::new();
        if !self.indices_only {
            outputs.push(keys[result].clone());
        }
        if let Some(values) = values {
            outputs.push(values[result].clone());
        }
        Ok(Recorded {
            outputs,
            count: None,
            words: Vec::new(),
        })
    }
}

/// The caller's GPU buffers for [`Gpu::encode_sort`]. Keys are of the [`Key`] type the call
/// names, tightly packed from offset 0; every buffer needs `STORAGE` and room for `len`
/// elements, and each must be a buffer of its own.
#[derive(Clone, Copy, Debug)]
pub struct SortBuffers<'a> {
    /// The keys to sort; receives the sorted keys.
    pub keys: &'a wgpu::Buffer,
    /// Scratch of the same size: the passes go back and forth between the two.
    pub temp: &'a wgpu::Buffer,
    /// Keys to sort.
    pub len: usize,
    /// Values moved with the keys, if any.
    pub values: Option<SortValueBuffers<'a>>,
}

/// Values moving with the keys in [`SortBuffers`].
#[derive(Clone, Copy, Debug)]
pub struct SortValueBuffers<'a> {
    /// One value per key; receives the values in sorted order.
    pub values: &'a wgpu::Buffer,
    /// Scratch of the same size.
    pub temp: &'a wgpu::Buffer,
    /// Bytes per value: 4 or 8.
    pub value_size: u32,
}
