#!/usr/bin/env python3
"""Benchmarks gph's one PE against GHC's -O0 native code, GHCi and Hugs.

For each program at its usual size (NAME.args beside it, or NAME=ARGS on
the command line), runs the release build of gph on one PE and, when
installed, the same program compiled by `ghc -O0 -threaded` (run with
`+RTS -N1`), under runghc (GHC's bytecode interpreter) and under runhugs,
each --runs times. Prints the median wall-clock times, the ratios
gph/ghc-O0, gph/GHCi and gph/Hugs, gph's reductions per second, peak
resident memory, and the bytes gph allocated and copied during GC; then
the geometric mean and the largest of gph/ghc-O0 (issue 31's targets:
at most 1.0 and 1.5). Outputs are compared with GHC's (`DIFF` flags a
difference).

The programs are those of programs/ and bench/styles/ (five of other
styles: a list-of-lists Sudoku solver, Data.Map word counts, a Double
n-body loop, String processing, lazy Hamming and prime streams).

    bench/run.py                         # every program, 3 runs each
    bench/run.py nfib sumEuler="1 10000 100" --runs 1 --no-hugs
    bench/run.py --only-styles --no-ghci --no-hugs
    bench/run.py --gph-flags="--pes 2"   # pass flags to `gph run`

The gph-only modules come from ../shared/ghc-shim for GHC, and from
bench/hugs-shim (sequential Control.Parallel, Control.DeepSeq and
strategies) for Hugs, which has no parallel package. Hugs's Int is 32 bits,
so programs that overflow 32 bits print other numbers there; only its time
is of interest. GHC's binaries are kept in $TMPDIR/gph-bench-ghc.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import hashlib
import math

import programs
from programs import PROGDIR, ROOT, STYLEDIR

SHIM = os.path.normpath(os.path.join(ROOT, "..", "shared", "ghc-shim"))
HUGS_SHIM = os.path.join(ROOT, "bench", "hugs-shim")
TIMEOUT = 600


def run(cmd, cwd=None):
    """Runs cmd; returns (seconds, peak RSS in MB, exit status, stdout)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except KeyboardInterrupt:
            proc.kill()
            raise
        elapsed = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss / 1024.0, code, text


def median_run(cmd, runs, cwd=None):
    times, rss, code, text = [], 0.0, 0, ""
    for _ in range(runs):
        t, m, code, text = run(cmd, cwd)
        times.append(t)
        rss = max(rss, m)
        if code != 0:
            break
    return statistics.median(times), rss, code, text


def ghc_binary(ghc, src):
    """`src` compiled by `ghc -O0 -threaded` (kept between runs, by the
    hash of the source), or None when it does not compile."""
    text = open(src, "rb").read()
    key = hashlib.sha256(text + SHIM.encode()).hexdigest()[:16]
    d = os.path.join(tempfile.gettempdir(), "gph-bench-ghc", key)
    exe = os.path.join(d, "prog")
    if not os.path.exists(exe):
        os.makedirs(d, exist_ok=True)
        shutil.copy(src, os.path.join(d, "Main.hs"))
        r = subprocess.run([ghc, "-O0", "-threaded", "-i" + SHIM, "-outputdir", d, "-o", exe,
                            "Main.hs"], cwd=d, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stdout + r.stderr)
            return None
    return exe


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", help="NAME or NAME=\"ARGS\" (default: all)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-ghci", action="store_true")
    ap.add_argument("--no-hugs", action="store_true")
    ap.add_argument("--gph-flags", default="--pes 1",
                    help="flags for `gph run` (default: one PE)")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-ghc", action="store_true", help="leave out GHC's -O0 native code")
    ap.add_argument("--only-styles", action="store_true",
                    help="only the programs of bench/styles/")
    opts = ap.parse_args()

    dirs = (STYLEDIR,) if opts.only_styles else (PROGDIR, STYLEDIR)
    jobs = programs.jobs(opts.programs, dirs)
    gph = programs.gph(build=not opts.no_build)
    ghc = None if opts.no_ghc else shutil.which("ghc")
    runghc = None if opts.no_ghci else shutil.which("runghc")
    runhugs = None if opts.no_hugs else shutil.which("runhugs")

    header = (f"{'program':<12} {'args':<14} {'gph s':>7} {'-O0 s':>7} {'GHCi s':>7} "
              f"{'Hugs s':>7} {'gph/-O0':>8} {'gph/GHCi':>8} {'gph/Hugs':>8} {'Mred/s':>7} "
              f"{'peak MB':>7} {'alloc MB':>9} {'copied MB':>9}")
    print(header)
    print("-" * len(header))
    native_ratios = []
    for name, args in jobs:
        src = programs.source(name)
        stats_path = tempfile.mktemp(suffix=".json")
        cmd = [gph, "run", *opts.gph_flags.split(), "--stats-json", stats_path, src, "--", *args]
        t_gph, rss, code, out_gph = median_run(cmd, opts.runs)
        mred = alloc = copied = None
        try:
            with open(stats_path) as f:
                stats = json.load(f)
            per_pe = stats.get("per_pe", [])
            reductions = sum(pe.get("reductions", 0) for pe in per_pe)
            alloc = sum(pe.get("allocated_bytes", 0) for pe in per_pe) / 1e6
            copied = sum(pe.get("copied_bytes", 0) for pe in per_pe) / 1e6
            mred = reductions / t_gph / 1e6 if t_gph > 0 else None
            os.unlink(stats_path)
        except (OSError, ValueError):
            pass
        note = "" if code == 0 else f"  gph exit {code}"

        t_native = t_ghci = t_hugs = None
        exe = ghc_binary(ghc, src) if ghc else None
        if exe:
            t, _, c, out = median_run([exe, *args, "+RTS", "-N1"], opts.runs)
            t_native = t if c == 0 else None
            if c != 0:
                note += f"  ghc -O0 exit {c}"
            elif code == 0 and out != out_gph:
                note += "  DIFF"
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(src, os.path.join(tmp, "Main.hs"))
            if runghc:
                t, _, c, out = median_run([runghc, "-i" + SHIM, "Main.hs", *args], opts.runs, tmp)
                t_ghci = t if c == 0 else None
                if c != 0:
                    note += f"  runghc exit {c}"
                elif code == 0 and out != out_gph and "DIFF" not in note:
                    note += "  DIFF"
            if runhugs:
                path = f"-P{HUGS_SHIM}:{SHIM}:"
                t, _, c, _ = median_run([runhugs, "-98", "+o", path, "Main.hs", *args],
                                        opts.runs, tmp)
                t_hugs = t if c == 0 else None
                if c != 0:
                    note += f"  runhugs exit {c}"

        def fmt(x, spec):
            width = int(spec.split(".")[0])
            return format(x, spec) if x is not None else "-".rjust(width)

        ratio = lambda a, b: a / b if a is not None and b else None
        r = ratio(t_gph, t_native)
        if r is not None and code == 0:
            native_ratios.append(r)
        print(f"{name:<12} {' '.join(args):<14} {fmt(t_gph, '7.2f')} {fmt(t_native, '7.2f')} "
              f"{fmt(t_ghci, '7.2f')} {fmt(t_hugs, '7.2f')} {fmt(r, '8.2f')} "
              f"{fmt(ratio(t_gph, t_ghci), '8.2f')} {fmt(ratio(t_gph, t_hugs), '8.2f')} "
              f"{fmt(mred, '7.1f')} {rss:7.1f} {fmt(alloc, '9.0f')} {fmt(copied, '9.0f')}{note}",
              flush=True)
    if native_ratios:
        geo = math.exp(sum(math.log(r) for r in native_ratios) / len(native_ratios))
        print(f"gph / ghc -O0: geometric mean {geo:.2f}, largest {max(native_ratios):.2f} "
              f"({len(native_ratios)} programs)")


if __name__ == "__main__":
    sys.exit(main())
