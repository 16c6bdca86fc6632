#!/usr/bin/env bash
# Builds the playground into web/dist/ (docs/web.md): the WebAssembly
# module (web/src, with Debian's Rust for the web, which carries the
# standard library's source to build for wasm32-unknown-unknown), the page
# (web/page, bundled with esbuild), the lessons, example programs and
# grids. Installs what it needs: the Debian packages (as root, with apt)
# and the npm packages (in web/node_modules). Serve web/dist/ with any
# static server: `python3 -m http.server -d web/dist 8000`.
set -euo pipefail
cd "$(dirname "$0")"
web=$PWD
root=$(cd .. && pwd)

# The toolchain: rustup cannot fetch a wasm32 standard library here, so
# Debian's rustc-web builds one from its source (-Zbuild-std).
need=()
[ -x /usr/bin/rustc ] && /usr/bin/rustc --version | grep -q . || need+=(rustc-web)
[ -x /usr/bin/cargo ] || need+=(cargo-web)
[ -d /usr/lib/rustlib/src/rust/library ] || need+=(rust-web-src)
command -v wasm-ld-22 >/dev/null || need+=(lld-22)
if [ ${#need[@]} -gt 0 ]; then
  echo "build.sh: installing ${need[*]}" >&2
  if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq rustc-web cargo-web rust-web-src lld-22 >&2
fi

# Another cargo's settings (a test run by `cargo test` has some) are not
# this build's: it has its own toolchain and target folder (web/target).
unset RUSTC RUSTDOC RUSTC_WRAPPER RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_TARGET_DIR \
  CARGO_BUILD_TARGET CARGO_BUILD_TARGET_DIR CARGO_MAKEFLAGS
echo "build.sh: the module (release, for size: a few minutes the first time)" >&2
PATH=/usr/bin:$PATH RUSTC_BOOTSTRAP=1 \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-22 \
  cargo build --release --target wasm32-unknown-unknown \
  -Zbuild-std=std,panic_abort --manifest-path "$web/Cargo.toml" >&2

echo "build.sh: the page" >&2
[ -d node_modules/codemirror ] && [ -d node_modules/esbuild ] || npm install --no-audit --no-fund >&2
rm -rf dist
mkdir -p dist/programs dist/grids dist/lessons
# Split: Graphviz (for `:graph`) loads only when a graph is drawn.
npx esbuild page/main.js --bundle --minify --format=esm --splitting --outdir=dist >&2
cp page/index.html page/style.css page/worker.js page/gph.js dist/
cp target/wasm32-unknown-unknown/release/gph_web.wasm dist/gph.wasm
cp "$root"/programs/*.gph dist/programs/
cp "$root"/programs/grids/*.toml dist/grids/
cp "$root"/docs/teaching/*.md "$root"/docs/teaching/*.svg dist/lessons/
# What the worker provides as files (`:load programs/sumEuler.gph`) and
# the grid menu.
(cd dist && python3 -c '
import glob, json
json.dump(sorted(glob.glob("programs/*.gph")), open("files.json", "w"))
json.dump(sorted(glob.glob("grids/*.toml")), open("grids.json", "w"))
')
size=$(stat -c %s dist/gph.wasm)
gz=$(gzip -9 -c dist/gph.wasm | wc -c)
echo "build.sh: dist/ ready; gph.wasm $((size / 1024)) KiB, $((gz / 1024)) KiB gzipped" >&2
