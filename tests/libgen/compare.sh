#!/usr/bin/env bash
# Differential tests of the library modules against GHC: each generator
# here is a gph program that takes a seed and a count and prints the
# results of that many pseudo-random operations (a linear congruential
# generator on Integer, so gph and GHC see the same operations). The
# script runs it with gph and with the oracle (GHC with its own base and
# containers) and compares the outputs.
#
#   tests/libgen/compare.sh                      # every generator, seeds 1..3
#   tests/libgen/compare.sh mapgen 1 2 3         # one generator, some seeds
#   COUNT=5000 tests/libgen/compare.sh numgen 7  # more operations per run
#
# numgen:   Numeric's showFFloat/showEFloat/showGFloat (with and without a
#           number of digits, and the Alt versions), showFloat, floatToDigits
# mapgen:   Data.Map (and Data.Map.Strict) operations on a small key range,
#           printing the map and containers' `valid` after each step
# mapgen2:  the same on a large key range (hundreds of keys), printing a hash
# setgen:   Data.Set operations, with `valid`
# ratgen:   Data.Ratio arithmetic, rounding, Show/Read, approxRational
# cplxgen:  Data.Complex arithmetic and elementary functions (exact digits)
# readgen:  Text.Read's readMaybe/readEither and Numeric's readers on
#           random token soup
# monadgen: Control.Monad / Data.Foldable functions in Maybe, lists, Either
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
gph=${GPH:-$repo/target/release/gph}
oracle=${ORACLE:-/work/shared/tools/oracle}
count=${COUNT:-1000}
gens=(numgen mapgen mapgen2 setgen ratgen cplxgen readgen monadgen)
seeds=(1 2 3)
if [ $# -gt 0 ]; then gens=("$1"); shift; fi
if [ $# -gt 0 ]; then seeds=("$@"); fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gph-libgen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
for g in "${gens[@]}"; do
  # The oracle runs a copy in a directory of its own (it would take the
  # other generators beside it for user modules).
  mkdir -p "$tmp/$g"; cp "$here/$g.gph" "$tmp/$g/"
  for s in "${seeds[@]}"; do
    "$gph" run "$here/$g.gph" -- "$s" "$count" > "$tmp/$g/got" 2>&1
    (cd "$tmp/$g" && "$oracle" "$g.gph" "$s" "$count" > want 2>&1)
    if cmp -s "$tmp/$g/want" "$tmp/$g/got"; then
      echo "ok   $g seed $s: $(wc -l < "$tmp/$g/want") lines"
    else
      echo "FAIL $g seed $s (< GHC, > gph):"; diff "$tmp/$g/want" "$tmp/$g/got" | head -10
      status=1
    fi
  done
done
exit $status
