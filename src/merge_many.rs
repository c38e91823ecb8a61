//! Many-way merge of sorted runs. A stable sort of the runs laid end to end gives exactly the
//! stable merge by run index (equal keys keep their run's order, then their order in the run),
//! so for now the runs go through the radix sort: linear work for any number of runs, of any
//! lengths. A k-way merge-path kernel, which would read the keys fewer times, is to come
//! (issue 21).

use bytemuck::Pod;

use crate::key::{Key, Order};
use crate::merge::host_values;
use crate::scratch::Scratch;
use crate::sort::{SortBuffers, SortOptions};
use crate::{Error, Gpu};

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

impl Gpu {
    /// Merges sorted `runs` (ascending) into one sorted vector, stably by run index: equal keys
    /// come in the order of their runs, and each run keeps its own order. Any number of runs,
    /// of any lengths, empty ones too. If a run is not sorted the result is still sorted, but
    /// which equal key comes first is unspecified.
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
        let options = SortOptions {
            order,
            ..Default::default()
        };
        self.sort_async(&all, &options).await
    }

    /// Records a merge of sorted runs held end to end in one GPU buffer (sorted in `order`),
    /// stably by run index, into `encoder`; nothing is read back. The result ends in
    /// `buffers.runs.keys` (and its values); the temporaries are overwritten. Today this is the
    /// radix sort of the buffer ([`Gpu::encode_sort`]), which gives exactly that merge; the run
    /// starts are checked (an [`Error::InvalidOptions`] names a bad one) for the k-way kernel to
    /// come.
    pub fn encode_merge_many<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &MergeManyBuffers<'_>,
        order: Order,
    ) -> Result<(), Error> {
        check_run_starts(buffers.run_starts, buffers.runs.len)?;
        let options = SortOptions {
            order,
            ..Default::default()
        };
        self.encode_sort::<K>(encoder, scratch, &buffers.runs, &options)
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
        let options = SortOptions {
            order,
            ..Default::default()
        };
        self.sort_pairs_async(&keys, &values, &options).await
    }
}

#[cfg(test)]
mod tests {
    use super::check_run_starts;

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
