//! Merges of GPU-resident buffers of any length the device can hold, also beyond one storage
//! binding: the output is cut into pieces of one binding each. A piece starting at output k0
//! (with i0 keys of A and j0 of B before it) takes its keys from the next `piece` keys of A and of
//! B, so those two windows are copied into buffers of one binding, the partition pass
//! (partition.rs) co-ranks the piece's end in them, and after that one word is read back the
//! piece is merged and copied into place.
//!
//! The cuts are data, known only on the GPU, so this cannot be recorded into a caller's encoder
//! ahead of time as [`Gpu::encode_merge`] is; it submits and waits.

use crate::device::bind_elements;
use crate::merge::{MergeBuffers, MergeOptions, ValueBuffers};
use crate::partition::Partition;
use crate::{Error, Gpu, Key};

impl Gpu {
    /// Merges the GPU-resident `buffers` and waits for the GPU: [`Gpu::encode_merge`] and a
    /// submission where the merge fits one storage binding ([`Gpu::max_merge_len`], or
    /// `options.max_piece_len`), pieces that fit one otherwise. Pieces need `COPY_SRC` on the
    /// inputs (keys and values) and `COPY_DST` on the outputs besides `STORAGE`, and GPU memory
    /// for two pieces of each input and one of each output. `options.validate` is refused, as by
    /// [`Gpu::encode_merge`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn merge_resident<K: Key>(
        &self,
        buffers: &MergeBuffers<'_>,
        options: &MergeOptions,
    ) -> Result<(), Error> {
        self.block_on(self.merge_resident_async::<K>(buffers, options))
    }

    /// [`Gpu::merge_resident`] without blocking.
    pub async fn merge_resident_async<K: Key>(
        &self,
        buffers: &MergeBuffers<'_>,
        options: &MergeOptions,
    ) -> Result<(), Error> {
        let value_size = self.check_resident_merge(buffers, options)?;
        // Check the options (and that the device can run this merge at all) before any work.
        self.plan_merge(K::TYPE, 0, 0, value_size, options)?;
        let key_size = K::TYPE.size();
        let (m, n) = (buffers.a_len, buffers.b_len);
        let total = m + n;
        let arrays = buffers.arrays(key_size);
        self.check_arrays(&arrays)?;
        let piece = options.piece_len(self.max_merge_len(K::TYPE, value_size))?;
        let scratch = self.create_scratch();
        if total <= piece {
            self.scoped(|| {
                let mut encoder = self.device.create_command_encoder(&Default::default());
                self.encode_merge::<K>(&mut encoder, &scratch, buffers, options)?;
                self.submit(encoder.finish());
                Ok::<_, Error>(())
            })
            .await??;
            return self.submitted_work_done().await;
        }

        for &(name, buffer, len, _, written) in &arrays {
            let needed = if written {
                wgpu::BufferUsages::COPY_DST
            } else {
                wgpu::BufferUsages::COPY_SRC
            };
            if len > 0 && !buffer.usage().contains(needed) {
                return Err(Error::MissingUsage {
                    buffer: name,
                    needed,
                });
            }
        }
        // One binding's worth of each array, reused by every piece.
        let room = [m.min(piece), n.min(piece), total.min(piece)];
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let max = self.device.limits().max_buffer_size;
        let (windows, value_windows, staging) = self
            .scoped(|| {
                let labels = ["wgmerge piece a", "wgmerge piece b", "wgmerge piece out"];
                let requests = |size: u32| {
                    [0, 1, 2].map(|i| (labels[i], (room[i] as u64 * u64::from(size)).max(16)))
                };
                let mut wanted = requests(key_size).to_vec();
                if buffers.values.is_some() {
                    wanted.extend(requests(value_size));
                }
                let mut taken = self.pool.take_all(&self.device, &wanted, usage, max);
                let values = (taken.len() > 3).then(|| {
                    <[wgpu::Buffer; 3]>::try_from(taken.split_off(3))
                        .expect("one buffer per request")
                });
                let keys = <[wgpu::Buffer; 3]>::try_from(taken).expect("one buffer per request");
                let read = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
                let staging = self.pool.take(&self.device, "wgmerge cut", 4, read, max);
                (keys, values, staging)
            })
            .await?;

        let (mut i0, mut j0, mut k0) = (0, 0, 0);
        while k0 < total {
            let k1 = (k0 + piece).min(total);
            let len = k1 - k0;
            let (a_take, b_take) = ((m - i0).min(len), (n - j0).min(len));
            // The windows, and the co-rank of the piece's end in them.
            let splits = scratch.splits(&self.device, 16 * 4);
            self.scoped(|| {
                let mut encoder = self.device.create_command_encoder(&Default::default());
                let [a, b, _] = &windows;
                copy(&mut encoder, (buffers.a, i0), (a, 0), a_take, key_size);
                copy(&mut encoder, (buffers.b, j0), (b, 0), b_take, key_size);
                let partition = Partition::plan(
                    self,
                    K::TYPE,
                    options.order,
                    (a_take, b_take),
                    len as u32,
                    0,
                    false,
                )?;
                let placeholder = scratch.placeholder();
                let prepared = partition.prepare(
                    self,
                    (
                        bind_elements(a, 0, a_take, key_size, placeholder),
                        bind_elements(b, 0, b_take, key_size, placeholder),
                    ),
                    &splits,
                    None,
                    None,
                )?;
                {
                    let mut pass = encoder.begin_compute_pass(&Default::default());
                    prepared.record(&mut pass);
                }
                encoder.copy_buffer_to_buffer(&splits, 4, &staging, 0, 4);
                self.submit(encoder.finish());
                Ok::<_, Error>(())
            })
            .await??;
            let cut = self
                .read_back(&staging, 4, |bytes| {
                    u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes")) as usize
                })
                .await?;
            // Clamped so that unsorted input (where co-rank need not grow with rank) still
            // gives pieces that cover each input exactly once.
            let a_len = cut.clamp(len.saturating_sub(b_take), a_take);
            let b_len = len - a_len;
            let plan = self.plan_merge(K::TYPE, a_len, b_len, value_size, options)?;
            self.scoped(|| {
                let mut encoder = self.device.create_command_encoder(&Default::default());
                if let (Some(v), Some([a, b, _])) = (&buffers.values, &value_windows) {
                    copy(&mut encoder, (v.a, i0), (a, 0), a_len, value_size);
                    copy(&mut encoder, (v.b, j0), (b, 0), b_len, value_size);
                }
                let [a, b, out] = &windows;
                let piece_buffers = MergeBuffers {
                    a,
                    a_len,
                    b,
                    b_len,
                    out,
                    values: value_windows.as_ref().map(|[a, b, out]| ValueBuffers {
                        a,
                        b,
                        out,
                        value_size,
                    }),
                };
                self.record_merge(&mut encoder, &scratch, &piece_buffers, &plan)?;
                copy(&mut encoder, (out, 0), (buffers.out, k0), len, key_size);
                if let (Some(v), Some([_, _, out])) = (&buffers.values, &value_windows) {
                    copy(&mut encoder, (out, 0), (v.out, k0), len, value_size);
                }
                self.submit(encoder.finish());
                Ok::<_, Error>(())
            })
            .await??;
            (i0, j0, k0) = (i0 + a_len, j0 + b_len, k1);
        }
        self.submitted_work_done().await?;
        for buffer in windows
            .into_iter()
            .chain(value_windows.into_iter().flatten())
        {
            self.pool.give_back(buffer);
        }
        self.pool.give_back(staging);
        Ok(())
    }
}

/// Records a copy of `len` elements of `size` bytes between element offsets of two buffers.
fn copy(
    encoder: &mut wgpu::CommandEncoder,
    (from, from_at): (&wgpu::Buffer, usize),
    (to, to_at): (&wgpu::Buffer, usize),
    len: usize,
    size: u32,
) {
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
}
