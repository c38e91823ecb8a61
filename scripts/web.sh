#!/usr/bin/env bash
# The browser demo (web/): builds the crate for wasm32 with wasm-bindgen, then
#   bash scripts/web.sh          serves it on http://localhost:${PORT:-8000}/ (open it in a
#                                browser with WebGPU: Chrome, Edge, Firefox 141+, Safari 26+)
#   bash scripts/web.sh test     drives it in headless Chromium: every operation must be correct;
#                                saves target/web/screenshot.png
#   bash scripts/web.sh build    only builds web/pkg
# Installs what is missing: the wasm32 target, wasm-bindgen-cli at the version in Cargo.lock
# and, for `test`, Debian's Chromium and the npm package playwright-core (web/package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-gpu.sh
mode="${1:-serve}"

build() {
    rustup target list --installed | grep -qx wasm32-unknown-unknown ||
        rustup target add wasm32-unknown-unknown
    # The CLI must match the wasm-bindgen crate exactly.
    local version
    version="$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')"
    if [ "$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2)" != "$version" ]; then
        echo "installing wasm-bindgen-cli $version" >&2
        cargo install --quiet wasm-bindgen-cli --version "$version"
    fi
    cargo build --release -p wgmerge-web --target wasm32-unknown-unknown
    wasm-bindgen --target web --no-typescript --out-dir web/pkg \
        target/wasm32-unknown-unknown/release/wgmerge_web.wasm
}

# Serves web/ on $1 in the background; its pid in $server. A port some other server holds is an
# error: that server would answer the test with its own page (two checkouts testing at once).
serve_background() {
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
        echo "port $1 is already taken; set PORT to another" >&2
        return 1
    fi
    python3 -m http.server --bind 127.0.0.1 --directory web "$1" >/dev/null 2>&1 &
    server=$!
    for _ in $(seq 50); do
        kill -0 "$server" 2>/dev/null || break
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "the demo's server did not start on port $1" >&2
    return 1
}

case "$mode" in
build)
    build
    ;;
serve)
    build
    port="${PORT:-8000}"
    echo "wgmerge demo: http://localhost:$port/"
    exec python3 -m http.server --bind 127.0.0.1 --directory web "$port"
    ;;
test)
    build
    command -v chromium >/dev/null || apt_install chromium
    (cd web && npm ci --no-audit --no-fund --loglevel=error)
    port="${PORT:-8765}"
    serve_background "$port"
    trap 'kill $server' EXIT
    mkdir -p target/web
    node web/test.mjs "http://127.0.0.1:$port/" "$PWD/target/web/screenshot.png" "${WEB_KEYS:-30001}"
    ;;
*)
    echo "usage: bash scripts/web.sh [serve|test|build]" >&2
    exit 2
    ;;
esac
