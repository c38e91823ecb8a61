//! Bad input and options give a clear `Error`, never a panic.

mod common;

use common::*;
use rand::Rng;
use wgmerge::{
    Algorithm, Error, Gpu, KeyType, MergeBuffers, MergeOptions, Order, Side, SortBuffers,
};

fn buffer(size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    gpu_buffer(gpu(), size, usage)
}

fn gpu_buffer(gpu: &Gpu, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage,
        mapped_at_creation: false,
    })
}

#[test]
fn options_out_of_range_are_rejected() {
    let bad = [
        MergeOptions {
            workgroup_size: Some(0),
            ..Default::default()
        },
        MergeOptions {
            workgroup_size: Some(1 << 20),
            ..Default::default()
        },
        MergeOptions {
            items_per_thread: Some(0),
            ..Default::default()
        },
        MergeOptions {
            items_per_thread: Some(65),
            ..Default::default()
        },
        MergeOptions {
            tiles_per_workgroup: Some(0),
            ..Default::default()
        },
        // 2 x 256 x 64 keys of tiles is 128 KiB of workgroup memory.
        MergeOptions {
            algorithm: Algorithm::CircularBuffer,
            workgroup_size: Some(256),
            items_per_thread: Some(64),
            ..Default::default()
        },
    ];
    for options in bad {
        let result = gpu().merge_with(&[1, 2], &[3], &options);
        assert!(
            matches!(result, Err(Error::InvalidOptions(_))),
            "{options:?}: {result:?}"
        );
        // Options are checked even when there is nothing to merge.
        assert!(matches!(
            gpu().merge_with::<u32>(&[], &[], &options),
            Err(Error::InvalidOptions(_))
        ));
    }
}

#[test]
fn mismatched_keys_and_values_are_rejected() {
    let result = gpu().merge_pairs(&[1, 2], &[10u32], &[3], &[30u32]);
    assert!(
        matches!(
            result,
            Err(Error::LengthMismatch {
                left: 2,
                right: 1,
                ..
            })
        ),
        "{result:?}"
    );
    let result = gpu().merge_pairs(&[1], &[10u32], &[3], &[30u32, 40]);
    assert!(
        matches!(result, Err(Error::LengthMismatch { .. })),
        "{result:?}"
    );
}

#[test]
fn values_must_be_four_or_eight_bytes() {
    let result = gpu().merge_pairs(&[1u32], &[10u16], &[3], &[30u16]);
    assert!(
        matches!(result, Err(Error::InvalidOptions(_))),
        "{result:?}"
    );
    let result = gpu().merge_pairs(&[1u32], &[10u128], &[3], &[30u128]);
    assert!(
        matches!(result, Err(Error::InvalidOptions(_))),
        "{result:?}"
    );
}

#[test]
fn resident_buffers_are_checked() {
    let gpu = gpu();
    let scratch = gpu.create_scratch();
    let storage = wgpu::BufferUsages::STORAGE;
    let (a, b) = (buffer(400, storage), buffer(400, storage));
    let small_out = buffer(796, storage);
    let no_storage = buffer(800, wgpu::BufferUsages::COPY_DST);
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let mut buffers = MergeBuffers {
        a: &a,
        a_len: 100,
        b: &b,
        b_len: 100,
        out: &small_out,
        values: None,
    };
    let result =
        gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &MergeOptions::default());
    assert!(
        matches!(
            result,
            Err(Error::BufferTooSmall {
                buffer: "out",
                needed: 800,
                actual: 796
            })
        ),
        "{result:?}"
    );
    buffers.out = &no_storage;
    let result =
        gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &MergeOptions::default());
    assert!(
        matches!(result, Err(Error::MissingUsage { buffer: "out", .. })),
        "{result:?}"
    );
    buffers.a_len = 101;
    let result =
        gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &MergeOptions::default());
    assert!(
        matches!(result, Err(Error::BufferTooSmall { buffer: "a", .. })),
        "{result:?}"
    );
}

/// Buffers of another device of the same wgpu instance.
#[test]
fn buffers_of_another_device_are_rejected() {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    let [(device, queue), (other, _)] = [0, 1]
        .map(|_| pollster::block_on(adapter.request_device(&Default::default())).expect("device"));
    let gpu = &Gpu::from_device(device, queue);
    check_backend(gpu);
    let storage = wgpu::BufferUsages::STORAGE;
    let ours = gpu_buffer(gpu, 800, storage);
    let theirs = other.create_buffer(&wgpu::BufferDescriptor {
        label: Some("theirs"),
        size: 800,
        usage: storage,
        mapped_at_creation: false,
    });
    let scratch = gpu.create_scratch();
    for algorithm in Algorithm::ALL {
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let buffers = MergeBuffers {
            a: &ours,
            a_len: 100,
            b: &ours,
            b_len: 100,
            out: &theirs,
            values: None,
        };
        let result = gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &options(algorithm));
        assert!(
            matches!(result, Err(Error::Validation(_))),
            "{algorithm:?}: {result:?}"
        );
        // Nothing was recorded: the encoder is still good.
        gpu.queue().submit([encoder.finish()]);
    }
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let sort = SortBuffers {
        keys: &ours,
        temp: &theirs,
        len: 100,
        values: None,
    };
    let result = gpu.encode_sort::<u32>(&mut encoder, &scratch, &sort, &Default::default());
    assert!(
        matches!(result, Err(Error::Validation(_))),
        "sort: {result:?}"
    );
    gpu.queue().submit([encoder.finish()]);
    // The Gpu goes on working.
    assert_eq!(gpu.merge(&[1u32, 3], &[2]).unwrap(), [1, 2, 3]);
}

#[test]
fn resident_inputs_beyond_the_binding_limit_are_rejected() {
    // 1 KiB bindings: 256 u32 keys, 128 u64 keys or u32 keys with 8-byte values.
    let gpu = gpu_with_binding_limit(1024);
    assert_eq!(gpu.max_merge_len(KeyType::U32, 0), 256);
    assert_eq!(gpu.max_merge_len(KeyType::U32, 8), 128);
    assert_eq!(gpu.max_merge_len(KeyType::I64, 4), 128);
    let storage = wgpu::BufferUsages::STORAGE;
    let (a, b, out) = (
        gpu_buffer(&gpu, 2048, storage),
        gpu_buffer(&gpu, 2048, storage),
        gpu_buffer(&gpu, 4096, storage),
    );
    let scratch = gpu.create_scratch();
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let buffers = |a_len, b_len| MergeBuffers {
        a: &a,
        a_len,
        b: &b,
        b_len,
        out: &out,
        values: None,
    };
    let options = MergeOptions::default();
    gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers(200, 56), &options)
        .unwrap();
    let result = gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers(200, 57), &options);
    assert!(
        matches!(
            result,
            Err(Error::TooLarge {
                len: 257,
                max: 256,
                ..
            })
        ),
        "{result:?}"
    );
    let result = gpu.encode_merge::<u64>(&mut encoder, &scratch, &buffers(100, 29), &options);
    assert!(
        matches!(result, Err(Error::TooLarge { max: 128, .. })),
        "{result:?}"
    );
    // A resident sort must fit one binding too; the slice forms sort pieces that fit and merge
    // them.
    let sort_buffers = SortBuffers {
        keys: &a,
        temp: &b,
        len: 257,
        values: None,
    };
    let result = gpu.encode_sort::<u32>(&mut encoder, &scratch, &sort_buffers, &Default::default());
    assert!(
        matches!(
            result,
            Err(Error::TooLarge {
                len: 257,
                max: 256,
                ..
            })
        ),
        "{result:?}"
    );
    let keys: Vec<u32> = (0..257).rev().collect();
    assert_eq!(gpu.sort(&keys).unwrap(), (0..257).collect::<Vec<u32>>());
    let values: Vec<u64> = keys.iter().map(|&k| u64::from(k) << 32).collect();
    let (sorted, moved) = gpu.sort_pairs(&keys[..129], &values[..129]).unwrap();
    assert_eq!(sorted, (128..257).collect::<Vec<u32>>());
    assert_eq!(moved, (128..257).map(|k| k << 32).collect::<Vec<u64>>());
}

#[test]
fn every_algorithm_within_webgpu_default_limits() {
    let mut rng = rng("webgpu_default_limits");
    for limits in [wgpu::Limits::default(), wgpu::Limits::downlevel_defaults()] {
        let gpu = gpu_with_limits(|_| limits.clone());
        for algorithm in Algorithm::ALL {
            let (a, b) = Shape::HeavyDuplicates.generate(&mut rng, 30_000, 20_001);
            let got = gpu.merge_with(&a, &b, &options(algorithm)).unwrap();
            assert_same(
                &got,
                &wgmerge::cpu::merge(&a, &b),
                &format!("{algorithm:?} {limits:?}"),
            );
            // Several tiles per workgroup: merge path's keys-only chunks bind a fifth storage
            // buffer (their counter); within 4 the fixed runs of tiles merge instead.
            let tiled = MergeOptions {
                tiles_per_workgroup: Some(4),
                ..options(algorithm)
            };
            assert_same(
                &gpu.merge_with(&a, &b, &tiled).unwrap(),
                &wgmerge::cpu::merge(&a, &b),
                &format!("{algorithm:?} 4 tiles {limits:?}"),
            );
            let values = vec![0u32; a.len()];
            let pairs =
                gpu.merge_pairs_with(&a, &values, &b, &values[..b.len()], &options(algorithm));
            if limits.max_storage_buffers_per_shader_stage >= 6 {
                assert!(pairs.is_ok(), "{pairs:?}");
            } else {
                // downlevel_defaults allows 4 storage buffers; pairs need 6.
                assert!(matches!(pairs, Err(Error::Unsupported(_))), "{pairs:?}");
            }
        }
        // Merge sort's block pass and merge passes in their default shape, for every key width.
        let (a, b) = Shape::HeavyDuplicates.generate(&mut rng, 30_000, 20_001);
        let keys: Vec<u32> = b.iter().chain(&a).copied().collect();
        let mut want = keys.clone();
        want.sort();
        assert_same(
            &gpu.sort(&keys).unwrap(),
            &want,
            &format!("sort {limits:?}"),
        );
        let wide: Vec<i64> = keys.iter().map(|&k| i64::from(k) - 4).collect();
        let mut want_wide = wide.clone();
        want_wide.sort();
        assert_same(
            &gpu.sort(&wide).unwrap(),
            &want_wide,
            &format!("i64 sort {limits:?}"),
        );
        let values = vec![0u32; keys.len()];
        let pairs = gpu.sort_pairs(&keys, &values);
        assert_eq!(
            pairs.is_ok(),
            limits.max_storage_buffers_per_shader_stage >= 6,
            "{pairs:?}"
        );
        // Set operations: 4 storage buffers for keys, 7 with values.
        for operation in wgmerge::SetOperation::ALL {
            assert_same(
                &gpu.set_operation(operation, &a, &b).unwrap(),
                &wgmerge::cpu::set_operation(operation, &a, &b),
                &format!("{operation:?} {limits:?}"),
            );
            let pairs =
                gpu.set_operation_pairs(operation, &a, &values[..a.len()], &b, &values[..b.len()]);
            if limits.max_storage_buffers_per_shader_stage >= 7 {
                assert!(pairs.is_ok(), "{pairs:?}");
            } else {
                assert!(matches!(pairs, Err(Error::Unsupported(_))), "{pairs:?}");
            }
        }
    }
}

#[test]
fn validate_reports_the_first_unsorted_key() {
    let mut rng = rng("validate_reports_the_first_unsorted_key");
    for algorithm in Algorithm::ALL {
        for order in [Order::Ascending, Order::Descending] {
            for max_piece_len in [None, Some(1000)] {
                let options = MergeOptions {
                    algorithm,
                    order,
                    max_piece_len,
                    validate: true,
                    ..Default::default()
                };
                let (a, b) = Shape::HeavyDuplicates.keys::<i64>(&mut rng, 5000, 3001, order);
                let context = format!("{options:?}");
                // Sorted input passes and merges.
                check_merge(&a, &b, &options, &context);
                for (side, spoil_a) in [(Side::A, true), (Side::B, false)] {
                    let keys = if spoil_a { &a } else { &b };
                    // Piece joins (multiples of 1000 in the output) and the last key included.
                    for index in [
                        1,
                        999,
                        1000,
                        rng.random_range(1..keys.len()),
                        keys.len() - 1,
                    ] {
                        let mut keys_now = keys.clone();
                        // A key that belongs before every other one, at `index`.
                        let first = if order == Order::Ascending {
                            i64::MIN
                        } else {
                            i64::MAX
                        };
                        keys_now[index] = first;
                        let (a, b) = if spoil_a {
                            (keys_now, b.clone())
                        } else {
                            (a.clone(), keys_now)
                        };
                        let result = gpu().merge_with(&a, &b, &options);
                        assert!(
                            matches!(result, Err(Error::Unsorted { side: s, index: i, .. }) if s == side && i == index),
                            "{context} {side:?} {index}: {result:?}"
                        );
                        let values = vec![0u32; a.len()];
                        let pairs =
                            gpu().merge_pairs_with(&a, &values, &b, &values[..b.len()], &options);
                        assert!(
                            matches!(pairs, Err(Error::Unsorted { side: s, index: i, .. }) if s == side && i == index),
                            "pairs {context} {side:?} {index}: {pairs:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn validate_is_refused_by_the_resident_form() {
    let gpu = gpu();
    let a = buffer(16, wgpu::BufferUsages::STORAGE);
    let buffers = MergeBuffers {
        a: &a,
        a_len: 2,
        b: &a,
        b_len: 2,
        out: &a,
        values: None,
    };
    let options = MergeOptions {
        validate: true,
        ..Default::default()
    };
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let result = gpu.encode_merge::<u32>(&mut encoder, &gpu.create_scratch(), &buffers, &options);
    assert!(
        matches!(result, Err(Error::InvalidOptions(_))),
        "{result:?}"
    );
    let result = gpu.merge_resident::<u32>(&buffers, &options);
    assert!(
        matches!(result, Err(Error::InvalidOptions(_))),
        "{result:?}"
    );
}

#[test]
fn gpu_is_send_and_sync() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Gpu>();
    shareable::<wgmerge::Scratch>();
    shareable::<Error>();
}

/// A device whose largest buffer is no larger than its largest binding: the slice forms stage
/// keys and values separately, in pieces, so only one binding per array bounds them.
#[test]
fn pieces_fit_the_largest_buffer() {
    let gpu = gpu_with_limits(|l| wgpu::Limits {
        max_storage_buffer_binding_size: 1024,
        max_buffer_size: 1024,
        ..l
    });
    let mut rng = rng("pieces_fit_the_largest_buffer");
    let (a, b) = Shape::HeavyDuplicates.generate(&mut rng, 700, 555);
    let a_values: Vec<u64> = (0..a.len() as u64).collect();
    let b_values: Vec<u64> = (0..b.len() as u64).map(|i| i + 1000).collect();
    let got = gpu
        .merge_pairs(&a, &a_values, &b, &b_values)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got, wgmerge::cpu::merge_pairs(&a, &a_values, &b, &b_values));
    // A sort of more than one binding (1024 bytes of 8-byte values: 128) sorts pieces that fit
    // and merges them.
    let keys: Vec<u32> = (0..300).rev().collect();
    let values: Vec<u64> = (0..keys.len() as u64).collect();
    let (sorted, moved) = gpu
        .sort_pairs(&keys, &values)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sorted, (0..300).collect::<Vec<u32>>());
    assert_eq!(moved, (0..300).rev().collect::<Vec<u64>>());
}

/// A buffer of another wgpu `Instance`: wgpu resolves buffers by ids unique only within their
/// instance, so without a check it would bind one of ours, or panic inside wgpu. It is an error,
/// and the Gpu goes on working.
#[test]
fn buffers_of_another_instance_are_rejected() {
    let gpu = gpu();
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    let (device, _queue) =
        pollster::block_on(adapter.request_device(&Default::default())).expect("device");
    // The same sizes as ours, so that an id that happens to match ours would bind silently.
    let theirs = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("theirs"),
        size: 800,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let ours = buffer(800, wgpu::BufferUsages::STORAGE);
    let out = buffer(1600, wgpu::BufferUsages::STORAGE);
    let scratch = gpu.create_scratch();
    for (a, b) in [(&theirs, &ours), (&ours, &theirs)] {
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let buffers = MergeBuffers {
            a,
            a_len: 200,
            b,
            b_len: 200,
            out: &out,
            values: None,
        };
        let result =
            gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &MergeOptions::default());
        assert!(matches!(result, Err(Error::Validation(_))), "{result:?}");
        gpu.queue().submit([encoder.finish()]);
    }
    assert_eq!(gpu.merge(&[1u32, 3], &[2]).unwrap(), [1, 2, 3]);
}

/// A buffer bound both for reading and writing (or twice for writing) is an error before
/// anything is recorded, not a panic in the caller's `encoder.finish()`.
#[test]
fn aliased_buffers_are_rejected() {
    let gpu = gpu();
    let scratch = gpu.create_scratch();
    let x = buffer(4096, wgpu::BufferUsages::STORAGE);
    let y = buffer(4096, wgpu::BufferUsages::STORAGE);
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let merge = |a, b, out| MergeBuffers {
        a,
        a_len: 100,
        b,
        b_len: 100,
        out,
        values: None,
    };
    let options = MergeOptions::default();
    for (buffers, first, second) in [
        (merge(&x, &y, &x), "a", "out"),
        (merge(&y, &x, &x), "b", "out"),
    ] {
        let result = gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &options);
        assert!(
            matches!(result, Err(Error::Aliased { first: f, second: s }) if f == first && s == second),
            "{result:?}"
        );
    }
    // A and B may share a buffer: both are only read.
    gpu.encode_merge::<u32>(&mut encoder, &scratch, &merge(&x, &x, &y), &options)
        .unwrap();
    let sort = SortBuffers {
        keys: &x,
        temp: &x,
        len: 100,
        values: None,
    };
    let result = gpu.encode_sort::<u32>(&mut encoder, &scratch, &sort, &Default::default());
    assert!(matches!(result, Err(Error::Aliased { .. })), "{result:?}");
    // The encoder is still good.
    gpu.queue().submit([encoder.finish()]);
}

/// Operations recorded into one submission may share one scratch: each has parameters of its
/// own, and the GPU runs them in order.
#[test]
fn one_scratch_serves_operations_in_one_submission() {
    let gpu = gpu();
    let scratch = gpu.create_scratch();
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let (a1, b1, out1) = (
        storage_buffer(&[1, 3, 5, 7]),
        storage_buffer(&[2, 4, 6, 8]),
        buffer(32, usage),
    );
    let (a2, b2, out2) = (
        storage_buffer(&[1, 3]),
        storage_buffer(&[2]),
        buffer(12, usage),
    );
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    for (a, a_len, b, b_len, out) in [(&a1, 4, &b1, 4, &out1), (&a2, 2, &b2, 1, &out2)] {
        let buffers = MergeBuffers {
            a,
            a_len,
            b,
            b_len,
            out,
            values: None,
        };
        gpu.encode_merge::<u32>(&mut encoder, &scratch, &buffers, &MergeOptions::default())
            .unwrap();
    }
    gpu.queue().submit([encoder.finish()]);
    assert_eq!(read_buffer(&out1, 8), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(read_buffer(&out2, 3), [1, 2, 3]);
}

/// The message of an unsorted input names both keys and the order.
#[test]
fn unsorted_names_the_keys() {
    let options = MergeOptions {
        validate: true,
        ..Default::default()
    };
    let error = gpu().merge_with(&[3u32, 1], &[2], &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        "input A is not sorted: A[1] = 1 comes before A[0] = 3, order ascending"
    );
}

/// A large merge's future returns `Pending` while the GPU works, and completes from wgpu's
/// callbacks (the Gpu's poller thread drives the device), on an executor that never polls the
/// device itself: the async forms do not block their thread.
///
/// Whether one merge ever finds a callback still outstanding is a race: lavapipe runs a
/// submission inside `submit`, and on a loaded machine the poller can deliver every callback
/// before this thread awaits it. So the merge is tried a few times; a form that blocked inside
/// `device.poll` would return `Pending` in none of them.
#[test]
fn async_forms_return_pending_and_complete() {
    use std::future::Future;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    /// Counts its wake-ups and unparks the executor's thread.
    struct Counting {
        thread: std::thread::Thread,
        wakes: AtomicUsize,
    }
    impl Wake for Counting {
        fn wake(self: Arc<Self>) {
            self.wakes.fetch_add(1, Ordering::SeqCst);
            self.thread.unpark();
        }
    }
    const ATTEMPTS: usize = 8;
    let gpu = gpu();
    let mut rng = rng("async_forms_return_pending_and_complete");
    let (a, b) = Shape::Uniform.generate(&mut rng, 1 << 20, (1 << 20) + 17);
    let expected = wgmerge::cpu::merge(&a, &b);
    let options = MergeOptions::default();
    for attempt in 1..=ATTEMPTS {
        let waker_state = Arc::new(Counting {
            thread: std::thread::current(),
            wakes: AtomicUsize::new(0),
        });
        let waker = Waker::from(waker_state.clone());
        let mut context = Context::from_waker(&waker);
        let mut future = std::pin::pin!(gpu.merge_async(&a, &b, &options));
        let mut pending = 0;
        let merged = loop {
            match future.as_mut().poll(&mut context) {
                Poll::Ready(result) => break result.unwrap(),
                Poll::Pending => {
                    pending += 1;
                    std::thread::park_timeout(std::time::Duration::from_secs(5));
                }
            }
        };
        assert_same(&merged, &expected, "async merge");
        if pending >= 1 {
            assert!(
                waker_state.wakes.load(Ordering::SeqCst) >= 1,
                "the future was never woken: it did not complete from a callback"
            );
            println!("async merge: {pending} Pending polls in attempt {attempt}");
            return;
        }
    }
    panic!("the future never returned Pending in {ATTEMPTS} merges");
}
