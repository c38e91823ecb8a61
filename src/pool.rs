//! A bounded pool of buffers that calls reuse: GPU buffers for inputs, outputs and temporaries,
//! and host staging buffers for uploads and readbacks. Creating a large buffer costs far more
//! than the copy through it (the driver allocates and, for staging, pins host memory), so
//! repeated calls take their buffers from here. Buffers come back when a call ends; the pool
//! keeps idle ones up to a limit of bytes per kind and frees the rest.

use std::sync::Mutex;

/// Idle buffers, by kind.
#[derive(Default)]
struct Idle {
    /// GPU buffers (`STORAGE` and copy usages).
    device: Vec<wgpu::Buffer>,
    /// Host staging buffers (`MAP_READ` or `MAP_WRITE`), unmapped.
    staging: Vec<wgpu::Buffer>,
    /// Upload staging buffers kept mapped for writing, as wgpu's StagingBelt keeps its chunks:
    /// a call writes into them at once instead of waiting for a mapping.
    mapped_uploads: Vec<wgpu::Buffer>,
}

/// The pool a [`Gpu`](crate::Gpu) owns.
pub(crate) struct Pool {
    idle: Mutex<Idle>,
    limit: Mutex<u64>,
}

impl Default for Pool {
    fn default() -> Self {
        Pool {
            idle: Mutex::default(),
            limit: Mutex::new(DEFAULT_LIMIT),
        }
    }
}

/// Bytes of idle buffers of each kind kept by default: enough for a 2^28-key merge of u32 pairs
/// in one piece (A, B and the output, keys and values: 4 GiB; run 49 saw such a merge reallocate
/// its buffers every call under a 3 GiB limit). The pool keeps only what calls used, and
/// `Gpu::release_buffers` frees it.
pub(crate) const DEFAULT_LIMIT: u64 = 4 << 30;

/// Idle buffers of each kind kept at most, whatever their bytes: calls of many different sizes
/// would otherwise keep one of every size class they ever used.
const MOST_IDLE: usize = 48;

/// Whether `buffer` is a host staging buffer.
fn is_staging(buffer: &wgpu::Buffer) -> bool {
    buffer
        .usage()
        .intersects(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE)
}

/// The size a request for `bytes` is rounded up to: a multiple of an eighth of the power of two
/// at or below it (at least 256 bytes), so that buffers of nearby sizes serve each other with at
/// most 1/8 waste.
pub(crate) fn size_class(bytes: u64) -> u64 {
    let bytes = bytes.max(256);
    let step = ((1u64 << bytes.ilog2()) / 8).max(32);
    bytes.div_ceil(step) * step
}

impl Pool {
    /// An idle buffer with exactly `usage` holding at least `bytes` (at most twice as many, so a
    /// huge idle buffer does not serve a small request), or a new one of [`size_class`]`(bytes)`,
    /// no larger than `max_size`.
    pub(crate) fn take(
        &self,
        device: &wgpu::Device,
        label: &'static str,
        bytes: u64,
        usage: wgpu::BufferUsages,
        max_size: u64,
    ) -> wgpu::Buffer {
        {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            let staging =
                usage.intersects(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE);
            let list = if staging {
                &mut idle.staging
            } else {
                &mut idle.device
            };
            let fits = |b: &wgpu::Buffer| {
                b.usage() == usage && b.size() >= bytes && b.size() <= bytes.max(256) * 2
            };
            let best = list
                .iter()
                .enumerate()
                .filter(|(_, b)| fits(b))
                .min_by_key(|(_, b)| b.size())
                .map(|(i, _)| i);
            if let Some(i) = best {
                return list.remove(i);
            }
        }
        let size = size_class(bytes).min(max_size.max(bytes)).max(8);
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
            usage,
            mapped_at_creation: false,
        })
    }

    /// Buffers for one call's requests (label and bytes each), all with `usage`, in the order
    /// asked. The largest requests are served first: served in order, a small request could
    /// take the idle buffer a larger one needs (any of up to twice its size fits it), which
    /// then had to be created while the small one's own size sat idle, and the next call did
    /// the same. Run 115: each merge of 2^28 u32 pairs after merges of keys created buffers
    /// again (27-69 ms a call) and took 3.0x the keys' time end to end; 1.9-2.0x since (116).
    pub(crate) fn take_all(
        &self,
        device: &wgpu::Device,
        requests: &[(&'static str, u64)],
        usage: wgpu::BufferUsages,
        max_size: u64,
    ) -> Vec<wgpu::Buffer> {
        let mut order: Vec<usize> = (0..requests.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(requests[i].1));
        let mut taken: Vec<Option<wgpu::Buffer>> = requests.iter().map(|_| None).collect();
        for i in order {
            let (label, bytes) = requests[i];
            taken[i] = Some(self.take(device, label, bytes, usage, max_size));
        }
        taken.into_iter().flatten().collect()
    }

    /// Takes `buffer` back when its call ends (GPU work may still use it: later uses are ordered
    /// after it). Beyond the limits, the buffers idle longest are freed first.
    pub(crate) fn give_back(&self, buffer: wgpu::Buffer) {
        let limit = self.limit();
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let list = if is_staging(&buffer) {
            &mut idle.staging
        } else {
            &mut idle.device
        };
        // Newest last.
        list.push(buffer);
        trim(list, limit);
    }

    /// An upload staging buffer of exactly `bytes`, mapped for writing, if one is idle.
    pub(crate) fn take_mapped_upload(&self, bytes: u64) -> Option<wgpu::Buffer> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let i = idle.mapped_uploads.iter().position(|b| b.size() == bytes)?;
        Some(idle.mapped_uploads.remove(i))
    }

    /// Takes back an upload staging buffer that is mapped for writing.
    pub(crate) fn give_back_mapped_upload(&self, buffer: wgpu::Buffer) {
        let limit = self.limit();
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.mapped_uploads.push(buffer);
        let staging: u64 = idle.staging.iter().map(|b| b.size()).sum();
        trim(&mut idle.mapped_uploads, limit.saturating_sub(staging));
    }

    /// The limit, bytes per kind.
    pub(crate) fn limit(&self) -> u64 {
        *self.limit.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the limit and frees what is beyond it now.
    pub(crate) fn set_limit(&self, bytes: u64) {
        *self.limit.lock().unwrap_or_else(|e| e.into_inner()) = bytes;
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let Idle {
            device,
            staging,
            mapped_uploads,
        } = &mut *idle;
        for list in [device, staging, mapped_uploads] {
            trim(list, bytes);
        }
    }

    /// Frees every idle buffer.
    pub(crate) fn release(&self) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.device.clear();
        idle.staging.clear();
        idle.mapped_uploads.clear();
    }

    /// Bytes of idle GPU buffers and of idle staging buffers.
    pub(crate) fn idle_bytes(&self) -> (u64, u64) {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let sum = |list: &Vec<wgpu::Buffer>| list.iter().map(|b| b.size()).sum::<u64>();
        (
            sum(&idle.device),
            sum(&idle.staging) + sum(&idle.mapped_uploads),
        )
    }
}

/// Frees the buffers idle longest (the front) until `list` keeps at most `limit` bytes and
/// [`MOST_IDLE`] buffers.
fn trim(list: &mut Vec<wgpu::Buffer>, limit: u64) {
    let mut bytes: u64 = list.iter().map(|b| b.size()).sum();
    let mut drop = 0;
    while drop < list.len() && (bytes > limit || list.len() - drop > MOST_IDLE) {
        bytes -= list[drop].size();
        drop += 1;
    }
    list.drain(..drop);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_waste_at_most_an_eighth() {
        for bytes in [
            1,
            255,
            256,
            257,
            1000,
            4096,
            4097,
            1 << 20,
            (1 << 20) + 1,
            3 << 29,
            1 << 30,
        ] {
            let class = size_class(bytes);
            assert!(class >= bytes && class >= 256, "{bytes} -> {class}");
            assert!(
                class <= (bytes.max(256) * 9).div_ceil(8) + 32,
                "{bytes} -> {class}"
            );
            assert_eq!(class % 32, 0);
        }
        assert_eq!(size_class(1 << 30), 1 << 30);
    }

    /// A call that asks for small and large buffers gets back every idle buffer of the call
    /// before it, whatever the order of its requests, once the pool holds what it needs.
    #[test]
    fn calls_reuse_every_buffer_whatever_the_order_of_requests() {
        let gpu = crate::Gpu::new().expect("an adapter (lavapipe in CI)");
        let (device, pool) = (gpu.device(), &gpu.pool);
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let mib = 1 << 20;
        // A merge of keys, then merges of pairs (four inputs, two outputs twice their size),
        // with a limit that holds exactly the pairs' buffers.
        pool.set_limit(8 * mib);
        let keys = [("a", mib), ("b", mib), ("out", 2 * mib)];
        let pairs = [
            ("a", mib),
            ("b", mib),
            ("a values", mib),
            ("b values", mib),
            ("out", 2 * mib),
            ("out values", 2 * mib),
        ];
        for buffer in pool.take_all(device, &keys, usage, u64::MAX) {
            pool.give_back(buffer);
        }
        let mut before: Vec<wgpu::Buffer> = Vec::new();
        for _ in 0..3 {
            let taken = pool.take_all(device, &pairs, usage, u64::MAX);
            for (buffer, (_, bytes)) in taken.iter().zip(pairs) {
                assert!(buffer.size() >= bytes);
            }
            if !before.is_empty() {
                assert!(
                    taken.iter().all(|b| before.contains(b)),
                    "a buffer was created"
                );
            }
            before = taken.clone();
            for buffer in taken {
                pool.give_back(buffer);
            }
        }
    }
}
