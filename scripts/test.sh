#!/usr/bin/env bash
# The tests: every kernel against the CPU reference on the default GPU (installing Mesa's lavapipe
# where there is none). On Linux the tests must run on the backend in WGPU_BACKEND (vulkan by
# default) and print the adapter each kernel ran on.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-gpu.sh
if [ -n "${WGPU_BACKEND:-}" ]; then
    export WGMERGE_EXPECT_BACKEND="${WGMERGE_EXPECT_BACKEND:-$WGPU_BACKEND}"
fi
cargo test --release -- --show-output "$@"
