#!/usr/bin/env python3
"""Splits NVIDIA's Vulkan pipeline cache into each pipeline's machine code.

    WGMERGE_PIPELINE_CACHE=cache.bin cargo run --release --example pipeline_stats -- DIR
    python3 scripts/nvidia_sass.py cache.bin code/
    nvdisasm -b SM90 code/0.bin        # one file per pipeline, in the cache's order

The layout is what NVIDIA's driver 580 wrote (not documented): each pipeline is a zstd frame
(decompressed with the `zstd` program) holding an "NVDANVVMNVuc" container whose section 1 (its
size at byte 0x4c, its offset at 0x50) is the code, after 8 bytes of header. Register counts per
pipeline come from pipeline_stats itself; match files to pipelines by their code sizes there.
"""
import struct
import subprocess
import sys
from pathlib import Path

ZSTD_MAGIC = b"(\xb5/\xfd"
CONTAINER = b"NVDANVVMNVuc"


def main() -> None:
    data = Path(sys.argv[1]).read_bytes()
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    starts = []
    at = data.find(ZSTD_MAGIC)
    while at >= 0:
        starts.append(at)
        at = data.find(ZSTD_MAGIC, at + 4)
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(data)
        # Each frame is followed by the cache's next entry header, which zstd reports as
        # trailing garbage after writing the frame: its output is kept whatever it returns.
        raw = subprocess.run(
            ["zstd", "-d", "-c"], input=data[start:end], capture_output=True
        ).stdout
        if not raw.startswith(CONTAINER):
            print(f"{index}: not a code container")
            continue
        (size,) = struct.unpack_from("<I", raw, 0x4C)
        (offset,) = struct.unpack_from("<I", raw, 0x50)
        (out / f"{index}.bin").write_bytes(raw[offset + 8 : offset + 8 + size])
        print(f"{index}: {size} bytes of code")


if __name__ == "__main__":
    main()
