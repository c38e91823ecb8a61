#!/usr/bin/env bash
# The main job: merges two generated sorted arrays on the default GPU with every algorithm,
# checks each result against the CPU reference and prints sizes, times and the adapter.
# Arguments go to the example, e.g. `bash scripts/example.sh --log2 24,26`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-gpu.sh
cargo run --release --example merge -- "$@"
