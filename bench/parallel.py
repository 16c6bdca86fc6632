#!/usr/bin/env python3
"""Parallel speedups of gph on programs/: real threads and the simulator.

For each program at its usual size (programs/NAME.args, or NAME=ARGS on the
command line):
  * threads engine: median wall time on 1 PE and on --pes N (default 2),
    and the speedup;
  * sim engine: virtual run time on 1, 2, 4, 8, 16 and 32 identical PEs
    (0.2 ms apart, `--pes`) or on --grid FILE, and the speedup over 1 PE;
    also the wall time of the 16-PE simulation over the 1-PE real run
    (what simulating costs).

    bench/parallel.py                        # every program
    bench/parallel.py sumEuler="1 10000 100" nfib --no-threads
    bench/parallel.py --sim-pes 1,16 --runs 1
    bench/parallel.py --no-sim --sched gum2  # Grid-GUM2's policy
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import programs
from programs import PROGDIR



def gph_run(gph, flags, src, args):
    """Runs gph; returns (wall seconds, stats dict, exit status)."""
    path = tempfile.mktemp(suffix=".json")
    start = time.perf_counter()
    proc = subprocess.run([gph, "run", *flags, "--stats-json", path, src, "--", *args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    stats = {}
    try:
        with open(path) as f:
            stats = json.load(f)
        os.unlink(path)
    except (OSError, ValueError):
        pass
    return wall, stats, proc.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", help="NAME or NAME=\"ARGS\" (default: all)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each threads measurement")
    ap.add_argument("--pes", type=int, default=2, help="PEs of the threads engine")
    ap.add_argument("--sim-pes", default="1,2,4,8,16,32")
    ap.add_argument("--no-threads", action="store_true")
    ap.add_argument("--no-sim", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--sched", help="the load policy of every run (gph's default if not given)")
    opts = ap.parse_args()
    sched = ["--sched", opts.sched] if opts.sched else []

    jobs = programs.jobs(opts.programs)
    gph = programs.gph(build=not opts.no_build)

    if not opts.no_threads:
        print(f"threads engine: wall seconds, median of {opts.runs}; 'gph run' is the whole"
              " command, compiling included; 'run' the program's run alone (--stats-json)")
        pe2 = f"{opts.pes} PEs"
        head = (f"{'program':<13} {'args':<16} {'gph run':>8} {pe2:>8} {'speedup':>8}"
                f" {'run':>8} {pe2:>8} {'speedup':>8}")
        print(head)
        print("-" * len(head))
        for name, args in jobs:
            src = os.path.join(PROGDIR, name + ".gph")
            t, r = {}, {}
            bad = []
            for n in (1, opts.pes):
                runs = [gph_run(gph, ["--pes", str(n), *sched], src, args)
                        for _ in range(opts.runs)]
                t[n] = statistics.median(x[0] for x in runs)
                r[n] = statistics.median(x[1].get("wall_time_s", float("nan")) for x in runs)
                bad += [x[2] for x in runs if x[2] != 0]
            note = f"  exit {bad[0]}" if bad else ""
            print(f"{name:<13} {' '.join(args):<16} {t[1]:8.2f} {t[opts.pes]:8.2f} "
                  f"{t[1] / t[opts.pes]:8.2f} {r[1]:8.3f} {r[opts.pes]:8.3f} "
                  f"{r[1] / r[opts.pes]:8.2f}{note}", flush=True)
        print()

    if not opts.no_sim:
        pes = [int(x) for x in opts.sim_pes.split(",")]
        print("sim engine: virtual seconds (speedup over 1 PE); "
              "cost = wall of the 16-PE simulation / wall of 1 real PE")
        head = f"{'program':<12} " + " ".join(f"{f'{n} PEs':>14}" for n in pes) + f" {'cost':>6}"
        print(head)
        print("-" * len(head))
        for name, args in jobs:
            src = os.path.join(PROGDIR, name + ".gph")
            real1, _, _ = gph_run(gph, ["--pes", "1", *sched], src, args)
            cells, base, cost = [], None, None
            for n in pes:
                wall, stats, code = gph_run(gph, ["--engine", "sim", "--pes", str(n), *sched], src, args)
                vt = stats.get("virtual_time_s")
                if code != 0 or vt is None:
                    cells.append(f"{'exit ' + str(code):>14}")
                    continue
                if n == 1:
                    base = vt
                if n == 16:
                    cost = wall / real1
                sp = f"({base / vt:.1f})" if base else ""
                cells.append(f"{vt:8.3f}{sp:>6}")
            c = f"{cost:6.2f}" if cost else f"{'-':>6}"
            print(f"{name:<12} " + " ".join(cells) + f" {c}", flush=True)


if __name__ == "__main__":
    main()
