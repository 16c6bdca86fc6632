#!/usr/bin/env bash
# Runs a fuzz target (docs/reliability.md "Fuzzing"):
#   fuzz/run.sh TARGET [SECONDS] [libFuzzer options...]
# TARGET is frontend, grid or repl; SECONDS defaults to 60. New inputs
# that reach new code go to fuzz/corpus/TARGET (not committed); the
# tests' files are the seed corpus, read but never written. A crash, a
# hang (over 10 s; 60 s for repl) or a run over 4 GB leaves its input in
# fuzz/artifacts/TARGET and exits non-zero. Installs cargo-fuzz if need
# be; builds without a sanitizer (safe Rust: the stable toolchain).
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
target=${1:?usage: fuzz/run.sh frontend|grid|repl [SECONDS] [libFuzzer options]}
secs=${2:-60}
shift $(( $# < 2 ? $# : 2 ))
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
case $target in
  frontend) seeds=(tests/programs tests/errors tests/layout tests/runtime-errors programs prelude) ;;
  grid) seeds=(programs/grids) ;;
  repl) seeds=(tests/repl) ;;
  *) echo "no fuzz target $target (frontend, grid, repl)" >&2; exit 2 ;;
esac
# GPH_FUZZ_CORPUS: another folder for the new inputs (the tests' short
# run starts from the seeds alone, not from what long runs gathered).
corpus=${GPH_FUZZ_CORPUS:-$here/corpus/$target}
mkdir -p "$corpus"
# The REPL answers on stdout: libFuzzer's own lines are on stderr. Its
# inputs are up to eight lines, each compiled with the Prelude and some
# run for up to 2 s: a minute before one counts as a hang.
timeout=10
if [ "$target" = repl ]; then
  set -- -close_fd_mask=1 "$@"
  timeout=60
fi
# Absolute paths: the REPL's target works in a scratch folder.
seeds=("${seeds[@]/#/$here/../}")
# GPH_FUZZ_SEEDS: one folder of seeds instead (an absolute path).
if [ -n "${GPH_FUZZ_SEEDS:-}" ]; then seeds=("$GPH_FUZZ_SEEDS"); fi
# GPH_FUZZ_SAMPLE=N: every Nth seed file only (in name order), as
# tests/fuzz.rs takes them: the front end's 1100 seeds, each compiled
# with the Prelude, optimised and linted, take 160 s to go through once.
if [ -n "${GPH_FUZZ_SAMPLE:-}" ]; then
  sample=$(mktemp -d)
  trap 'rm -rf "$sample"' EXIT
  find "${seeds[@]}" -type f | LC_ALL=C sort | awk -v n="$GPH_FUZZ_SAMPLE" 'NR % n == 1 || n == 1' |
    while read -r f; do cp "$f" "$sample/$(echo "$f" | tr / _)"; done
  seeds=("$sample")
fi
cargo fuzz run --sanitizer none "$target" "$corpus" "${seeds[@]}" -- \
  -max_total_time="$secs" -timeout="$timeout" -rss_limit_mb=4096 -max_len=65536 "$@"
