//! Merges of GPU-resident buffers of any length the device can hold, also beyond one storage
//! binding: the output is cut into pieces that fit one, the cut points are co-ranked by a search
//! that reads a few keys back per step, and each piece's runs of A and B are copied into buffers
//! of one binding, merged, and copied into place in the output.
//!
//! The cut points are data, known only after the search, so this cannot be recorded into a
//! caller's encoder ahead of time as [`Gpu::encode_merge`] is; it submits and waits.

use crate::merge::{MergeBuffers, MergeOptions, ValueBuffers};
use crate::{Error, Gpu, Key, Order};

/// Probes each co-rank search reads back per round trip: a round cuts the search's interval by
/// this plus one, so 2^30 candidates take 6 rounds.
const PROBES: usize = 31;

impl Gpu {
    /// Merges the GPU-resident `buffers` and waits for the GPU: [`Gpu::encode_merge`] and a
    /// submission where the merge fits one storage binding ([`Gpu::max_merge_len`], or
    /// `options.max_piece_len`), pieces that fit one otherwise. Pieces need `COPY_SRC` on the
    /// inputs (keys and values) and `COPY_DST` on the outputs besides `STORAGE`, and as much
    /// GPU memory again as one piece of each array. `options.validate` is refused, as by
    /// [`Gpu::encode_merge`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_resident<K: Key>(
        &self,
        buffers: &MergeBuffers<'_>,
        options: &MergeOptions,
    ) -> Result<(), Error> {
        pollster::block_on(self.merge_resident_async::<K>(buffers, options))
    }

    /// [`Gpu::merge_resident`], for async callers (and the web).
    pub async fn merge_resident_async<K: Key>(
        &self,
        buffers: &MergeBuffers<'_>,
        options: &MergeOptions,
    ) -> Result<(), Error> {
        let value_size = self.check_resident_merge(buffers, options)?;
        // Check the options (and that the device can run this merge at all) before any work.
        self.plan_merge(K::TYPE, 0, 0, value_size, options)?;
        let key_size = K::TYPE.size();
        let total = buffers.a_len + buffers.b_len;
        let arrays = buffers.arrays(key_size);
        buffers.check(key_size)?;
        let piece_len = options.piece_len(self.max_merge_len(K::TYPE, value_size))?;
        if total <= piece_len {
            let scratch = self.create_scratch();
            self.scoped(|| {
                let mut encoder = self.device.create_command_encoder(&Default::default());
                self.encode_merge::<K>(&mut encoder, &scratch, buffers, options)?;
                self.queue.submit([encoder.finish()]);
                Ok::<_, Error>(())
            })
            .await??;
            return self.wait();
        }

        for &(name, buffer, len, _, input) in &arrays {
            let needed = if input {
                wgpu::BufferUsages::COPY_SRC
            } else {
                wgpu::BufferUsages::COPY_DST
            };
            if len > 0 && !buffer.usage().contains(needed) {
                return Err(Error::MissingUsage {
                    buffer: name,
                    needed,
                });
            }
        }
        let pieces = total.div_ceil(piece_len);
        let cuts: Vec<usize> = (1..pieces).map(|p| p * piece_len).collect();
        let mut splits = self
            .co_rank_resident::<K>(buffers, &cuts, options.order)
            .await?;
        splits.push(buffers.a_len);

        // One binding's worth of each array, reused by every piece.
        let room = [buffers.a_len, buffers.b_len, total].map(|len| len.min(piece_len));
        let (pieces_keys, pieces_values, scratch) = self
            .scoped(|| {
                let make = |label, len: usize, size: u32| {
                    self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(label),
                        // An empty input is bound to the placeholder; give it a valid buffer.
                        size: (len as u64 * u64::from(size)).max(8),
                        usage: wgpu::BufferUsages::STORAGE
                            | wgpu::BufferUsages::COPY_SRC
                            | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                };
                let labels = ["wgmerge piece a", "wgmerge piece b", "wgmerge piece out"];
                let keys = [0, 1, 2].map(|i| make(labels[i], room[i], key_size));
                let values = buffers
                    .values
                    .map(|_| [0, 1, 2].map(|i| make(labels[i], room[i], value_size)));
                (keys, values, self.create_scratch())
            })
            .await?;

        let (mut i0, mut k0) = (0, 0);
        for (piece, &split) in splits.iter().enumerate() {
            let k1 = if piece + 1 == pieces {
                total
            } else {
                k0 + piece_len
            };
            let j0 = k0 - i0;
            // Clamped so that unsorted input (where co-rank need not grow with rank) still
            // gives pieces that cover each input exactly once.
            let i1 = split.clamp(i0, i0 + (k1 - k0));
            let j1 = k1 - i1;
            let (a_len, b_len) = (i1 - i0, j1 - j0);
            let plan = self.plan_merge(K::TYPE, a_len, b_len, value_size, options)?;
            self.scoped(|| {
                let mut encoder = self.device.create_command_encoder(&Default::default());
                let copy = |encoder: &mut wgpu::CommandEncoder,
                            (from, from_at): (&wgpu::Buffer, usize),
                            (to, to_at): (&wgpu::Buffer, usize),
                            len: usize,
                            size: u32| {
                    let size = u64::from(size);
                    if len > 0 {
                        encoder.copy_buffer_to_buffer(
                            from,
                            from_at as u64 * size,
                            to,
                            to_at as u64 * size,
                            len as u64 * size,
                        );
                    }
                };
                let [a, b, out] = &pieces_keys;
                copy(&mut encoder, (buffers.a, i0), (a, 0), a_len, key_size);
                copy(&mut encoder, (buffers.b, j0), (b, 0), b_len, key_size);
                if let (Some(v), Some([a, b, _])) = (&buffers.values, &pieces_values) {
                    copy(&mut encoder, (v.a, i0), (a, 0), a_len, value_size);
                    copy(&mut encoder, (v.b, j0), (b, 0), b_len, value_size);
                }
                let piece_buffers = MergeBuffers {
                    a,
                    a_len,
                    b,
                    b_len,
                    out,
                    values: pieces_values.as_ref().map(|[a, b, out]| ValueBuffers {
                        a,
                        b,
                        out,
                        value_size,
                    }),
                };
                self.record_merge(&mut encoder, &scratch, &piece_buffers, &plan)?;
                copy(&mut encoder, (out, 0), (buffers.out, k0), k1 - k0, key_size);
                if let (Some(v), Some([_, _, out])) = (&buffers.values, &pieces_values) {
                    copy(&mut encoder, (out, 0), (v.out, k0), k1 - k0, value_size);
                }
                // One submission per piece: the merge's lengths go into the scratch's uniform
                // buffer when it is recorded.
                self.queue.submit([encoder.finish()]);
                Ok::<_, Error>(())
            })
            .await??;
            (i0, k0) = (i1, k1);
        }
        self.wait()
    }

    /// Co-ranks output ranks `ks` of the merge of resident `buffers` (keys only), reading back
    /// PROBES pairs of keys per search and round trip.
    async fn co_rank_resident<K: Key>(
        &self,
        buffers: &MergeBuffers<'_>,
        ks: &[usize],
        order: Order,
    ) -> Result<Vec<usize>, Error> {
        let (m, n) = (buffers.a_len, buffers.b_len);
        let size = u64::from(K::TYPE.size());
        // [lo, hi]: the indices of A that output k allows, narrowed each round.
        let mut bounds: Vec<(usize, usize)> = ks
            .iter()
            .map(|&k| (k.saturating_sub(n), k.min(m)))
            .collect();
        let staging = self
            .scoped(|| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgmerge co-rank probes"),
                    size: (ks.len() * PROBES * 2) as u64 * size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
            .await?;
        loop {
            // (search, A index) of every probe of this round, in staging order.
            let mut probes = Vec::new();
            for (search, &(lo, hi)) in bounds.iter().enumerate() {
                let width = hi - lo;
                let count = width.min(PROBES);
                // Distinct, increasing, in [lo, hi): all of it when width <= PROBES.
                probes.extend((1..=count).map(|p| (search, lo + p * width / (count + 1))));
            }
            if probes.is_empty() {
                break;
            }
            self.scoped(|| {
                let mut encoder = self.device.create_command_encoder(&Default::default());
                for (slot, &(search, i)) in probes.iter().enumerate() {
                    let at = slot as u64 * 2 * size;
                    let b_index = (ks[search] - 1 - i) as u64;
                    encoder.copy_buffer_to_buffer(buffers.a, i as u64 * size, &staging, at, size);
                    let b = (buffers.b, b_index * size);
                    encoder.copy_buffer_to_buffer(b.0, b.1, &staging, at + size, size);
                }
                self.queue.submit([encoder.finish()]);
            })
            .await?;
            let past: Vec<bool> = self
                .read_back(&staging, |bytes| {
                    let keys: Vec<K> =
                        bytemuck::pod_collect_to_vec(&bytes[..probes.len() * 2 * size as usize]);
                    // A[i] is past the co-rank if B[k-1-i] is strictly before it (ties take A
                    // first), as in cpu::co_rank_ordered.
                    keys.chunks(2).map(|p| p[1].before(&p[0], order)).collect()
                })
                .await?;
            // Probes of one search are consecutive: keep the part between its last probe not
            // past the co-rank and its first past it.
            for (slot, &(search, i)) in probes.iter().enumerate() {
                let (lo, hi) = &mut bounds[search];
                if past[slot] {
                    *hi = (*hi).min(i);
                } else if i < *hi {
                    *lo = (*lo).max(i + 1);
                }
            }
            for (lo, hi) in &mut bounds {
                *lo = (*lo).min(*hi);
            }
        }
        Ok(bounds.into_iter().map(|(lo, _)| lo).collect())
    }

    /// Waits for the submitted work, turning a lost device into an [`Error`].
    fn wait(&self) -> Result<(), Error> {
        self.wait_for_submitted()?;
        self.check_lost()
    }
}
