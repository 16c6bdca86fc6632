#!/usr/bin/env bash
# check-with-ghc.sh: type-check the gph library modules with GHC and test
# them against GHC's own Prelude.
#
#   prelude/check-with-ghc.sh            # check the modules, run the tests
#   prelude/check-with-ghc.sh --corpus   # also run tests/programs/*.gph
#   prelude/check-with-ghc.sh --programs # also run programs/*.gph
#
# 1. The primitive signatures of Gph/Prim.gph and of the GHC stand-in
#    ghc-check/Gph/Prim.hs must be identical.
# 2. Every module under prelude/ (except Gph/Prim.gph, replaced by the
#    stand-in) is copied to a temporary directory as a .hs file and compiled
#    by GHC with RebindableSyntax (numeric literals, negation and do-notation
#    then use the gph Prelude's classes, not GHC's), against base only.
#    Under RebindableSyntax `if` calls the `ifThenElse` in scope, so an
#    import of GhcCheck.IfThenElse is added in front of the first import (or
#    declaration), with `import Prelude` (RebindableSyntax implies
#    NoImplicitPrelude); line numbers in GHC's messages stay those of the
#    .gph files.
# 3. Each test program ghc-check/tests/NAME.gph is compiled the same way,
#    against the gph Prelude, and run, once per line of NAME.args (if
#    present; the line holds the arguments), with NAME.stdin as input (if
#    present). Its output, exit status and first line of stderr must be
#    the oracle's (the same program under GHC's own Prelude and the
#    ghc-shim modules).
#    With --programs, the example programs of programs/ are run the same
#    way, with the arguments of their .args files.
#    With --corpus, the programs of tests/programs/ are run the same way and
#    compared with their .stdout files; programs that this harness cannot
#    compile (they derive instances, which GHC would derive for its own
#    classes, or use fractional literals or arithmetic sequences, which
#    RebindableSyntax does not rebind) are counted as skipped.
#
# Limits of the harness: a test program must not derive instances, and must
# write Double constants as quotients of integer literals (1/10, not 0.1)
# and enumerations with enumFromTo & co. (not [a .. b]). The library
# modules themselves contain no fractional literals.
set -uo pipefail
shopt -s nullglob
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
oracle=${ORACLE:-/work/shared/tools/oracle}
corpus=0; programs=0
for a in "$@"; do
  case $a in
    --corpus) corpus=1 ;;
    --programs) programs=1 ;;
    *) echo "usage: $0 [--corpus] [--programs]" >&2; exit 2 ;;
  esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gph-prelude-check.XXXXXX")
[ -n "${KEEP:-}" ] && echo "keeping $tmp" || trap 'rm -rf "$tmp"' EXIT
status=0

# --- 1. primitive signatures ------------------------------------------------
sigs() { sed 's/[[:space:]]\+/ /g; s/ *$//' | sort; }
grep -E '^foreign import prim ' "$here/Gph/Prim.gph" \
  | sed -E 's/^foreign import prim "[A-Za-z0-9]+" //' | sigs >"$tmp/prim.gph.sigs"
grep -E '^prim[A-Za-z0-9]* ::' "$here/ghc-check/Gph/Prim.hs" | sigs >"$tmp/prim.hs.sigs"
if diff "$tmp/prim.gph.sigs" "$tmp/prim.hs.sigs" >"$tmp/prim.diff"; then
  echo "ok   primitives: $(wc -l <"$tmp/prim.gph.sigs") signatures agree with the GHC stand-in"
else
  echo "FAIL primitives: Gph/Prim.gph (<) and ghc-check/Gph/Prim.hs (>) differ:"
  cat "$tmp/prim.diff"
  status=1
fi
# every runtime name must be the Haskell name without "prim"
grep -E '^foreign import prim ' "$here/Gph/Prim.gph" \
  | sed -E 's/^foreign import prim "([A-Za-z0-9]+)" prim([A-Za-z0-9]+) ::.*/\1 \2/' \
  | while read -r rt hs; do
      [ "${rt,,}" = "${hs,,}" ] || { echo "FAIL primitive \"$rt\" is named prim$hs"; exit 1; }
    done || status=1

# --- 2. the library modules -------------------------------------------------
# convert SRC DEST: a .gph module as a GHC source file (see ghc-check/convert.py)
convert() { python3 "$here/ghc-check/convert.py" "$1" "$2"; }

mkdir -p "$tmp/src"
modules=()
while IFS= read -r f; do
  rel=${f#"$here"/}
  [ "$rel" = "Gph/Prim.gph" ] && continue
  mkdir -p "$tmp/src/$(dirname "$rel")"
  convert "$f" "$tmp/src/${rel%.gph}.hs" || status=1
  mod=${rel%.gph}; modules+=("${mod//\//.}")
done < <(find "$here" -path "$here/ghc-check" -prune -o -name '*.gph' -print | sort)

ghcflags=(-hide-all-packages -package base -package directory -i"$tmp/src" -i"$here/ghc-check"
          -outputdir "$tmp/o" -O0 -v0)
if ghc --make "${ghcflags[@]}" -no-link "${modules[@]}" >"$tmp/lib.log" 2>&1; then
  nwarn=$(grep -c 'warning:' "$tmp/lib.log")
  echo "ok   library: ${#modules[@]} modules compile under GHC ($nwarn warnings)"
else
  sed "s#$tmp/src/##g" "$tmp/lib.log"
  echo "FAIL library: GHC rejects the modules"
  exit 1
fi

# --- 3. test programs -------------------------------------------------------
# run_test NAME SRC EXPECTED_STDOUT_OR_EMPTY EXPECTED_RC ARGSFILE STDINFILE
# Compiles SRC against the gph Prelude and runs it, once for each line of
# ARGSFILE (once without arguments if there is none). Compares its stdout
# and exit status with the expected ones or, when EXPECTED_STDOUT is empty,
# with the oracle's stdout, exit status and first line of stderr (the error
# message; GHC's `error` adds call-stack lines after it).
# Returns 0: same, 1: different, 2 or 3: does not compile.
pass=0; fail=0
run_test() {
  local name=$1 src=$2 expected=$3 want_rc=$4 argsf=$5 stdinf=$6 in=/dev/null
  [ -f "$stdinf" ] && in=$stdinf
  local d="$tmp/t/$name"; mkdir -p "$d"
  convert "$src" "$d/Main.hs" 2>"$d/ghc.log" || return 2
  if ! ghc --make "${ghcflags[@]}" -o "$d/prog" "$d/Main.hs" >"$d/ghc.log" 2>&1; then
    return 3
  fi
  local argl=() line rc result=0
  if [ -f "$argsf" ]; then mapfile -t argl <"$argsf"; else argl=(""); fi
  : >"$d/diff"; runs=0; lines=0
  for line in "${argl[@]}"; do
    local args=(); read -r -a args <<<"$line"
    (cd "$d" && exec ./prog "${args[@]}" <"$in" >"$d/got" 2>"$d/err"); rc=$?
    local want=$expected
    if [ -z "$expected" ]; then
      (cd "$d" && exec "$oracle" "$src" "${args[@]}" <"$in" >"$d/want" 2>"$d/want.err"); want_rc=$?
      want="$d/want"
      # the oracle's program is called prog too, so the messages agree
      if [ "$(head -1 "$d/err")" != "$(head -1 "$d/want.err")" ]; then
        { echo "args '$line': stderr: $(head -1 "$d/err")"
          echo "      oracle's stderr: $(head -1 "$d/want.err")"; } >>"$d/diff"
        result=1
      fi
    fi
    runs=$((runs+1)); lines=$((lines + $(wc -l <"$d/got")))
    if ! cmp -s "$d/got" "$want" || [ "$rc" != "$want_rc" ]; then
      { echo "args '$line':"; diff "$want" "$d/got" | head -20
        [ "$rc" = "$want_rc" ] || echo "exit status $rc, expected $want_rc"; } >>"$d/diff"
      result=1
    fi
  done
  return $result
}

for t in "$here"/ghc-check/tests/*.gph; do
  name=$(basename "${t%.gph}")
  run_test "$name" "$t" "" "" "${t%.gph}.args" "${t%.gph}.stdin"
  case $? in
    0) echo "ok   test $name: same output as the oracle ($runs runs, $lines lines)"; pass=$((pass+1)) ;;
    1) echo "FAIL test $name: output differs from the oracle (< oracle, > gph Prelude):"
       cat "$tmp/t/$name/diff"; head -5 "$tmp/t/$name/err"; fail=$((fail+1)); status=1 ;;
    *) echo "FAIL test $name: does not compile against the gph Prelude:"
       sed "s#$tmp/t/$name/##g" "$tmp/t/$name/ghc.log" | awk '/: error/{p=1} /: warning/{p=0} p' | head -40
       fail=$((fail+1)); status=1 ;;
  esac
done

if [ $programs = 1 ]; then
  for t in "$repo"/programs/*.gph; do
    name=program-$(basename "${t%.gph}")
    # Eden's library runs on primitives only gph's runtime has.
    if grep -q '^import Control.Parallel.Eden' "$t"; then
      echo "skip program $(basename "$t"): Eden needs gph's runtime"; continue
    fi
    run_test "$name" "$t" "" "" "${t%.gph}.args" ""
    case $? in
      0) echo "ok   program $(basename "$t"): same output as the oracle"; pass=$((pass+1)) ;;
      1) echo "FAIL program $(basename "$t"): output differs from the oracle:"
         cat "$tmp/t/$name/diff"; fail=$((fail+1)); status=1 ;;
      *) echo "FAIL program $(basename "$t"): does not compile against the gph Prelude:"
         sed "s#$tmp/t/$name/##g" "$tmp/t/$name/ghc.log" | awk '/: error/{p=1} /: warning/{p=0} p' | head -40
         fail=$((fail+1)); status=1 ;;
    esac
  done
fi

if [ $corpus = 1 ]; then
  cp=0; cf=0; cs=0
  for t in "$repo"/tests/programs/*.gph; do
    name=corpus-$(basename "${t%.gph}")
    [ -f "${t%.gph}.stdout" ] || continue
    if grep -q '^import Control.Parallel.Eden' "$t"; then cs=$((cs+1)); continue; fi
    want_rc=0; [ -f "${t%.gph}.exitcode" ] && want_rc=$(cat "${t%.gph}.exitcode")
    run_test "$name" "$t" "${t%.gph}.stdout" "$want_rc" "${t%.gph}.args" "${t%.gph}.stdin"
    case $? in
      0) cp=$((cp+1)) ;;
      1) echo "FAIL corpus $(basename "$t"): output differs (< expected, > gph Prelude):"
         cat "$tmp/t/$name/diff"; cf=$((cf+1)); status=1 ;;
      *) cs=$((cs+1)) ;;
    esac
  done
  echo "corpus: $cp same output, $cf different, $cs not compilable by this harness"
fi

echo "tests: $pass passed, $fail failed"
[ $status = 0 ] && echo "check-with-ghc: PASS" || echo "check-with-ghc: FAIL"
exit $status
