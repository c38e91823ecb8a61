//! Dedup (`dedup.wgsl`): the first (or last) of each run of consecutive equal keys, and their
//! values. `dedup_mark` flags the keys that stay and compaction (compact.rs) keeps them: one
//! submission; the count comes back with the keys.

use bytemuck::{Pod, Zeroable};

use crate::compact::{KeptValueBuffers, WORKGROUP_SIZE};
use crate::device::{bind_elements, dispatch};
use crate::host::{self, ResultVec};
use crate::key::{Key, KeyType};
use crate::merge::{check_value_size, host_values};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::scratch::Scratch;
use crate::{Error, Gpu};

/// `dedup_mark` in dedup.wgsl.
pub(crate) static DEDUP_MARK: Kernel = Kernel {
    file: "dedup",
    entry: "dedup_mark",
    bindings: &[(0, UNIFORM), (1, READ), (3, WRITE)],
    value_bindings: &[],
};

/// Which key of each run of equal keys [`Gpu::dedup_with`] keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Keep {
    /// The first, as `Vec::dedup`.
    #[default]
    First,
    /// The last (the newest version, where later entries replace earlier ones).
    Last,
}

/// How to dedup. A plain struct: set the fields you need and take the rest from `Default`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DedupOptions {
    /// Which key of each run stays.
    pub keep: Keep,
}

/// The caller's GPU buffers for [`Gpu::encode_dedup`]: `len` keys of the [`Key`] type the call
/// names in `keys`; the kept keys go to `out` (room for `len`), their number to the first word
/// of `count`. Every buffer needs `STORAGE` and must be a buffer of its own.
#[derive(Clone, Copy, Debug)]
pub struct DedupBuffers<'a> {
    /// The keys.
    pub keys: &'a wgpu::Buffer,
    /// Keys to dedup.
    pub len: usize,
    /// Receives the kept keys.
    pub out: &'a wgpu::Buffer,
    /// Receives the number of kept keys as a `u32` at offset 0.
    pub count: &'a wgpu::Buffer,
    /// Values moved with the keys, if any.
    pub values: Option<KeptValueBuffers<'a>>,
}

/// `DedupParams` in dedup.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct DedupParams {
    len: u32,
}

fn specialization(key: KeyType, keep: Keep) -> Specialization {
    Specialization {
        params: vec![("key", key.module())],
        constants: vec![("KEEP_LAST", u32::from(keep == Keep::Last))],
        with_values: false,
    }
}

impl Gpu {
    /// `keys` with each run of consecutive equal keys cut to its first key, as `Vec::dedup`
    /// does (on sorted keys: each distinct key once). Keys are equal when neither comes before
    /// the other (`f32` by `total_cmp`).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn dedup<K: Key>(&self, keys: &[K]) -> Result<Vec<K>, Error> {
        self.dedup_with(keys, &DedupOptions::default())
    }

    /// [`Gpu::dedup`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn dedup_with<K: Key>(&self, keys: &[K], options: &DedupOptions) -> Result<Vec<K>, Error> {
        self.block_on(self.dedup_async(keys, options))
    }

    /// [`Gpu::dedup_with`] without blocking.
    pub async fn dedup_async<K: Key>(
        &self,
        keys: &[K],
        options: &DedupOptions,
    ) -> Result<Vec<K>, Error> {
        let mut kept = ResultVec::<K>::new(keys.len())?;
        let count = self
            .dedup_host(keys, None, options, &mut [kept.bytes()])
            .await?;
        Ok(kept.into_vec(count))
    }

    /// [`Gpu::dedup`] of keys with a value each: every kept key keeps its own value. Values are
    /// 4 or 8 bytes, one per key.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn dedup_pairs<K: Key, V: Pod>(
        &self,
        keys: &[K],
        values: &[V],
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.dedup_pairs_with(keys, values, &DedupOptions::default())
    }

    /// [`Gpu::dedup_pairs`] with `options`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn dedup_pairs_with<K: Key, V: Pod>(
        &self,
        keys: &[K],
        values: &[V],
        options: &DedupOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        self.block_on(self.dedup_pairs_async(keys, values, options))
    }

    /// [`Gpu::dedup_pairs_with`] without blocking.
    pub async fn dedup_pairs_async<K: Key, V: Pod>(
        &self,
        keys: &[K],
        values: &[V],
        options: &DedupOptions,
    ) -> Result<(Vec<K>, Vec<V>), Error> {
        let values = host_values(keys, values, "keys and values")?;
        let mut kept_keys = ResultVec::<K>::new(keys.len())?;
        let mut kept_values = ResultVec::<V>::new(keys.len())?;
        let count = self
            .dedup_host(
                keys,
                Some(values),
                options,
                &mut [kept_keys.bytes(), kept_values.bytes()],
            )
            .await?;
        Ok((kept_keys.into_vec(count), kept_values.into_vec(count)))
    }

    /// Records a dedup of GPU-resident `buffers` into `encoder`; nothing is read back. The input
    /// must fit one storage binding ([`Gpu::max_merge_len`]).
    pub fn encode_dedup<K: Key>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        buffers: &DedupBuffers<'_>,
        options: &DedupOptions,
    ) -> Result<(), Error> {
        self.check_lost()?;
        let value_size = check_value_size(buffers.values.map_or(0, |v| v.value_size))?;
        self.plan_dedup(K::TYPE, buffers.len, value_size)?;
        let (len, key_size) = (buffers.len, K::TYPE.size());
        let mut arrays = vec![
            ("keys", buffers.keys, len, key_size, false),
            ("out", buffers.out, len, key_size, true),
            ("count", buffers.count, 1, 4, true),
        ];
        if let Some(values) = &buffers.values {
            arrays.push(("values", values.values, len, value_size, false));
            arrays.push(("values out", values.out, len, value_size, true));
        }
        self.check_arrays(&arrays)?;
        let values = buffers.values.map(|v| [v.values, v.out]);
        let specialization = specialization(K::TYPE, options.keep);
        self.checked(|| {
            self.record_select(
                encoder,
                scratch,
                &[(buffers.keys, len)],
                buffers.out,
                values,
                buffers.count,
                (K::TYPE, value_size),
                &mut |encoder, scratch, inputs, flags| {
                    let which = (K::TYPE, &specialization);
                    self.record_dedup_flags(encoder, scratch, inputs[0], flags, which)
                },
            )
        })?
    }

    /// Checks a dedup's length and the device.
    fn plan_dedup(&self, key: KeyType, len: usize, value_size: u32) -> Result<(), Error> {
        let max = self.max_merge_len(key, value_size);
        if len > max {
            return Err(Error::TooLarge {
                what: "dedup input",
                len,
                max,
            });
        }
        self.check_storage_buffers(&crate::compact::COMPACT, value_size > 0)?;
        self.check_storage_buffers(&crate::scan::SCAN, false)
    }

    /// Records dedup's flags of `len` keys of `keys` into `flags`.
    fn record_dedup_flags(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scratch: &Scratch,
        (keys, len): (&wgpu::Buffer, usize),
        flags: &wgpu::Buffer,
        (key, specialization): (KeyType, &Specialization),
    ) -> Result<(), Error> {
        let placeholder = scratch.placeholder();
        let params = self.uniform(
            "wgmerge dedup params",
            bytemuck::bytes_of(&DedupParams { len: len as u32 }),
        );
        let mark = self.bind_group(
            &DEDUP_MARK,
            false,
            &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: bind_elements(keys, 0, len, key.size(), placeholder),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: bind_elements(flags, 0, len, 4, placeholder),
                },
            ],
        );
        let pipeline = self.pipeline(&DEDUP_MARK, specialization)?;
        let groups = self.dispatch_shape(len.div_ceil(WORKGROUP_SIZE) as u32)?;
        dispatch(encoder, "dedup_mark", &pipeline, &mark, groups);
        Ok(())
    }

    /// Upload, dedup, read back what was kept, through the host driver, in one piece.
    async fn dedup_host<K: Key>(
        &self,
        keys: &[K],
        values: Option<(&[u8], u32)>,
        options: &DedupOptions,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        self.check_lost()?;
        let value_size = values.map_or(0, |(_, size)| size);
        self.plan_dedup(K::TYPE, keys.len(), value_size)?;
        let specialization = specialization(K::TYPE, options.keep);
        let mark = &mut |encoder: &mut wgpu::CommandEncoder,
                         scratch: &Scratch,
                         inputs: &[(&wgpu::Buffer, usize)],
                         flags: &wgpu::Buffer| {
            let which = (K::TYPE, &specialization);
            self.record_dedup_flags(encoder, scratch, inputs[0], flags, which)
        };
        self.select_host(keys, None, values, destinations, mark)
            .await
    }
}

/// Every configuration of the dedup kernel, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for key in KeyType::ALL {
        for keep in [Keep::First, Keep::Last] {
            out.push(crate::kernel_tests::Configuration {
                kernel: &DEDUP_MARK,
                specialization: specialization(key, keep),
                workgroup_memory: 0,
            });
        }
    }
    out
}
