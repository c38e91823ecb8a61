//! Many-way merge of sorted runs. A stable sort of the runs laid end to end gives exactly the
//! stable merge by run index (equal keys keep their run's order, then their order in the run),
//! so for now the runs go through the radix sort: linear work for any number of runs, of any
//! lengths. A k-way merge-path kernel, which would read the keys fewer times, is to come
//! (issue 21).

use bytemuck::Pod;

use crate::key::{Key, Order};
use crate::merge::host_values;
use crate::sort::SortOptions;
use crate::{Error, Gpu};

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
