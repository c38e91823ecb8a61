#!/usr/bin/env bash
# The tests: every kernel against the CPU reference on the default GPU (installing Mesa's lavapipe
# where there is none). On Linux the tests must run on the backend in WGPU_BACKEND (vulkan by
# default) and print the adapter each kernel ran on; then they run again on OpenGL (llvmpipe).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-gpu.sh
if [ -n "${WGPU_BACKEND:-}" ]; then
    export WGMERGE_EXPECT_BACKEND="${WGMERGE_EXPECT_BACKEND:-$WGPU_BACKEND}"
fi
cargo test --release -- --show-output "$@"

# The same suite again on wgpu's OpenGL backend over Mesa's llvmpipe (Linux; the build is shared,
# only the adapter changes). WGMERGE_GL=0 skips it.
if [ "$(uname -s)" = Linux ] && [ "${WGMERGE_GL:-1}" != 0 ] && [ "$WGPU_BACKEND" != gl ]; then
    ensure_gl_driver
    # This run builds the kernels with naga's runtime checks (bounds checks, loop bounding), the
    # Vulkan run above without, as wgmerge does by default: the suite covers both builds.
    # One test at a time: wgpu's OpenGL backend gives up on its context lock after 6 s, and
    # llvmpipe compiling one large kernel (with runtime checks) for a test on a 2-core machine
    # held it longer while another test waited (set tests, 2026-11-27, with the shader cache cold).
    echo "---- the test suite on OpenGL (llvmpipe), kernels with runtime checks ----"
    WGPU_BACKEND=gl WGMERGE_EXPECT_BACKEND=gl WGMERGE_RUNTIME_CHECKS=1 \
        cargo test --release -- --show-output --test-threads=1 "$@"
fi

# The browser demo on WebGPU in headless Chromium (SwiftShader here): every operation and key type
# must match the CPU reference. WGMERGE_WEB=0 skips it.
if [ "${WGMERGE_WEB:-1}" != 0 ]; then
    echo "---- the demo page on WebGPU in headless Chromium ----"
    bash scripts/web.sh test
fi
