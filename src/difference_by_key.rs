//! The key filter (`difference_by_key.wgsl`): every element of A whose key occurs nowhere in
//! the sorted B, found by a binary search of B each and selected in one pass (select.rs); the
//! count comes back with the keys.

use bytemuck::Pod;

use crate::host::{self, element_sizes, outputs_at, piece_ranges, values_at, ResultVec};
use crate::key::{Key, KeyType, Order};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scratch::Scratch;
use crate::select::{self, KeptValueBuffers, Selection};
use crate::values::{check_value_size, host_values};
use crate::{Error, Gpu};

/// `difference_by_key` in difference_by_key.wgsl: a selection's bindings and B at 6.
pub(crate) static DIFFERENCE_BY_KEY: Kernel = Kernel {
    file: "difference_by_key",
    entry: "difference_by_key",
    bindings: &[
        (0, UNIFORM),
        (1, READ),
        (2, WRITE),
        (3, WRITE),
        (6, READ),
        (7, WRITE),
    ],
    value_bindings: select::VALUE_BINDINGS,
};

/// The caller's GPU buffers for [`Gpu::encode_difference_by_key`]: keys of the [`Key`] type the
/// call names, from offset 0. The elements of A kept go to `out` (room for `a_len`), their
/// number to the first word of `count`. Every buffer needs `STORAGE`, and each written one must
/// be a buffer of its own.
#[derive(Clone, Copy, Debug)]
pub struct FilterBuffers<'a> {
    /// The keys filtered.
    pub a: &'a wgpu::Buffer,
    /// Keys in `a`.
    pub a_len: usize,
    /// The sorted keys to drop.
    pub b: &'a wgpu::Buffer,
    /// Keys in `b`.
    pub b_len: usize,
    /// Receives A's kept keys.
    pub out: &'a wgpu::Buffer,
    /// Receives the number kept as a `u32` at offset 0.
    pub count: &'a wgpu::Buffer,
    /// A's values, moved with its kept keys, if any.
    pub values: Option<KeptValueBuffers<'a>>,
}

/// The filter's part of its kernel's specialization.
fn specialization(order: Order) -> Specialization {
    Specialization {
        params: Vec::new(),
        constants: vec![("DESCENDING", u32::from(order == Order::Descending))],
        with_values: false,
    }
}

/// What a B longer than a binding filters next: A itself, or what its earlier chunks kept of A
/// (keys, and value bytes of the values' size).
fn kept_of<'a, K>(
    kept: &'a Option<(Vec<K>, Vec<u8>)>,
    a: &'a [K],
    values: Option<(&'a [u8], u32)>,
) -> (&'a [K], Option<(&'a [u8], u32)>) {
    match kept {
        Some((keys, bytes)) => (keys, values.map(|(_, size)| (&bytes[..], size))),
        None => (a, values),
    }
}

impl Gpu {
    /// The elements of `a` whose key occurs nowhere in the sorted `b` (ascending), in A's order:
    /// a tombstone filter, where the multiset [`SetOperation::Difference`](crate::SetOperation)
    /// would drop only as many copies as B has. `a` need not be sorted. If `b` is not sorted the
    /// result is unspecified, but no longer than `a`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn difference_by_key<K: Key>(&self, a: &[K], b: &[K]) -> Result<Vec<K>, Error> {
        self.difference_by_key_with(a, b, Order::Ascending)
    }

    /// [`Gpu::difference_by_key`] with `b` sorted in `order`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn difference_by_key_with<K: Key>(
        &self,
        a: &[K],
        b: &[K],
        order: Order,
    ) -> Result<Vec<K>, Error> {
        self.block_on(self.difference_by_key_async(a, b, order))
    }

    /// [`Gpu::difference_by_key_with`] without blocking.
    pub async fn difference_by_key_async<K: Key>(
        &self,
        a: &[K],
        b: &[K],
        order: Order,
    ) -> Result<Vec<K>, Error> {
        let mut kept = ResultVec::<K>::new(a.len())?;
        let count = self
            .difference_by_key_host(a, None, b, order, &mut [kept.bytes()])
            .await?;
        Ok(kept.into_vec(count))
    }

    /// [`Gpu::difference_by_key`] of keys with a value each: every kept key keeps its own value.
    /// Values are 4 or 8 bytes, one per key of `a`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn difference_by_key_pairs<K: Key, V: Pod>(
        &self,
        a_keys: &[K],
        a_values: &[V],
        b: &[K],
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.difference_by_key_pairs_with(a_keys, a_values, b, Order::Ascending)
    }

    /// [`Gpu::difference_by_key_pairs`] with `b` sorted in `order`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn difference_by_key_pairs_with<K: Key, V: Pod>(
        &self,
        a_keys: &[K],
        a_values: &[V],
        b: &[K],
        order: Order,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.block_on(self.difference_by_key_pairs_async(a_keys, a_values, b, order))
    }

    /// [`Gpu::difference_by_key_pairs_with`] without blocking.
    pub async fn difference_by_key_pairs_async<K: Key, V: Pod>(
        &self,
        a_keys: &[K],
        a_values: &[V],
        b: &[K],
        order: Order,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        let values = host_values(a_keys, a_values, "keys and values of A")?;
        let mut kept_keys = ResultVec::<K>::new(a_keys.len())?;
        let mut kept_values = ResultVec::<V>::new(a_keys.len())?;
        let count = self
            .difference_by_key_host(
                a_keys,
                Some(values),
                b,
                order,
                &mut [kept_keys.bytes(), kept_values.bytes()],
            )
            .await?;
        Ok((kept_keys.into_vec(count), kept_values.into_vec(count)))
    }

    /// Records the key filter of GPU-resident `buffers` into `encoder`; nothing is read back.
    /// A and B must each fit one storage binding.
    pub fn encode_difference_by_key<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &FilterBuffers<'_>,
        order: Order,
    ) -> Result<(), Error> {
        self.check_lost()?;
        let value_size = check_value_size(buffers.values.map_or(0, |v| v.value_size))?;
        let (m, n) = (buffers.a_len, buffers.b_len);
        self.plan_filter(K::TYPE, (m, n), value_size)?;
        let key_size = K::TYPE.size();
        let mut arrays = vec![
            ("a", buffers.a, m, key_size, false),
            ("b", buffers.b, n, key_size, false),
            ("out", buffers.out, m, key_size, true),
            ("count", buffers.count, 1, 4, true),
        ];
        if let Some(values) = &buffers.values {
            arrays.push(("values", values.values, m, value_size, false));
            arrays.push(("values out", values.out, m, value_size, true));
        }
        self.check_arrays(&arrays)?;
        let selection = Selection {
            keys: (buffers.a, m),
            other: Some((buffers.b, n)),
            out: buffers.out,
            values: buffers.values.map(|v| [v.values, v.out]),
            count: buffers.count,
        };
        let op = specialization(order);
        let config = self.select_config();
        self.checked(|| {
            self.record_selection(
                encoder,
                scratch,
                (&DIFFERENCE_BY_KEY, &op, config),
                &selection,
                (K::TYPE, value_size),
            )
        })?
    }

    /// Checks a filter's lengths against the device.
    fn plan_filter(
        &self,
        key: KeyType,
        (m, n): (usize, usize),
        value_size: u32,
    ) -> Result<(), Error> {
        let max = self.max_merge_len(key, value_size);
        for (what, len) in [("filtered keys", m), ("keys to drop", n)] {
            if len > max {
                return Err(Error::TooLarge { what, len, max });
            }
        }
        self.check_select(&DIFFERENCE_BY_KEY, key, value_size > 0)
    }

    /// Upload, filter, read back what was kept, through the host driver: in one piece where A
    /// and B each fit one binding. Beyond, A goes in pieces, each filtered against B and its
    /// kept elements written after the last piece's; and a B longer than a binding is taken in
    /// chunks, A filtered by each in turn (an element is kept when no chunk holds its key), the
    /// passes before the last into host memory of A's size.
    async fn difference_by_key_host<K: Key>(
        &self,
        a: &[K],
        values: Option<(&[u8], u32)>,
        b: &[K],
        order: Order,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let value_size = values.map_or(0, |(_, size)| size);
        let most = self.max_merge_len(K::TYPE, value_size);
        if a.len() <= most && b.len() <= most {
            return self.filter_piece(a, values, b, order, destinations).await;
        }
        let chunks: Vec<&[K]> = b.chunks(most).collect();
        let Some((last, earlier)) = chunks.split_last() else {
            // B is empty: every element of A is kept.
            return self
                .filter_in_pieces(a, values, &[], order, most, destinations)
                .await;
        };
        let mut kept: Option<(Vec<K>, Vec<u8>)> = None;
        for chunk in earlier {
            let (from, from_values) = kept_of(&kept, a, values);
            let mut next_keys = ResultVec::<K>::new(from.len())?;
            let mut next_values = ResultVec::<u8>::new(from.len() * value_size as usize)?;
            let written = {
                let mut outputs = [next_keys.bytes(), next_values.bytes()];
                let outputs = &mut outputs[..if values.is_some() { 2 } else { 1 }];
                self.filter_in_pieces(from, from_values, chunk, order, most, outputs)
                    .await?
            };
            kept = Some((
                next_keys.into_vec(written),
                next_values.into_vec(written * value_size as usize),
            ));
        }
        let (from, from_values) = kept_of(&kept, a, values);
        self.filter_in_pieces(from, from_values, last, order, most, destinations)
            .await
    }

    /// The filter of `a` against `b` (which fits one binding) in pieces of A of at most `most`,
    /// each piece's kept elements written after the last's.
    async fn filter_in_pieces<K: Key>(
        &self,
        a: &[K],
        values: Option<(&[u8], u32)>,
        b: &[K],
        order: Order,
        most: usize,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let sizes = element_sizes(K::TYPE, values.map_or(0, |(_, size)| size as usize));
        let mut written = 0;
        for range in piece_ranges(a.len(), most) {
            let piece_values = values_at(values, &range);
            written += self
                .filter_piece(
                    &a[range.clone()],
                    piece_values,
                    b,
                    order,
                    &mut outputs_at(destinations, &sizes, &(written..written + range.len())),
                )
                .await?;
        }
        Ok(written)
    }

    /// Upload, filter, read back what was kept, through the host driver, in one piece.
    async fn filter_piece<K: Key>(
        &self,
        a: &[K],
        values: Option<(&[u8], u32)>,
        b: &[K],
        order: Order,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        self.check_lost()?;
        let value_size = values.map_or(0, |(_, size)| size);
        self.plan_filter(K::TYPE, (a.len(), b.len()), value_size)?;
        let op = specialization(order);
        let kernel = (&DIFFERENCE_BY_KEY, &op);
        self.select_host(kernel, a, Some(b), values, destinations)
            .await
    }
}

/// Every configuration of the filter's kernel, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let ops = [Order::Ascending, Order::Descending].map(specialization);
    select::configurations(&DIFFERENCE_BY_KEY, &ops)
}
