//! The key filter (`difference_by_key.wgsl`): every element of A whose key occurs nowhere in
//! the sorted B. `difference_by_key_mark` flags them with a binary search of B each, and
//! compaction (compact.rs) keeps them: one submission; the count comes back with the keys.

use bytemuck::{Pod, Zeroable};

use crate::compact::{KeptValueBuffers, WORKGROUP_SIZE};
use crate::device::{bind_elements, dispatch};
use crate::host::{self, ResultVec};
use crate::key::{Key, KeyType, Order};
use crate::merge::{check_value_size, host_values};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scratch::Scratch;
use crate::{Error, Gpu};

/// `difference_by_key_mark` in difference_by_key.wgsl.
pub(crate) static DIFFERENCE_BY_KEY_MARK: Kernel = Kernel {
    file: "difference_by_key",
    entry: "difference_by_key_mark",
    bindings: &[(0, UNIFORM), (1, READ), (2, READ), (3, WRITE)],
    value_bindings: &[],
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

/// `FilterParams` in difference_by_key.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct FilterParams {
    a_len: u32,
    b_len: u32,
}

fn specialization(key: KeyType, order: Order) -> Specialization {
    Specialization {
        params: vec![("key", key.module())],
        constants: vec![("DESCENDING", u32::from(order == Order::Descending))],
        with_values: false,
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
        let values = buffers.values.map(|v| [v.values, v.out]);
        self.checked(|| {
            self.record_select(
                encoder,
                scratch,
                &[(buffers.a, m), (buffers.b, n)],
                buffers.out,
                values,
                buffers.count,
                (K::TYPE, value_size),
                &mut |encoder, scratch, inputs, flags| {
                    self.record_filter_flags(encoder, scratch, inputs, flags, (K::TYPE, order))
                },
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
        self.check_storage_buffers(&crate::compact::COMPACT, value_size > 0)?;
        self.check_storage_buffers(&crate::scan::SCAN, false)
    }

    /// Records the filter's flags: 1 for each key of `inputs[0]` (A) found nowhere in
    /// `inputs[1]` (B).
    fn record_filter_flags(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        inputs: &[(&wgpu::Buffer, usize)],
        flags: &wgpu::Buffer,
        (key, order): (KeyType, Order),
    ) -> Result<(), Error> {
        let [(a, m), (b, n)] = [inputs[0], inputs[1]];
        let placeholder = scratch.placeholder();
        let params = self.uniform(
            "wgmerge filter params",
            bytemuck::bytes_of(&FilterParams {
                a_len: m as u32,
                b_len: n as u32,
            }),
        );
        let key_size = key.size();
        let mark = self.bind_group(
            &DIFFERENCE_BY_KEY_MARK,
            false,
            &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: bind_elements(a, 0, m, key_size, placeholder),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: bind_elements(b, 0, n, key_size, placeholder),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: bind_elements(flags, 0, m, 4, placeholder),
                },
            ],
        );
        let pipeline = self.pipeline(&DIFFERENCE_BY_KEY_MARK, &specialization(key, order))?;
        let groups = self.dispatch_shape(m.div_ceil(WORKGROUP_SIZE) as u32)?;
        dispatch(encoder, "difference_by_key_mark", &pipeline, &mark, groups);
        Ok(())
    }

    /// Upload, filter, read back what was kept, through the host driver, in one piece.
    async fn difference_by_key_host<K: Key>(
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
        let mark = &mut |encoder: &mut wgpu::CommandEncoder,
                         scratch: &Scratch,
                         inputs: &[(&wgpu::Buffer, usize)],
                         flags: &wgpu::Buffer| {
            self.record_filter_flags(encoder, scratch, inputs, flags, (K::TYPE, order))
        };
        self.select_host(a, Some(b), values, destinations, mark)
            .await
    }
}

/// Every configuration of the filter's kernel, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for key in KeyType::ALL {
        for order in [Order::Ascending, Order::Descending] {
            out.push(crate::kernel_tests::Configuration {
                kernel: &DIFFERENCE_BY_KEY_MARK,
                specialization: specialization(key, order),
                workgroup_memory: 0,
            });
        }
    }
    out
}
