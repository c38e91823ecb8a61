//! Many-way merge of sorted runs: a merge tree, whose every pass merges each pair of consecutive
//! runs with merge path's partition and merge (segments listed per pass, lib/tiling/table.wgsl),
//! ceil(log2 k) passes for k runs. Where that takes more passes than a radix sort costs
//! (`tuning::merge_many_by_tree`), the runs are radix sorted end to end instead: a stable sort of
//! runs laid end to end is exactly the stable merge by run index, in linear work.

use std::borrow::Cow;

use bytemuck::Pod;

use crate::host::{self, Call, Piece, PieceWork, Recorded, ResultVec};
use crate::key::{Key, KeyType, Order};
use crate::merge::{MergeOptions, MergePlan, SortedRuns};
use crate::merge_sort::PreparedSort;
use crate::scratch::Scratch;
use crate::sort::{SortBuffers, SortOptions};
use crate::values::{check_value_size, host_values};
use crate::{tuning, Algorithm, Error, Gpu};

/// One pass of a merge tree: its segments as lib/tiling/table.wgsl reads them (a header, then
/// each segment's start, lengths and first tile) and its tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TreePass {
    table: Vec<[u32; 4]>,
    tiles: u32,
}

impl TreePass {
    /// The pass merging each pair of `(start, a_len, b_len)` segments, in tiles of `tile`.
    fn of(segments: impl Iterator<Item = (usize, usize, usize)>, tile: usize) -> Self {
        let mut table = vec![[0; 4]];
        let mut tiles = 0;
        for (start, a_len, b_len) in segments {
            table.push([start as u32, a_len as u32, b_len as u32, tiles as u32]);
            tiles += (a_len + b_len).div_ceil(tile);
        }
        table[0] = [(table.len() - 1) as u32, tiles as u32, 0, 0];
        TreePass {
            table,
            tiles: tiles as u32,
        }
    }

    /// A pass that copies `len` keys: one segment with nothing in B.
    fn copy(len: usize, tile: usize) -> Self {
        TreePass::of([(0, len, 0)].into_iter(), tile)
    }
}

/// Where the non-empty runs of `len` keys cut at `run_starts` begin, and `len`: the runs are
/// consecutive pairs of it.
fn run_bounds(run_starts: &[usize], len: usize) -> Vec<usize> {
    let mut bounds: Vec<usize> = run_starts.iter().copied().chain([len]).collect();
    bounds.dedup();
    bounds
}

/// The merge tree of the runs between consecutive `bounds` (none empty): each pass merges
/// consecutive pairs of the runs left (the last alone when they are odd), in tiles of `tile`,
/// until one run is left.
fn tree_passes(bounds: &[usize], tile: usize) -> Vec<TreePass> {
    let mut bounds = bounds.to_vec();
    let mut passes = Vec::new();
    while bounds.len() > 2 {
        let runs = bounds.len() - 1;
        let segments = (0..runs.div_ceil(2)).map(|p| {
            let (start, middle) = (bounds[2 * p], bounds[2 * p + 1]);
            let end = bounds.get(2 * p + 2).copied().unwrap_or(middle);
            (start, middle - start, end - middle)
        });
        passes.push(TreePass::of(segments, tile));
        let last = bounds[bounds.len() - 1];
        bounds = bounds.iter().copied().step_by(2).collect();
        if bounds.last() != Some(&last) {
            bounds.push(last);
        }
    }
    passes
}

/// The caller's GPU buffers for [`Gpu::encode_merge_many`]: sorted runs laid end to end in one
/// buffer, where each starts, and a temporary of the same size (as [`SortBuffers`]). The merged
/// keys (and values) end in `runs.keys` (and its values).
#[derive(Clone, Copy, Debug)]
pub struct MergeManyBuffers<'a> {
    /// The runs, one after another, with their temporaries and values: `runs.len` keys in all.
    pub runs: SortBuffers<'a>,
    /// Where each run starts in `runs.keys`, in run order: the first 0, none decreasing, none
    /// past `runs.len`; the last run ends at `runs.len`. Empty runs repeat a start.
    pub run_starts: &'a [usize],
}

/// Checks run starts against the keys they cut.
fn check_run_starts(starts: &[usize], len: usize) -> Result<(), Error> {
    let bad = |why: String| Err(Error::InvalidOptions(format!("run_starts: {why}")));
    if let Some(&first) = starts.first() {
        if first != 0 {
            return bad(format!("the first run starts at {first}, not 0"));
        }
    } else if len > 0 {
        return bad(format!("no runs for {len} keys"));
    }
    if let Some(i) = starts.windows(2).position(|w| w[1] < w[0]) {
        return bad(format!(
            "run {} starts at {}, before run {} at {}",
            i + 1,
            starts[i + 1],
            i,
            starts[i]
        ));
    }
    match starts.last() {
        Some(&last) if last > len => bad(format!("the last run starts at {last}, past {len} keys")),
        _ => Ok(()),
    }
}

/// The runs laid end to end, in a vector that may fail to allocate.
fn concatenated<'a, T: Copy + 'a>(
    runs: impl Iterator<Item = &'a [T]> + Clone,
) -> Result<Vec<T>, Error> {
    let len: usize = runs.clone().map(<[T]>::len).sum();
    let mut all = Vec::new();
    all.try_reserve_exact(len).map_err(|_| {
        Error::OutOfMemory(format!("no host memory for {len} elements of merged runs"))
    })?;
    for run in runs {
        all.extend_from_slice(run);
    }
    Ok(all)
}

/// Where each run starts when `lens` keys are laid end to end.
fn starts_of(lens: impl Iterator<Item = usize>) -> Vec<usize> {
    lens.scan(0, |start, len| {
        let this = *start;
        *start += len;
        Some(this)
    })
    .collect()
}

/// A merge tree checked against the device: merge path's plan over all the keys (its shape and
/// limits) and where the non-empty runs begin.
struct TreePlan {
    merge: MergePlan,
    bounds: Vec<usize>,
}

impl Gpu {
    /// Merges sorted `runs` (ascending) into one sorted vector, stably by run index: equal keys
    /// come in the order of their runs, and each run keeps its own order. Any number of runs,
    /// of any lengths, empty ones too. As for [`Gpu::merge`], a run that is not sorted gives an
    /// unspecified result (of the right length).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_many<K: Key>(&self, runs: &[&[K]]) -> Result<Vec<K>, Error> {
        self.merge_many_with(runs, Order::Ascending)
    }

    /// [`Gpu::merge_many`] of runs sorted in `order`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_many_with<K: Key>(&self, runs: &[&[K]], order: Order) -> Result<Vec<K>, Error> {
        self.block_on(self.merge_many_async(runs, order))
    }

    /// [`Gpu::merge_many_with`] without blocking.
    pub async fn merge_many_async<K: Key>(
        &self,
        runs: &[&[K]],
        order: Order,
    ) -> Result<Vec<K>, Error> {
        let all = concatenated(runs.iter().copied())?;
        let starts = starts_of(runs.iter().map(|run| run.len()));
        let mut merged = ResultVec::<K>::new(all.len())?;
        let written = self
            .merge_many_host(&all, None, &starts, order, &mut [merged.bytes()])
            .await?;
        Ok(merged.into_vec(written))
    }

    /// Records a merge of sorted runs held end to end in one GPU buffer (sorted in `order`),
    /// stably by run index, into `encoder`; nothing is read back. The result ends in
    /// `buffers.runs.keys` (and its values); the temporaries are overwritten. The run starts are
    /// checked (an [`Error::InvalidOptions`] names a bad one).
    pub fn encode_merge_many<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &MergeManyBuffers<'_>,
        order: Order,
    ) -> Result<(), Error> {
        let runs = &buffers.runs;
        check_run_starts(buffers.run_starts, runs.len)?;
        let bounds = run_bounds(buffers.run_starts, runs.len);
        if !tuning::merge_many_by_tree(bounds.len() - 1, true) {
            let options = SortOptions {
                order,
                ..Default::default()
            };
            return self.encode_sort::<K>(encoder, scratch, runs, &options);
        }
        self.check_lost()?;
        let value_size = check_value_size(runs.values.map_or(0, |v| v.value_size))?;
        let plan = self.plan_tree(K::TYPE, value_size, bounds, order)?;
        self.check_sort_arrays(runs, K::TYPE, value_size, None)?;
        if runs.len == 0 {
            return Ok(());
        }
        let keys = [runs.keys, runs.temp];
        let values = runs.values.map(|v| [v.values, v.temp]);
        let prepared = self.checked(|| self.prepare_tree(scratch, keys, values, &plan, true))??;
        let result = prepared.record(encoder);
        debug_assert_eq!(
            result, 0,
            "the resident merge tree ends in the caller's buffers"
        );
        Ok(())
    }

    /// [`Gpu::merge_many`] of runs of keys with a value each (4 or 8 bytes), moved with its key.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_many_pairs<K: Key, V: Pod>(
        &self,
        runs: &[(&[K], &[V])],
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.merge_many_pairs_with(runs, Order::Ascending)
    }

    /// [`Gpu::merge_many_pairs`] of runs sorted in `order`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_many_pairs_with<K: Key, V: Pod>(
        &self,
        runs: &[(&[K], &[V])],
        order: Order,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.block_on(self.merge_many_pairs_async(runs, order))
    }

    /// [`Gpu::merge_many_pairs_with`] without blocking.
    pub async fn merge_many_pairs_async<K: Key, V: Pod>(
        &self,
        runs: &[(&[K], &[V])],
        order: Order,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        for (keys, values) in runs {
            host_values(keys, values, "keys and values of a run")?;
        }
        let keys = concatenated(runs.iter().map(|&(k, _)| k))?;
        let values = concatenated(runs.iter().map(|&(_, v)| v))?;
        let starts = starts_of(runs.iter().map(|(run, _)| run.len()));
        let mut merged_keys = ResultVec::<K>::new(keys.len())?;
        let mut merged_values = ResultVec::<V>::new(keys.len())?;
        let written = self
            .merge_many_host(
                &keys,
                Some(host_values(&keys, &values, "keys and values")?),
                &starts,
                order,
                &mut [merged_keys.bytes(), merged_values.bytes()],
            )
            .await?;
        Ok((
            merged_keys.into_vec(written),
            merged_values.into_vec(written),
        ))
    }

    /// Upload, merge, read back through the host driver: the runs laid end to end go through
    /// the merge tree in one piece, or the radix sort where that is cheaper; beyond one binding
    /// the runs are merged two by two from host memory (or sorted in pieces).
    async fn merge_many_host<K: Key>(
        &self,
        keys: &[K],
        values: Option<(&[u8], u32)>,
        run_starts: &[usize],
        order: Order,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let bounds = run_bounds(run_starts, keys.len());
        if !tuning::merge_many_by_tree(bounds.len() - 1, false) {
            let options = SortOptions {
                order,
                ..Default::default()
            };
            return self.sort_host(keys, values, &options, destinations).await;
        }
        let value_size = values.map_or(0, |(_, size)| size);
        if keys.len() > self.max_merge_len(K::TYPE, value_size) {
            // Beyond one binding: the runs merged two by two from host memory, each merge in
            // pieces.
            let runs = SortedRuns {
                keys: Cow::Borrowed(keys),
                values: Cow::Borrowed(values.map_or(&[][..], |(bytes, _)| bytes)),
                value_size: value_size as usize,
                bounds,
            };
            return self.merge_sorted_runs(runs, order, destinations).await;
        }
        let plan = self.plan_tree(K::TYPE, value_size, bounds, order)?;
        if keys.is_empty() {
            return Ok(0);
        }
        let key_size = K::TYPE.size() as usize;
        let mut call = Call::one_piece(keys.len());
        call.whole_input(bytemuck::cast_slice(keys), key_size);
        call.output(key_size);
        if let Some((bytes, size)) = values {
            call.whole_input(bytes, size as usize);
            call.output(size as usize);
        }
        let mut work = TreeWork {
            plan,
            scratch: self.create_scratch(),
        };
        host::run(self, &call, &mut work, destinations, &mut |_, _| {}).await
    }

    /// Checks a merge tree of the runs between `bounds` against the device and plans it.
    fn plan_tree(
        &self,
        key: KeyType,
        value_size: u32,
        bounds: Vec<usize>,
        order: Order,
    ) -> Result<TreePlan, Error> {
        let len = bounds.last().copied().unwrap_or(0);
        let shape = tuning::merge_pass_shape(
            key.size(),
            value_size,
            len,
            self.merge_path_fits(key, value_size),
        );
        let options = MergeOptions {
            algorithm: Algorithm::MergePath,
            order,
            workgroup_size: Some(shape.0),
            items_per_thread: Some(shape.1),
            ..Default::default()
        };
        let merge = self.plan_merge(key, len, 0, value_size, &options)?;
        Ok(TreePlan { merge, bounds })
    }

    /// Every pass of a merge tree over `keys[0]` (and `values[0]`), with the second buffers as
    /// temporaries. With `end_in_place` an odd number of passes is followed by a copy pass, so
    /// that the result ends in `keys[0]`.
    fn prepare_tree(
        &self,
        scratch: &Scratch,
        keys: [&wgpu::Buffer; 2],
        values: Option<[&wgpu::Buffer; 2]>,
        plan: &TreePlan,
        end_in_place: bool,
    ) -> Result<PreparedSort, Error> {
        let len = plan.merge.params.a_len as usize;
        let tile = plan.merge.tile() as usize;
        let mut passes = tree_passes(&plan.bounds, tile);
        if end_in_place && passes.len() % 2 == 1 {
            passes.push(TreePass::copy(len, tile));
        }
        let plans = passes.iter().map(|pass| {
            let table = self.storage_init(
                "wgmerge merge tree segments",
                bytemuck::cast_slice(&pass.table),
            );
            plan.merge.over_segments(self, &table, pass.tiles)
        });
        let plans = plans.collect::<Result<Vec<_>, Error>>()?;
        let (merges, result) = self.prepare_passes(scratch, keys, values, 0, plans)?;
        Ok(PreparedSort {
            block: None,
            merges,
            result,
        })
    }
}

/// A slice-form merge tree, in one piece: the slot's input buffers are the runs' keys (and
/// values), its output buffers the temporaries, and the result is read from whichever the last
/// pass wrote.
struct TreeWork {
    plan: TreePlan,
    scratch: Scratch,
}

impl PieceWork for TreeWork {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        _piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error> {
        let keys = [&inputs[0], &outputs[0]];
        let values = (self.plan.merge.value_size > 0).then(|| [&inputs[1], &outputs[1]]);
        let prepared = gpu.prepare_tree(&self.scratch, keys, values, &self.plan, false)?;
        let result = prepared.record(encoder);
        let mut outputs = vec![keys[result]];
        outputs.extend(values.map(|v| v[result]));
        Ok(Recorded::outputs(&outputs))
    }
}

#[cfg(test)]
mod tests {
    use super::{check_run_starts, run_bounds, tree_passes, TreePass};

    #[test]
    fn empty_runs_are_dropped() {
        assert_eq!(run_bounds(&[], 0), [0]);
        assert_eq!(run_bounds(&[0, 0, 3, 3, 10], 10), [0, 3, 10]);
        assert_eq!(run_bounds(&[0, 4], 4), [0, 4]);
    }

    #[test]
    fn tree_passes_pair_runs_until_one_is_left() {
        assert!(tree_passes(&[0, 7], 4).is_empty());
        // Runs [0, 5), [5, 6), [6, 20): pairs (0, 1) then the third alone, then the two left.
        let passes = tree_passes(&[0, 5, 6, 20], 4);
        assert_eq!(
            passes,
            [
                TreePass {
                    table: vec![[2, 6, 0, 0], [0, 5, 1, 0], [6, 14, 0, 2]],
                    tiles: 6,
                },
                TreePass {
                    table: vec![[1, 5, 0, 0], [0, 6, 14, 0]],
                    tiles: 5,
                },
            ]
        );
        assert_eq!(
            TreePass::copy(9, 4),
            TreePass {
                table: vec![[1, 3, 0, 0], [0, 9, 0, 0]],
                tiles: 3,
            }
        );
        // 1000 runs take 10 passes, each covering every key once.
        let bounds: Vec<usize> = (0..=1000).map(|r| r * 3).collect();
        let passes = tree_passes(&bounds, 8);
        assert_eq!(passes.len(), 10);
        for pass in &passes {
            let covered: u32 = pass.table[1..].iter().map(|s| s[1] + s[2]).sum();
            assert_eq!(covered, 3000);
            let mut end = 0;
            for s in &pass.table[1..] {
                assert_eq!(s[0], end);
                end += s[1] + s[2];
            }
        }
    }

    #[test]
    fn run_starts_are_checked() {
        assert!(check_run_starts(&[], 0).is_ok());
        assert!(check_run_starts(&[0], 0).is_ok());
        assert!(check_run_starts(&[0, 0, 3, 3, 10], 10).is_ok());
        for (starts, len, says) in [
            (&[][..], 4, "no runs"),
            (&[1, 2][..], 4, "starts at 1, not 0"),
            (&[0, 3, 2][..], 4, "run 2 starts at 2, before run 1 at 3"),
            (&[0, 5][..], 4, "past 4 keys"),
        ] {
            let error = check_run_starts(starts, len).unwrap_err().to_string();
            assert!(error.contains(says), "{starts:?}: {error}");
        }
    }
}
