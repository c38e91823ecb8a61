//! An allocation the device refuses comes back as `Error::OutOfMemory`, and the `Gpu` stays
//! usable. A software adapter (lavapipe, llvmpipe) allocates device memory from the process, so
//! capping the process's address space just above what it uses makes the device refuse the
//! merge's buffers. Its own binary: the cap holds for the whole process. On wgpu's GL backend a
//! refused buffer loses the device instead (`Error::DeviceLost`).
#![cfg(target_os = "linux")]

mod common;

use common::*;
use wgmerge::Error;

/// The process's address space in bytes (VmSize).
fn address_space() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmSize:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmSize");
    kib * 1024
}

fn cap_address_space(bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: setrlimit reads the struct we pass and changes nothing else in this process.
    let result = unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    assert_eq!(result, 0, "setrlimit: {}", std::io::Error::last_os_error());
}

#[test]
fn allocations_the_device_refuses_are_out_of_memory() {
    let gpu = gpu();
    let info = gpu.adapter_info();
    if info.device_type != wgpu::DeviceType::Cpu {
        eprintln!(
            "skipped: {} has memory of its own that a process limit does not bound",
            adapter_line(gpu)
        );
        return;
    }
    // Warm up: pipelines built, staging in place, before the cap.
    let small: Vec<u32> = (0..10_000).collect();
    assert_eq!(
        gpu.merge(&small, &small).expect("a small merge").len(),
        20_000
    );
    // Merging 2 x 64 Mi keys needs 512 MiB for the result and as much again on the device;
    // sorting 16 Mi keys needs 192 MiB on the device before its result.
    let large = vec![7u32; 1 << 26];
    let unsorted: Vec<u32> = (0..1u32 << 24).rev().collect();
    let merge = || gpu.merge(&large, &large).map(|keys| keys.len());
    let sort = || gpu.sort(&unsorted).map(|keys| keys.len());
    type Operation<'a> = &'a dyn Fn() -> Result<usize, Error>;
    let cases: [(&str, Operation, u64); 3] = [
        ("merge, host memory for the result", &merge, 64 << 20),
        ("merge, device buffers", &merge, (512 + 64) << 20),
        ("sort, device buffers", &sort, 64 << 20),
    ];
    for (what, operation, room) in cases {
        cap_address_space(address_space() + room);
        let refused = operation();
        cap_address_space(libc::RLIM_INFINITY);
        match refused {
            Err(Error::OutOfMemory(message)) => eprintln!("{what}: refused: {message}"),
            // wgpu's GL backend reports a buffer the driver cannot allocate as a lost device;
            // that is an error too, but the device is gone for good.
            Err(Error::DeviceLost(message)) if info.backend == wgpu::Backend::Gl => {
                eprintln!("{what}: the GL device was lost: {message}");
                return;
            }
            other => panic!("{what}: expected Error::OutOfMemory, got {other:?}"),
        }
    }
    // Nothing was lost: the same Gpu merges again.
    assert_eq!(
        gpu.merge(&small, &small).expect("a merge after").len(),
        20_000
    );
}
