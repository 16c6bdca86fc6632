#!/usr/bin/env bash
# bench/cores.sh DIR: packs what measuring gph on a many-core machine needs
# into DIR, for a machine with no Rust toolchain and no network (a stripped
# release gph, the programs, GHC's static binaries of the same programs and
# the runner); then, there,
#
#     python3 DIR/cores_run.py [--pes 1,2,4,8,16] [--runs 2] [--out OUTDIR]
#
# prints the table of docs/parallel.md ("Real cores"): for each program,
# gph's wall seconds (the whole command) on 1, 2, 4, 8 and 16 PEs, its
# speedup, GHC -O0 -threaded's speedup on 16 cores, the sim's prediction
# with the machine file `gph calibrate` measured there first, gph's 1-PE
# time over GHC's, and gph's peak resident memory per PE count; OUTDIR gets
# the machine file and every measurement as JSON. It runs in about six
# minutes on 16 cores. Run it here (`python3 DIR/cores_run.py --pes 1,2`)
# to try it.
#
# GHC 9.0 with its static libraries (Debian's ghc, libghc-parallel-dev)
# builds the binaries: ghc -O0 -threaded -rtsopts -static -optl-static
# -optl-pthread, with the gph-only modules from ../shared/ghc-shim.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: bench/cores.sh DIR}
shim=${GHC_SHIM:-$root/../shared/ghc-shim}
mkdir -p "$out/programs" "$out/lazy" "$out/ghc"
(cd "$root" && cargo build --release -q)
cp "$root/target/release/gph" "$out/gph"
strip "$out/gph"
cp "$root"/programs/*.gph "$root"/programs/*.args "$out/programs/"
cp "$root"/bench/lazy/*.gph "$out/lazy/"
cp "$root/bench/cores_run.py" "$out/"
command -v ghc >/dev/null || { echo "cores.sh: GHC is needed to build the GHC binaries" >&2; exit 1; }
build() { # build NAME SRC
  local tmp
  tmp=$(mktemp -d)
  cp "$2" "$tmp/Main.hs"
  if ghc -O0 -threaded -rtsopts -static -optl-static -optl-pthread -i"$shim" \
       -outputdir "$tmp/o" -o "$out/ghc/$1" "$tmp/Main.hs" >"$tmp/log" 2>&1; then
    strip "$out/ghc/$1"
  else
    echo "cores.sh: GHC does not build $1:" >&2
    cat "$tmp/log" >&2
  fi
  rm -rf "$tmp"
}
for f in "$root"/programs/*.gph; do
  n=$(basename "$f" .gph)
  case $n in eden*) continue ;; esac   # Eden's processes have no GHC counterpart
  build "$n" "$f"
done
for f in "$root"/bench/lazy/*.gph; do
  n=$(basename "$f" .gph)
  case $n in eden*) continue ;; esac
  build "lazy-$n" "$f"
done
du -sh "$out"
