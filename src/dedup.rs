//! Dedup (`dedup.wgsl`): the first (or last) of each run of consecutive equal keys, and their
//! values, selected in one pass (select.rs); the count comes back with the keys.

use bytemuck::Pod;

use crate::host::{self, element_sizes, outputs_at, piece_ranges, values_at, ResultVec};
use crate::key::{Key, KeyType, Order};
use crate::pipeline::{Kernel, Specialization};
use crate::scratch::Scratch;
use crate::select::{self, KeptValueBuffers, Selection};
use crate::values::{check_value_size, host_values};
use crate::{cpu, Error, Gpu};

/// `dedup` in dedup.wgsl.
pub(crate) static DEDUP: Kernel = Kernel {
    file: "dedup",
    entry: "dedup",
    bindings: select::BINDINGS,
    value_bindings: select::VALUE_BINDINGS,
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
    /// Slice forms: the most keys one piece may hold. A longer input is deduped piece by piece
    /// and the pieces' results joined where a run of equal keys crosses from one piece into the
    /// next, so the result is the same. `None`: pieces of at most one storage binding
    /// ([`Gpu::max_merge_len`]).
    pub max_piece_len: Option<usize>,
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

/// Dedup's part of its kernel's specialization.
fn specialization(keep: Keep) -> Specialization {
    Specialization {
        params: Vec::new(),
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
        let selection = Selection {
            keys: (buffers.keys, len),
            other: None,
            out: buffers.out,
            values: buffers.values.map(|v| [v.values, v.out]),
            count: buffers.count,
        };
        let op = specialization(options.keep);
        let config = self.select_config();
        self.checked(|| {
            self.record_selection(
                encoder,
                scratch,
                (&DEDUP, &op, config),
                &selection,
                (K::TYPE, value_size),
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
        self.check_select(&DEDUP, key, value_size > 0)
    }

    /// Upload, dedup, read back what was kept, through the host driver: in one piece where the
    /// input fits one (`max_piece_len`, at most one storage binding), else piece by piece, each
    /// piece's kept keys written after the last's. Where a piece's first key equals the key
    /// before it, a run crosses the cut and the piece's own dedup kept one key too many: with
    /// [`Keep::First`] the piece's first (its run began in the piece before), with
    /// [`Keep::Last`] the piece before's last (its run goes on here), which this piece's keys
    /// then overwrite.
    async fn dedup_host<K: Key>(
        &self,
        keys: &[K],
        values: Option<(&[u8], u32)>,
        options: &DedupOptions,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        let value_size = values.map_or(0, |(_, size)| size);
        let most = host::piece_len(
            options.max_piece_len,
            self.max_merge_len(K::TYPE, value_size),
        )?;
        if keys.len() <= most {
            return self.dedup_piece(keys, values, options, destinations).await;
        }
        let sizes = element_sizes(K::TYPE, value_size as usize);
        let same = |x: &K, y: &K| cpu::compare(x, y, Order::Ascending).is_eq();
        let mut written = 0usize;
        for range in piece_ranges(keys.len(), most) {
            let start = range.start;
            let crossed = start > 0 && same(&keys[start - 1], &keys[start]);
            let at = if crossed && options.keep == Keep::Last {
                // The piece before kept at least its last key.
                written.saturating_sub(1)
            } else {
                written
            };
            let piece_values = values_at(values, &range);
            let kept = self
                .dedup_piece(
                    &keys[range.clone()],
                    piece_values,
                    options,
                    &mut outputs_at(destinations, &sizes, &(at..at + range.len())),
                )
                .await?;
            written = at + kept;
            if crossed && options.keep == Keep::First && kept > 0 {
                for (output, &size) in destinations.iter_mut().zip(&sizes) {
                    output.copy_within((at + 1) * size..written * size, at * size);
                }
                written -= 1;
            }
        }
        Ok(written)
    }

    /// Upload, dedup, read back what was kept, through the host driver, in one piece.
    async fn dedup_piece<K: Key>(
        &self,
        keys: &[K],
        values: Option<(&[u8], u32)>,
        options: &DedupOptions,
        destinations: host::Destinations<'_, '_>,
    ) -> Result<usize, Error> {
        self.check_lost()?;
        let value_size = values.map_or(0, |(_, size)| size);
        self.plan_dedup(K::TYPE, keys.len(), value_size)?;
        let op = specialization(options.keep);
        self.select_host((&DEDUP, &op), keys, None, values, destinations)
            .await
    }
}

/// Every configuration of the dedup kernel, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    select::configurations(
        &DEDUP,
        &[specialization(Keep::First), specialization(Keep::Last)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::{keys_as_vec4, SelectConfig};
    use crate::test_buffers::{submit_and_read, upload};

    /// The selection's decoupled fallback with no patience: every tile whose look-back does not
    /// end at once counts its predecessors' kept keys from their input. Dedup, with values, must
    /// not change, with and without subgroups, the keys bound one an element and as vec4s.
    #[test]
    fn fallback_gives_the_same_selection() {
        let gpu = Gpu::new().expect("an adapter (lavapipe in CI)");
        let len = 300_007;
        let keys: Vec<u32> = (0..len as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 28) + i / 5)
            .collect();
        let index: Vec<u32> = (0..len as u32).collect();
        let (want_keys, want_index) = cpu::dedup_pairs(&keys, &index, false);
        let upload = |words: &[u32]| upload(&gpu, words);
        // The keys bound one an element, and (the buffer padded to whole vec4s) four at once.
        let padded: Vec<u32> = keys.iter().copied().chain([0; 3]).collect();
        let values_in = upload(&index);
        let (keys_out, values_out, count) = (upload(&index), upload(&index), upload(&[7]));
        let scratch = gpu.create_scratch();
        let mut layouts = Vec::new();
        for (subgroups, keys_in) in [false, gpu.has_subgroups()]
            .into_iter()
            .flat_map(|subgroups| [(subgroups, upload(&keys)), (subgroups, upload(&padded))])
        {
            let vec4 = keys_as_vec4(KeyType::U32, &keys_in, len, gpu.max_binding_bytes());
            layouts.push(vec4);
            let config = SelectConfig::impatient(subgroups);
            let op = specialization(Keep::First);
            let selection = Selection {
                keys: (&keys_in, len),
                other: None,
                out: &keys_out,
                values: Some([&values_in, &values_out]),
                count: &count,
            };
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            let kernel = (&DEDUP, &op, config);
            gpu.record_selection(
                &mut encoder,
                &scratch,
                kernel,
                &selection,
                (KeyType::U32, 4),
            )
            .expect("recorded");
            let parts = [(&keys_out, 0, len), (&values_out, 0, len), (&count, 0, 1)];
            let got = submit_and_read(&gpu, encoder, &parts);
            let kept = got[2 * len] as usize;
            assert_eq!(
                kept,
                want_keys.len(),
                "subgroups {subgroups}, vec4 {vec4}: count"
            );
            assert!(
                got[..kept] == want_keys[..],
                "subgroups {subgroups}, vec4 {vec4}: keys"
            );
            assert!(
                got[len..len + kept] == want_index[..],
                "subgroups {subgroups}, vec4 {vec4}: values"
            );
        }
        assert!(layouts.contains(&false) && layouts.contains(&true));
    }
}
