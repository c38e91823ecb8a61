#!/usr/bin/env bash
# docs/benchmarks.md's table on the device machine, in two calls of under ten minutes each (runs
# 357-358 took about 460 and 250 s on the H200). Build the benchmark here and copy it into .bin/
# (`cargo build --release --example bench && cp target/release/examples/bench .bin/`), then:
#
#   call 1: CUB=all bash .bin/on-device.sh bash scripts/device-bench.sh merge-and-sorts
#   call 2: bash .bin/on-device.sh bash scripts/device-bench.sh toolkit
#
# (../shared/device/README.md: carry .gl and .bin). Call 1 builds and runs the CUDA anchors before
# this script; copy its cub*.txt from $OUT into .bin/ before call 2, which reads them from there
# and also runs docs/anchors/cub_unique.cu (dedup's anchor). Each group runs in a time box and
# writes its rows to stderr as they are measured, so a group cut short keeps what it measured.
# What comes back: $OUT/log-SET.txt and $OUT/json-SET.tgz (SET the argument; one benchmark JSON
# per group inside, which `bench --input` prints).
set -uo pipefail
cd "$(dirname "$0")/.."
which=${1:?usage: device-bench.sh merge-and-sorts|toolkit}
anchors=.bin
[ -f "${OUT:-/nonexistent}/cub.txt" ] && anchors=$OUT
bench=".bin/bench --no-cpu --cub $anchors/cub.txt --cub-extra $anchors/cub_extra.txt"
bench+=" --cub-e2e $anchors/cub_e2e.txt --sizes 20,22,24,26,28"
json=$(mktemp -d)

group() { # name, seconds, then the benchmark's own arguments
    local name=$1 seconds=$2
    shift 2
    echo "==== $name $(date +%T)"
    timeout "$seconds" $bench --json "$json/$name.json" "$@" 2>&1
    echo "==== $name rc=$? $(date +%T)"
}

case "$which" in
merge-and-sorts)
    {
        group merge 170 --ops merge,pairs,transfer --algorithms merge-path --repeats 7 \
            --end-to-end-repeats 7
        group radix 200 --ops radix --repeats 5 --end-to-end-repeats 0
        group sort 150 --ops sort --algorithms merge-path --repeats 5 --end-to-end-repeats 0
    } 2>&1 | tee "$OUT/log-$which.txt"
    ;;
toolkit)
    {
        # Built while the benchmark runs; waited on by its PID, a child of this group.
        nvcc -O3 -std=c++17 -arch=sm_90 docs/anchors/cub_unique.cu -o /tmp/cub_unique \
            >/tmp/cub_unique.log 2>&1 &
        build=$!
        group toolkit 300 --ops set,search,dedup,many --algorithms merge-path --repeats 5 \
            --end-to-end-repeats 0
        group scan 90 --ops scan,reduce --repeats 7 --end-to-end-repeats 0
        echo "==== cub_unique"
        wait "$build" && timeout 60 /tmp/cub_unique || cat /tmp/cub_unique.log
    } 2>&1 | tee "$OUT/log-$which.txt"
    ;;
*)
    echo "unknown group set: $which" >&2
    exit 2
    ;;
esac
tar czf "$OUT/json-$which.tgz" -C "$json" .
