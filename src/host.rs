//! The one host driver: every slice form (merge, sort, set operations, scan, reduce) uploads,
//! records, reads back, checks and reports progress through [`run`]. An operation says only what
//! to record for a piece ([`PieceWork`]); the driver does the rest:
//!
//! - **Pieces.** A call is cut into pieces (the operation says where) that each fit one binding.
//!   Pieces use two sets of GPU buffers in turn, so the upload of a piece, the kernel of the one
//!   before and the readback of the one before that overlap.
//! - **Staging.** Uploads are copied straight from the caller's slices into mapped staging memory,
//!   and readbacks straight from mapped memory into the result, by several threads where the
//!   copy is large (native targets). Staging buffers form a ring per direction, so the host's copy
//!   into one overlaps the GPU's transfer of another; host memory for transfers is bounded by
//!   `2 * STAGING_BUFFERS * STAGING_BYTES` whatever the call's size (tuning.rs).
//! - **Reuse.** GPU and staging buffers come from the [`Gpu`]'s pool and go back to it.
//! - **Waiting.** Every wait is a future completed by wgpu's callbacks (device.rs polls on native
//!   targets), so the async forms never block their thread.

use std::collections::VecDeque;
use std::future::Future;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::pin::Pin;

use crate::key::KeyType;
#[cfg(not(target_arch = "wasm32"))]
use crate::tuning::COPY_BYTES_PER_THREAD;
use crate::tuning::{STAGING_BUFFERS, STAGING_BYTES};
use crate::{Error, Gpu};

/// One piece of a call: the elements of each input it takes (in input order), and the range of
/// the output it fills (for outputs whose length is known beforehand).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) inputs: Vec<Range<usize>>,
    pub(crate) output: Range<usize>,
}

/// What an operation recorded for one piece.
pub(crate) struct Recorded {
    /// The GPU buffers holding each output's elements, from offset 0 (often the slot's own
    /// output buffers; a sort names whichever of its two buffers ended with the result).
    pub(crate) outputs: Vec<wgpu::Buffer>,
    /// Where the GPU left the number of output elements, when only the GPU knows it.
    pub(crate) count: Option<(wgpu::Buffer, u64)>,
    /// Words to read back once the piece is done, handed to [`PieceWork::check`].
    pub(crate) words: Vec<(wgpu::Buffer, u64)>,
}

impl Recorded {
    /// Outputs in `outputs`, of the length the piece says, and nothing to read back.
    pub(crate) fn outputs(outputs: &[&wgpu::Buffer]) -> Self {
        Recorded {
            outputs: outputs.iter().map(|&b| b.clone()).collect(),
            count: None,
            words: Vec::new(),
        }
    }
}

/// The part of a slice form that differs between operations.
pub(crate) trait PieceWork {
    /// Records the work of `piece` into `encoder`. `inputs[i]` holds the piece's elements of
    /// input i from offset 0; `outputs[o]` has room for the piece's output `o`.
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        piece: &Piece,
        inputs: &[wgpu::Buffer],
        outputs: &[wgpu::Buffer],
    ) -> Result<Recorded, Error>;

    /// Checks the words the piece's [`Recorded::words`] named, once its output is read back.
    fn check(&mut self, piece: &Piece, words: &[u32]) -> Result<(), Error> {
        let _ = (piece, words);
        Ok(())
    }
}

/// A call of the driver: the host inputs (bytes, bytes per element), the outputs' bytes per
/// element, the pieces, and how many elements of each input and of the outputs one piece may
/// hold (the GPU buffers' sizes).
pub(crate) struct Call<'a> {
    pub(crate) inputs: Vec<(&'a [u8], usize)>,
    pub(crate) output_sizes: Vec<usize>,
    pub(crate) pieces: Vec<Piece>,
    pub(crate) input_room: Vec<usize>,
    pub(crate) output_room: usize,
}

/// The longest piece a slice form in pieces may take, from its options' `max_piece_len` where
/// the device allows `device_max` elements.
pub(crate) fn piece_len(max_piece_len: Option<usize>, device_max: usize) -> Result<usize, Error> {
    match max_piece_len {
        Some(0) => Err(Error::InvalidOptions(
            "max_piece_len must be positive".into(),
        )),
        Some(len) => Ok(len.min(device_max)),
        None => Ok(device_max),
    }
}

impl<'a> Call<'a> {
    /// A call of one piece with room for `output_len` output elements; add its inputs (each
    /// whole) with [`Call::whole_input`] and its outputs with [`Call::output`].
    pub(crate) fn one_piece(output_len: usize) -> Self {
        Call {
            inputs: Vec::new(),
            output_sizes: Vec::new(),
            pieces: vec![Piece {
                inputs: Vec::new(),
                output: 0..output_len,
            }],
            input_room: Vec::new(),
            output_room: output_len,
        }
    }

    /// Adds an input of elements of `size` bytes, the one piece taking all of them.
    pub(crate) fn whole_input(&mut self, bytes: &'a [u8], size: usize) {
        let len = bytes.len() / size.max(1);
        self.inputs.push((bytes, size));
        self.input_room.push(len);
        self.pieces[0].inputs.push(0..len);
    }

    /// Adds an output of elements of `size` bytes.
    pub(crate) fn output(&mut self, size: usize) {
        self.output_sizes.push(size);
    }
}

/// Where a call's outputs go: one destination per output, each with room for every element the
/// call produces; the driver writes elements in order from the start.
pub(crate) type Destinations<'a, 'b> = &'a mut [&'b mut [MaybeUninit<u8>]];

/// Runs `call`, writing its outputs into `destinations`; returns how many elements each output
/// got. `progress(done, total)` follows each piece, with `total` the outputs' room.
pub(crate) async fn run(
    gpu: &Gpu,
    call: &Call<'_>,
    work: &mut dyn PieceWork,
    destinations: Destinations<'_, '_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<usize, Error> {
    gpu.check_lost()?;
    let total_room = destinations
        .iter()
        .zip(&call.output_sizes)
        .map(|(d, &size)| d.len() / size.max(1))
        .min()
        .unwrap_or(0);
    let mut driver = Driver::new(gpu);
    let result = driver
        .pieces(call, work, destinations, progress, total_room)
        .await;
    driver.finish(result.is_ok()).await;
    result
}

/// GPU buffers of one piece: its inputs and outputs.
struct Slot {
    inputs: Vec<wgpu::Buffer>,
    outputs: Vec<wgpu::Buffer>,
}

/// A staging buffer being mapped, with the future of its mapping.
type Mapping = Pin<Box<dyn Future<Output = Result<(), Error>>>>;

/// A readback in flight: the staging buffer, its mapping, and where its bytes go.
struct Readback {
    staging: wgpu::Buffer,
    mapping: Mapping,
    len: usize,
    output: usize,
    at: usize,
}

/// The state of one call: its buffers, taken from the pool and given back at the end.
/// When the call started, for its trace (`RUST_LOG=wgmerge::host=trace`): each step is logged
/// with the time since. The web has no `Instant`; there the trace is empty.
#[derive(Clone, Copy)]
struct TraceClock {
    #[cfg(not(target_arch = "wasm32"))]
    started: std::time::Instant,
}

impl TraceClock {
    fn start() -> Self {
        TraceClock {
            #[cfg(not(target_arch = "wasm32"))]
            started: std::time::Instant::now(),
        }
    }

    fn trace(self, step: std::fmt::Arguments<'_>) {
        #[cfg(not(target_arch = "wasm32"))]
        if log::log_enabled!(log::Level::Trace) {
            let micros = self.started.elapsed().as_micros();
            log::trace!("{micros:>8} us  {step}");
        }
        #[cfg(target_arch = "wasm32")]
        let _ = step;
    }
}

struct Driver<'g> {
    gpu: &'g Gpu,
    clock: TraceClock,
    slots: Vec<Slot>,
    /// Upload staging buffers: mapped (ready to write) or being mapped.
    uploads: VecDeque<(wgpu::Buffer, Option<Mapping>)>,
    /// Readback staging buffers not in use.
    free_readbacks: Vec<wgpu::Buffer>,
}

impl<'g> Driver<'g> {
    fn trace(&self, step: std::fmt::Arguments<'_>) {
        self.clock.trace(step);
    }

    fn new(gpu: &'g Gpu) -> Self {
        Driver {
            gpu,
            clock: TraceClock::start(),
            slots: Vec::new(),
            uploads: VecDeque::new(),
            free_readbacks: Vec::new(),
        }
    }

    async fn pieces(
        &mut self,
        call: &Call<'_>,
        work: &mut dyn PieceWork,
        destinations: Destinations<'_, '_>,
        progress: &mut dyn FnMut(usize, usize),
        total_room: usize,
    ) -> Result<usize, Error> {
        let slot_count = call.pieces.len().min(2);
        for _ in 0..slot_count {
            let slot = self.slot(call).await?;
            self.slots.push(slot);
        }
        self.trace(format_args!("{} pieces, slots ready", call.pieces.len()));
        let mut written = 0;
        let mut pending: Option<(usize, (Recorded, Vec<Readback>))> = None;
        // Piece i is uploaded and submitted before piece i - 1 is read back, so that the GPU
        // works on one while the host copies the other; the last round only reads back.
        for index in 0..=call.pieces.len() {
            let next = match call.pieces.get(index) {
                Some(piece) => {
                    let slot = index % slot_count;
                    Some((index, self.submit(call, work, index, piece, slot).await?))
                }
                None => None,
            };
            if let Some((done, (recorded, early))) = pending.take() {
                written += self
                    .download(
                        &call.pieces[done],
                        &recorded,
                        early,
                        call,
                        work,
                        destinations,
                        written,
                    )
                    .await?;
                progress(written, total_room);
            }
            pending = next;
        }
        Ok(written)
    }

    /// Uploads piece `index` into slot `slot`, records its work and submits it; returns what it
    /// recorded and the readbacks that start as soon as it is done.
    async fn submit(
        &mut self,
        call: &Call<'_>,
        work: &mut dyn PieceWork,
        index: usize,
        piece: &Piece,
        slot: usize,
    ) -> Result<(Recorded, Vec<Readback>), Error> {
        self.upload(call, piece, slot).await?;
        self.trace(format_args!("piece {index} uploaded"));
        let (recorded, early) = {
            let gpu = self.gpu;
            let slot = &self.slots[slot];
            let free = &mut self.free_readbacks;
            let clock = self.clock;
            gpu.scoped(|| {
                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                let recorded =
                    work.record(gpu, &mut encoder, piece, &slot.inputs, &slot.outputs)?;
                clock.trace(format_args!("piece {index} recorded"));
                let early = early_readbacks(gpu, &mut encoder, free, piece, &recorded, call);
                let commands = encoder.finish();
                clock.trace(format_args!("piece {index} finished"));
                gpu.submit(commands);
                clock.trace(format_args!("piece {index} queued"));
                Ok::<_, Error>((recorded, early))
            })
            .await??
        };
        self.trace(format_args!("piece {index} submitted, error scopes clear"));
        let early: Vec<Readback> = early
            .into_iter()
            .map(|(staging, len, output)| Readback {
                mapping: Box::pin(gpu_map(self.gpu, &staging, len)),
                staging,
                len,
                output,
                at: 0,
            })
            .collect();
        Ok((recorded, early))
    }

    /// GPU buffers for the largest piece.
    async fn slot(&mut self, call: &Call<'_>) -> Result<Slot, Error> {
        let gpu = self.gpu;
        let max = gpu.device.limits().max_buffer_size;
        // COPY_SRC too: an operation may leave its result in an input buffer (merge sort ends
        // in either of its two buffers); COPY_DST too: a reduction copies its result in. So
        // inputs and outputs share one usage and serve each other's requests from the pool.
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let inputs = call
            .inputs
            .iter()
            .zip(&call.input_room)
            .map(|(&(_, size), &room)| ("wgmerge input", (room * size) as u64));
        let outputs = call
            .output_sizes
            .iter()
            .map(|&size| ("wgmerge output", (call.output_room * size) as u64));
        let requests: Vec<_> = inputs.chain(outputs).collect();
        gpu.scoped(|| {
            let mut buffers = gpu.pool.take_all(&gpu.device, &requests, usage, max);
            let outputs = buffers.split_off(call.inputs.len());
            Slot {
                inputs: buffers,
                outputs,
            }
        })
        .await
    }

    /// Uploads `piece`'s inputs into slot `slot`.
    async fn upload(&mut self, call: &Call<'_>, piece: &Piece, slot: usize) -> Result<(), Error> {
        let gpu = self.gpu;
        for (input, range) in piece.inputs.iter().enumerate() {
            let (bytes, size) = call.inputs[input];
            let bytes = &bytes[range.start * size..range.end * size];
            let target = self.slots[slot].inputs[input].clone();
            if bytes.len() <= SMALL_TRANSFER {
                // wgpu stages small writes itself, applied before the next submission.
                if !bytes.is_empty() {
                    gpu.queue.write_buffer(&target, 0, bytes);
                }
                continue;
            }
            for (at, chunk) in bytes.chunks(STAGING_BYTES as usize).enumerate() {
                let staging = self.writable_staging().await?;
                self.trace(format_args!(
                    "upload chunk {at} of input {input}: staging mapped"
                ));
                {
                    let slice = staging.slice(..chunk.len() as u64);
                    let mut view = slice
                        .get_mapped_range_mut()
                        .map_err(|e| Error::Validation(e.to_string()))?;
                    write_parallel(view.slice(..), chunk);
                }
                staging.unmap();
                self.trace(format_args!("upload chunk {at} of input {input}: copied"));
                let offset = at as u64 * STAGING_BYTES;
                gpu.scoped(|| {
                    let mut encoder = gpu.device.create_command_encoder(&Default::default());
                    encoder.copy_buffer_to_buffer(&staging, 0, &target, offset, chunk.len() as u64);
                    gpu.submit(encoder.finish());
                })
                .await?;
                // Mapped again once the copy is done, for the next chunk that takes it.
                let mapping = gpu.map_later(&staging, staging.size(), wgpu::MapMode::Write);
                self.uploads.push_back((staging, Some(Box::pin(mapping))));
            }
        }
        Ok(())
    }

    /// An upload staging buffer mapped for writing: one the pool keeps mapped, or a new one,
    /// while the ring is not full; else the oldest, once its copy is done.
    async fn writable_staging(&mut self) -> Result<wgpu::Buffer, Error> {
        if self.uploads.len() < STAGING_BUFFERS {
            let gpu = self.gpu;
            if let Some(staging) = gpu.pool.take_mapped_upload(STAGING_BYTES) {
                return Ok(staging);
            }
            let usage = wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC;
            let staging = gpu
                .scoped(|| {
                    gpu.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("wgmerge upload"),
                        size: STAGING_BYTES,
                        usage,
                        mapped_at_creation: true,
                    })
                })
                .await?;
            return Ok(staging);
        }
        let (staging, mapping) = self.uploads.pop_front().expect("ring is full");
        if let Some(mapping) = mapping {
            mapping.await?;
        }
        Ok(staging)
    }

    /// Reads `piece`'s outputs back into `destinations` from element `written` on; returns how
    /// many elements each output got.
    #[allow(clippy::too_many_arguments)]
    async fn download(
        &mut self,
        piece: &Piece,
        recorded: &Recorded,
        early: Vec<Readback>,
        call: &Call<'_>,
        work: &mut dyn PieceWork,
        destinations: Destinations<'_, '_>,
        written: usize,
    ) -> Result<usize, Error> {
        let gpu = self.gpu;
        let count = match &recorded.count {
            None => piece.output.len(),
            Some((buffer, offset)) => {
                let words = self.read_words(&[(buffer.clone(), *offset)]).await?;
                words[0] as usize
            }
        };
        // Never trust a count from the GPU beyond the room the caller gave.
        let room = destinations
            .iter()
            .zip(&call.output_sizes)
            .map(|(d, &size)| d.len() / size.max(1) - written)
            .min()
            .unwrap_or(0);
        let count = count.min(room).min(call.output_room);
        // The GPU is still uploading, merging and copying out: fault in the result's pages now,
        // rather than on the readback's copy, which waits for them.
        if recorded.count.is_none() {
            for (output, destination) in destinations.iter_mut().enumerate() {
                let size = call.output_sizes[output];
                prefault(&mut destination[written * size..(written + count) * size]);
                self.trace(format_args!("output {output}: pages faulted in"));
            }
        }
        if !early.is_empty() {
            // Copied in the piece's own submission: the whole output, one buffer each.
            for readback in early {
                self.complete(readback, destinations, written, call).await?;
            }
            if !recorded.words.is_empty() {
                let words = self.read_words(&recorded.words).await?;
                work.check(piece, &words)?;
            }
            return Ok(count);
        }
        let mut in_flight: VecDeque<Readback> = VecDeque::new();
        for (output, buffer) in recorded.outputs.iter().enumerate() {
            let size = call.output_sizes[output];
            let bytes = count * size;
            let mut at = 0;
            while at < bytes {
                let len = (bytes - at).min(STAGING_BYTES as usize);
                if in_flight.len() == STAGING_BUFFERS {
                    let done = in_flight.pop_front().expect("one in flight");
                    self.complete(done, destinations, written, call).await?;
                }
                let staging = self.readable_staging(len as u64).await?;
                gpu.scoped(|| {
                    let mut encoder = gpu.device.create_command_encoder(&Default::default());
                    encoder.copy_buffer_to_buffer(buffer, at as u64, &staging, 0, len as u64);
                    gpu.submit(encoder.finish());
                })
                .await?;
                let mapping = Box::pin(gpu.map_later(&staging, len as u64, wgpu::MapMode::Read));
                in_flight.push_back(Readback {
                    staging,
                    mapping,
                    len,
                    output,
                    at,
                });
                at += len;
            }
        }
        while let Some(done) = in_flight.pop_front() {
            self.complete(done, destinations, written, call).await?;
        }
        if !recorded.words.is_empty() {
            let words = self.read_words(&recorded.words).await?;
            work.check(piece, &words)?;
        }
        Ok(count)
    }

    /// Copies a finished readback into its destination and frees its staging buffer.
    async fn complete(
        &mut self,
        readback: Readback,
        destinations: Destinations<'_, '_>,
        written: usize,
        call: &Call<'_>,
    ) -> Result<(), Error> {
        readback.mapping.await?;
        self.trace(format_args!(
            "readback of output {} at byte {}: mapped",
            readback.output, readback.at
        ));
        {
            let view = readback
                .staging
                .slice(..readback.len as u64)
                .get_mapped_range()
                .map_err(|e| Error::Validation(e.to_string()))?;
            let start = written * call.output_sizes[readback.output] + readback.at;
            let destination = &mut destinations[readback.output][start..start + readback.len];
            copy_parallel(destination, &view);
        }
        readback.staging.unmap();
        self.trace(format_args!(
            "readback of output {}: copied",
            readback.output
        ));
        self.free_readbacks.push(readback.staging);
        Ok(())
    }

    /// A readback staging buffer of at least `bytes`.
    async fn readable_staging(&mut self, bytes: u64) -> Result<wgpu::Buffer, Error> {
        if let Some(i) = self.free_readbacks.iter().position(|b| b.size() >= bytes) {
            return Ok(self.free_readbacks.swap_remove(i));
        }
        let gpu = self.gpu;
        let usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
        // Small readbacks take small buffers; large ones the ring's size, reused by the rest.
        let size = if bytes <= SMALL_TRANSFER as u64 {
            bytes
        } else {
            STAGING_BYTES
        };
        gpu.scoped(|| {
            let max = gpu.device.limits().max_buffer_size;
            gpu.pool
                .take(&gpu.device, "wgmerge readback", size, usage, max)
        })
        .await
    }

    /// Reads back one u32 at each (buffer, byte offset).
    async fn read_words(&mut self, words: &[(wgpu::Buffer, u64)]) -> Result<Vec<u32>, Error> {
        let gpu = self.gpu;
        let bytes = words.len() as u64 * 4;
        let staging = self.readable_staging(bytes).await?;
        gpu.scoped(|| {
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            for (slot, (buffer, offset)) in words.iter().enumerate() {
                encoder.copy_buffer_to_buffer(buffer, *offset, &staging, slot as u64 * 4, 4);
            }
            gpu.submit(encoder.finish());
        })
        .await?;
        let values = gpu
            .read_back(&staging, bytes, |mapped| {
                bytemuck::pod_collect_to_vec::<u8, u32>(mapped)
            })
            .await?;
        self.free_readbacks.push(staging);
        Ok(values)
    }

    /// Gives every buffer back to the pool, once the uploads still in flight are done (a call
    /// that failed drops its staging buffers instead: their state is unknown).
    async fn finish(&mut self, succeeded: bool) {
        self.trace(format_args!("outputs read back"));
        let pool = &self.gpu.pool;
        // Upload staging buffers go back mapped, ready for the next call's writes.
        while let Some((staging, mapping)) = self.uploads.pop_front() {
            let mapped = match mapping {
                Some(mapping) => mapping.await.is_ok(),
                None => true,
            };
            if succeeded && mapped {
                pool.give_back_mapped_upload(staging);
            }
        }
        if succeeded {
            for buffer in self.free_readbacks.drain(..) {
                pool.give_back(buffer);
            }
        }
        for slot in self.slots.drain(..) {
            for buffer in slot.inputs.into_iter().chain(slot.outputs) {
                pool.give_back(buffer);
            }
        }
    }
}

/// For a piece whose output length is known and small, records the copies of its whole output
/// into staging buffers in the piece's own encoder (one submission for the whole call, which
/// matters where each submission is costly, as on software adapters): (staging, bytes, output).
fn early_readbacks(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    free: &mut Vec<wgpu::Buffer>,
    piece: &Piece,
    recorded: &Recorded,
    call: &Call<'_>,
) -> Vec<(wgpu::Buffer, usize, usize)> {
    let count = piece.output.len().min(call.output_room);
    let total: usize = call.output_sizes.iter().map(|size| count * size).sum();
    if recorded.count.is_some() || total > SMALL_TRANSFER || count == 0 {
        return Vec::new();
    }
    let usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
    let max = gpu.device.limits().max_buffer_size;
    recorded
        .outputs
        .iter()
        .zip(&call.output_sizes)
        .enumerate()
        .map(|(output, (buffer, size))| {
            let len = count * size;
            let staging = match free.iter().position(|b| b.size() >= len as u64) {
                Some(i) => free.swap_remove(i),
                None => gpu
                    .pool
                    .take(&gpu.device, "wgmerge readback", len as u64, usage, max),
            };
            encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, len as u64);
            (staging, len, output)
        })
        .collect()
}

/// The mapping of the first `len` bytes of a readback staging buffer.
fn gpu_map(
    gpu: &Gpu,
    staging: &wgpu::Buffer,
    len: usize,
) -> impl Future<Output = Result<(), Error>> {
    gpu.map_later(staging, len as u64, wgpu::MapMode::Read)
}

/// Transfers up to this many bytes go through wgpu's own staging (uploads) or a small buffer of
/// their own (readbacks): the ring pays only for large ones.
const SMALL_TRANSFER: usize = 1 << 20;

/// Copies `source` into mapped, write-only staging memory, by several threads when large: the
/// mapping is cut into parts of a fixed size (`WriteOnly::into_chunks`), one a thread at a time,
/// so no thread can touch another's bytes.
fn write_parallel(destination: wgpu::WriteOnly<'_, [u8]>, source: &[u8]) {
    assert_eq!(destination.len(), source.len());
    #[cfg(not(target_arch = "wasm32"))]
    if source.len() >= 2 * COPY_BYTES_PER_THREAD {
        use rayon::prelude::*;
        let (parts, mut tail) = destination.into_chunks::<COPY_BYTES_PER_THREAD>();
        let (chunks, rest) = source.split_at(parts.len() * COPY_BYTES_PER_THREAD);
        // A part of fixed size can cross threads (WriteOnly<[u8]> cannot).
        parts
            .into_iter()
            .collect::<Vec<_>>()
            .into_par_iter()
            .zip(chunks.par_chunks(COPY_BYTES_PER_THREAD))
            .for_each(|(part, chunk)| wgpu::WriteOnly::<[u8]>::from(part).copy_from_slice(chunk));
        tail.copy_from_slice(rest);
        return;
    }
    let mut destination = destination;
    destination.copy_from_slice(source);
}

/// Copies `source` into `destination` (possibly uninitialised memory: the caller's result), by
/// several threads when large, which also spreads the page faults of fresh memory over them.
pub(crate) fn copy_parallel(destination: &mut [MaybeUninit<u8>], source: &[u8]) {
    fn copy(destination: &mut [MaybeUninit<u8>], source: &[u8]) {
        for (d, &s) in destination.iter_mut().zip(source) {
            d.write(s);
        }
    }
    debug_assert_eq!(destination.len(), source.len());
    #[cfg(not(target_arch = "wasm32"))]
    if source.len() >= 2 * COPY_BYTES_PER_THREAD {
        use rayon::prelude::*;
        destination
            .par_chunks_mut(COPY_BYTES_PER_THREAD)
            .zip(source.par_chunks(COPY_BYTES_PER_THREAD))
            .for_each(|(d, s)| copy(d, s));
        return;
    }
    copy(destination, source);
}

/// Faults in the pages of `destination` that are not in memory yet (a fresh result's; the
/// caller's slices are already), by several threads, with Linux's `MADV_POPULATE_WRITE`: the
/// kernel maps a chunk's pages in one call instead of one fault per page, and never changes
/// what they hold. The caller runs it while the GPU works, so the readback's copy finds them
/// mapped (`tuning::prefault_wanted` says from what size that pays). Where the kernel predates
/// it (Linux 5.14), the first refusal turns it off.
#[cfg(target_os = "linux")]
fn prefault(destination: &mut [MaybeUninit<u8>]) {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    static UNSUPPORTED: AtomicBool = AtomicBool::new(false);
    if !crate::tuning::prefault_wanted(destination.len()) || UNSUPPORTED.load(Ordering::Relaxed) {
        return;
    }
    destination
        .par_chunks_mut(COPY_BYTES_PER_THREAD)
        .for_each(|chunk| {
            let start = (chunk.as_mut_ptr() as usize).next_multiple_of(PAGE);
            let end = (chunk.as_mut_ptr() as usize + chunk.len()) / PAGE * PAGE;
            if end <= start || page_in_memory(start) {
                return;
            }
            // SAFETY: [start, end) holds whole pages of `chunk`, memory this process owns and
            // borrows mutably here. MADV_POPULATE_WRITE maps the range's missing pages (as
            // zeroed pages, like a first write would) and leaves every byte's value as it was.
            unsafe {
                let populated = libc::madvise(
                    start as *mut libc::c_void,
                    end - start,
                    libc::MADV_POPULATE_WRITE,
                );
                if populated != 0
                    && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL)
                {
                    UNSUPPORTED.store(true, Ordering::Relaxed);
                }
            }
        });
}

#[cfg(not(target_os = "linux"))]
fn prefault(_destination: &mut [MaybeUninit<u8>]) {}

/// Bytes of a base page on x86-64 (and ARM64's usual kernels); with larger pages, `prefault`'s
/// calls still cover whole pages of them.
#[cfg(target_os = "linux")]
const PAGE: usize = 4096;

/// Whether the page holding `address` (of memory this process owns) is in memory.
#[cfg(target_os = "linux")]
fn page_in_memory(address: usize) -> bool {
    let mut resident = 0u8;
    // SAFETY: mincore only reports on the page, which belongs to a live allocation.
    let status = unsafe {
        libc::mincore(
            (address / PAGE * PAGE) as *mut libc::c_void,
            PAGE,
            &mut resident,
        )
    };
    status == 0 && resident & 1 == 1
}

/// Bytes an element takes in each output: the key's, then the value's where there are values.
pub(crate) fn element_sizes(key: KeyType, value_size: usize) -> Vec<usize> {
    let mut sizes = vec![key.size() as usize];
    if value_size > 0 {
        sizes.push(value_size);
    }
    sizes
}

/// Consecutive ranges of at most `most` (positive) of `len` elements: a slice form's pieces.
pub(crate) fn piece_ranges(len: usize, most: usize) -> impl Iterator<Item = Range<usize>> {
    (0..len)
        .step_by(most)
        .map(move |start| start..(start + most).min(len))
}

/// Elements `range` of each output, an element of output i taking `sizes[i]` bytes.
pub(crate) fn outputs_at<'a>(
    outputs: &'a mut [&mut [MaybeUninit<u8>]],
    sizes: &[usize],
    range: &Range<usize>,
) -> Vec<&'a mut [MaybeUninit<u8>]> {
    outputs
        .iter_mut()
        .zip(sizes)
        .map(|(output, &size)| &mut output[scaled(range, size)])
        .collect()
}

/// The values (bytes of `size` each) of elements `range`, where there are values.
pub(crate) fn values_at<'a>(
    values: Option<(&'a [u8], u32)>,
    range: &Range<usize>,
) -> Option<(&'a [u8], u32)> {
    values.map(|(bytes, size)| (&bytes[scaled(range, size as usize)], size))
}

/// The bytes of elements `range`, each `size` bytes.
pub(crate) fn scaled(range: &Range<usize>, size: usize) -> Range<usize> {
    range.start * size..range.end * size
}

/// A part's result must be whole before it is read as such (the driver writes every element of
/// an output whose length it knows).
pub(crate) fn expect_written(written: usize, range: &Range<usize>) -> Result<(), Error> {
    if written == range.len() {
        return Ok(());
    }
    Err(Error::Validation(format!(
        "elements {range:?} came back with {written} of their {}",
        range.len()
    )))
}

/// A result vector being filled by the driver through its uninitialised bytes: no zeroing pass,
/// and [`Error::OutOfMemory`] where the host cannot hold it.
pub(crate) struct ResultVec<T> {
    vec: Vec<T>,
    len: usize,
}

impl<T: bytemuck::Pod> ResultVec<T> {
    /// Room for `len` elements.
    pub(crate) fn new(len: usize) -> Result<Self, Error> {
        let bytes = len.saturating_mul(std::mem::size_of::<T>());
        let mut vec: Vec<T> = Vec::new();
        vec.try_reserve_exact(len).map_err(|_| {
            Error::OutOfMemory(format!("no host memory for a result of {bytes} bytes"))
        })?;
        advise_huge_pages(vec.as_mut_ptr().cast(), bytes);
        Ok(ResultVec { vec, len })
    }

    /// The room, as bytes for the driver to write.
    pub(crate) fn bytes(&mut self) -> &mut [MaybeUninit<u8>] {
        let spare = &mut self.vec.spare_capacity_mut()[..self.len];
        // SAFETY: the same memory, as bytes that may be uninitialised.
        unsafe {
            std::slice::from_raw_parts_mut(
                spare.as_mut_ptr().cast::<MaybeUninit<u8>>(),
                std::mem::size_of_val(spare),
            )
        }
    }

    /// The vector of the first `written` elements: what [`run`] returned for this output, which
    /// it wrote in full.
    pub(crate) fn into_vec(mut self, written: usize) -> Vec<T> {
        let written = written.min(self.len);
        // SAFETY: the driver wrote the first `written` elements' bytes (it writes each output in
        // order from the start and returns how many elements it wrote), and T is Pod, so those
        // bytes are valid values.
        unsafe { self.vec.set_len(written) };
        self.vec
    }
}

/// Asks Linux to back the whole huge pages inside `bytes` at `start` (a new result's room) with
/// transparent huge pages where its policy is `madvise` (Debian's and Ubuntu's default), so
/// that the readback's first writes fault once per 2 MiB instead of once per 4 KiB. Filling a
/// fresh result with `copy_parallel` on the 2-core development machine (Linux 6.18, policy
/// `madvise`) took 7-14 ms for 16 MiB and 25-26 ms (median of 9) for 64 MiB, and 3-5 and 8-19
/// ms with the advice; issue 18's readbacks into a new `Vec` are bound by such faults (run 56).
/// On the H100's host (policy and defrag `madvise`) end to end times were level with and
/// without it (runs 219-220). A hint only: where the kernel gives no huge pages, nothing
/// changes.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *mut u8, bytes: usize) {
    /// Bytes of a transparent huge page on x86-64 (and ARM64 with 4 KiB pages).
    const HUGE_PAGE: usize = 2 << 20;
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize).saturating_add(bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        // SAFETY: [first, end) lies inside the vector's allocation, which this process owns;
        // the advice changes how its pages are backed, never what they hold, and an error (an
        // old kernel, a policy of `never`) leaves them as they were.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: *mut u8, _bytes: usize) {}

/// The caller's initialised slice as bytes to write into.
pub(crate) fn as_destination<T: bytemuck::Pod>(slice: &mut [T]) -> &mut [MaybeUninit<u8>] {
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(slice);
    // SAFETY: initialised bytes viewed as possibly uninitialised; the driver only writes
    // initialised bytes into them.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast(), bytes.len()) }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn resident(byte: *const MaybeUninit<u8>) -> bool {
        page_in_memory(byte as usize)
    }

    #[test]
    fn prefault_maps_a_fresh_result_and_keeps_what_is_written() {
        let len = 80 << 20;
        let mut result = ResultVec::<u8>::new(len).expect("80 MiB of host memory");
        let bytes = result.bytes();
        // What a readback copied already must survive, wherever it lies.
        for (i, b) in bytes[..3 << 20].iter_mut().enumerate() {
            b.write(i as u8 ^ 0x5a);
        }
        bytes[len - 1].write(7);
        prefault(bytes);
        // Pages are in memory now; those past the written ones only if the kernel can
        // populate them (Linux 5.14 and later).
        let far = &bytes[60 << 20] as *const MaybeUninit<u8>;
        let supported = resident(far);
        for (i, b) in bytes[..3 << 20].iter().enumerate() {
            // SAFETY: written above.
            assert_eq!(unsafe { b.assume_init() }, i as u8 ^ 0x5a, "byte {i}");
        }
        // SAFETY: written above.
        assert_eq!(unsafe { bytes[len - 1].assume_init() }, 7);
        if supported {
            assert!(resident(&bytes[(4 << 20) + 123]));
        }
        copy_parallel(bytes, &vec![3u8; len]);
        assert!(result.into_vec(len).iter().all(|&b| b == 3));
    }

    #[test]
    fn prefault_leaves_small_results_alone() {
        let mut result = ResultVec::<u8>::new(16 << 20).expect("16 MiB of host memory");
        let bytes = result.bytes();
        // The allocator may hand back memory in use before; only fresh pages say anything.
        let fresh = !resident(&bytes[8 << 20]);
        prefault(bytes);
        assert!(!fresh || !resident(&bytes[8 << 20]));
    }
}
