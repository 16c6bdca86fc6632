#!/usr/bin/env bash
# Regenerate the expectations of the test corpus from the GHC oracle.
#
#   tests/regen-oracle.sh            # every program and every error file
#   tests/regen-oracle.sh NAME...    # only these (names without suffix)
#
# For tests/programs/NAME.gph (or NAME.lhs, or NAME/Main.*):  NAME.stdout (and NAME.exitcode when the
#   exit status is not 0), running the oracle with the arguments in
#   NAME.args (one line, split on white space) and standard input from
#   NAME.stdin (or /dev/null).
# For tests/errors/NAME.gph:  NAME.ghc, GHC's diagnostics with the oracle's
#   temporary path shortened to Main.hs and the "[1 of N] Compiling" lines
#   dropped. The oracle must reject the file (exit status 2).
set -uo pipefail
shopt -s nullglob
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE:-$(cd "$here/../../shared/tools" 2>/dev/null && pwd)/oracle}
[ -x "$oracle" ] || oracle=/work/shared/tools/oracle
# GHC versions of gph-only library modules (tests/ghc-shim/README.md).
export GPH_ORACLE_PATH="$here/ghc-shim${GPH_ORACLE_PATH:+:$GPH_ORACLE_PATH}"
status=0
# monad-par, split and async (Control.Monad.Par, Data.List.Split,
# Control.Concurrent.Async) are Debian packages the oracle does not install.
for pkg in monad-par split async; do
  if ! ghc-pkg list "$pkg" 2>/dev/null | grep -q "$pkg-"; then
    { apt-get install -y -qq "libghc-$pkg-dev" ||
      { apt-get update -qq && apt-get install -y -qq "libghc-$pkg-dev"; }; } >/dev/null 2>&1 ||
      echo "regen-oracle: could not install libghc-$pkg-dev" >&2
  fi
done

want() {   # want NAME: true when no names were given or NAME is among them
  [ ${#names[@]} -eq 0 ] && return 0
  local n; for n in "${names[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}
names=("$@")

# A program of several modules is a folder with Main.gph (or .hs, .lhs);
# its name is the folder's.
for src in "$here"/programs/*.gph "$here"/programs/*.lhs "$here"/programs/*/Main.{gph,hs,lhs}; do
  base=${src%.*}; name=$(basename "$base")
  [ "$name" = Main ] && name=$(basename "$(dirname "$src")")
  want "$name" || continue
  args=()
  [ -f "$base.args" ] && read -r -a args < "$base.args"
  input=/dev/null
  [ -f "$base.stdin" ] && input="$base.stdin"
  "$oracle" "$src" "${args[@]}" < "$input" > "$base.stdout" 2> "$base.stderr.tmp"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qE 'Main\.hs:[^ ]*: error' "$base.stderr.tmp"; then
    echo "FAIL programs/$name: rejected by GHC" >&2; cat "$base.stderr.tmp" >&2; status=1
  fi
  rm -f "$base.stderr.tmp"
  if [ "$rc" -ne 0 ]; then echo "$rc" > "$base.exitcode"; else rm -f "$base.exitcode"; fi
  echo "programs/$name: exit $rc, $(wc -l < "$base.stdout") lines"
done

for src in "$here"/errors/*.gph; do
  base=${src%.gph}; name=$(basename "$base")
  want "$name" || continue
  "$oracle" "$src" > /dev/null 2> "$base.ghc.tmp" < /dev/null
  rc=$?
  if [ "$rc" -ne 2 ]; then
    echo "FAIL errors/$name: oracle exit $rc, expected 2 (GHC accepted it?)" >&2
    status=1; rm -f "$base.ghc.tmp"; continue
  fi
  sed -E -e 's#[^ ()]*/Main\.hs\b#Main.hs#g' \
         -e '/^\[[0-9]+ of [0-9]+\] Compiling /d' \
         -e '/^oracle: /d' "$base.ghc.tmp" | awk 'NF || seen { seen = 1; print }' > "$base.ghc"
  rm -f "$base.ghc.tmp"
  echo "errors/$name: $(grep -c '^Main\.hs:[^ ]*: error' "$base.ghc") error(s)"
done
exit $status
