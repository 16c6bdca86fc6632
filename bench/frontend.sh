#!/usr/bin/env bash
# Times `gph check` on a generated program of about 10,000 lines (release build).
# Usage: bench/frontend.sh [LINES]
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-10000}
cargo build --release --quiet
tmp=$(mktemp -d)
python3 bench/gen_big_program.py "$lines" > "$tmp/Big.gph"
echo "program: $(wc -l < "$tmp/Big.gph") lines"
for i in 1 2 3; do
  /usr/bin/time -f "gph check: %e s, peak RSS %M KB" ./target/release/gph check "$tmp/Big.gph"
done
rm -rf "$tmp"
