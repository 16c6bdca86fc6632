#!/usr/bin/env python3
"""Benchmarks gph against GHCi (runghc) and Hugs (runhugs) on programs/.

For each program at its usual size (programs/NAME.args, or NAME=ARGS on the
command line), runs the release build of gph, and, when installed, the same
program under runghc (GHC's bytecode interpreter) and runhugs, each --runs
times, and prints the median wall-clock times, the ratios gph/GHCi and
gph/Hugs, gph's reductions per second and its peak resident memory.
Outputs of gph and GHCi are compared (a difference is flagged `DIFF`).

    bench/run.py                         # every program, 3 runs each
    bench/run.py nfib sumEuler="1 10000 100" --runs 1 --no-hugs
    bench/run.py --gph-flags="--pes 2"   # pass flags to `gph run`

The gph-only modules come from ../shared/ghc-shim for both interpreters,
and from bench/hugs-shim (sequential Control.Parallel, Control.DeepSeq and
strategies) for Hugs, which has no parallel package. Hugs's Int is 32 bits,
so programs that overflow 32 bits print other numbers there; only its time
is of interest.
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

import programs
from programs import PROGDIR, ROOT

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", help="NAME or NAME=\"ARGS\" (default: all)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-ghci", action="store_true")
    ap.add_argument("--no-hugs", action="store_true")
    ap.add_argument("--gph-flags", default="--pes 1",
                    help="flags for `gph run` (default: one PE)")
    ap.add_argument("--no-build", action="store_true")
    opts = ap.parse_args()

    jobs = programs.jobs(opts.programs)
    gph = programs.gph(build=not opts.no_build)
    runghc = None if opts.no_ghci else shutil.which("runghc")
    runhugs = None if opts.no_hugs else shutil.which("runhugs")

    header = (f"{'program':<12} {'args':<14} {'gph s':>8} {'GHCi s':>8} {'Hugs s':>8} "
              f"{'gph/GHCi':>9} {'gph/Hugs':>9} {'Mred/s':>8} {'peak MB':>8}")
    print(header)
    print("-" * len(header))
    for name, args in jobs:
        src = os.path.join(PROGDIR, name + ".gph")
        stats_path = tempfile.mktemp(suffix=".json")
        cmd = [gph, "run", *opts.gph_flags.split(), "--stats-json", stats_path, src, "--", *args]
        t_gph, rss, code, out_gph = median_run(cmd, opts.runs)
        mred = None
        try:
            with open(stats_path) as f:
                stats = json.load(f)
            reductions = sum(pe.get("reductions", 0) for pe in stats.get("per_pe", []))
            mred = reductions / t_gph / 1e6 if t_gph > 0 else None
            os.unlink(stats_path)
        except (OSError, ValueError):
            pass
        note = "" if code == 0 else f"  gph exit {code}"

        t_ghci = t_hugs = None
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(src, os.path.join(tmp, "Main.hs"))
            if runghc:
                t, _, c, out = median_run([runghc, "-i" + SHIM, "Main.hs", *args], opts.runs, tmp)
                t_ghci = t if c == 0 else None
                if c != 0:
                    note += f"  runghc exit {c}"
                elif code == 0 and out != out_gph:
                    note += "  DIFF"
            if runhugs:
                path = f"-P{HUGS_SHIM}:{SHIM}:"
                t, _, c, _ = median_run([runhugs, "-98", "+o", path, "Main.hs", *args],
                                        opts.runs, tmp)
                t_hugs = t if c == 0 else None
                if c != 0:
                    note += f"  runhugs exit {c}"

        def fmt(x, spec):
            return format(x, spec) if x is not None else "-"

        ratio = lambda a, b: a / b if a is not None and b else None
        print(f"{name:<12} {' '.join(args):<14} {fmt(t_gph, '8.2f')} {fmt(t_ghci, '8.2f')} "
              f"{fmt(t_hugs, '8.2f')} {fmt(ratio(t_gph, t_ghci), '9.2f')} "
              f"{fmt(ratio(t_gph, t_hugs), '9.2f')} {fmt(mred, '8.1f')} {rss:8.1f}{note}",
              flush=True)


if __name__ == "__main__":
    sys.exit(main())
