#!/usr/bin/env python3
"""How well the sim, given a machine file of `gph calibrate`, predicts the
speedups of the threads engine on that machine.

For each program, at its size: the run's wall seconds (`--stats-json`,
compiling left out) on the threads engine on 1 PE and on N PEs (the
least of --runs each), and the virtual seconds of the sim engine on 1
and N PEs of the machine file; then the measured speedup, the predicted
one and predicted / measured. Programs are those of programs/ at the
sizes below, and (--lazy) bench/lazy/'s.

    bench/predict.py                                # this machine: 2 PEs, dev2.toml
    bench/predict.py --machine m.toml --pes 16      # a machine file of another
    bench/predict.py sumEuler="1 4000 100" nfib     # some programs, other sizes
    bench/predict.py --sim-only --machine programs/grids/xeon16.toml --pes 16

--sim-only prints the predictions alone (for a machine not at hand).
"""

import argparse
import os
import sys

import programs
from programs import PROGDIR, ROOT, print_table, run_with_stats

LAZY = os.path.join(ROOT, "bench", "lazy")

# Sizes where one PE of the development machine takes about 0.5-1.5 s.
SIZES = {
    "sumEuler": "1 3000 100",
    "nfib": "33 22",
    "queens": "11",
    "mandel": "300 300",
    "matmult": "300",
    "raytracer": "300 200",
    "linsolv": "40",
    "parsort": "200000 8",
    "edenMandel": "300 300",
    "edenParsort": "100000 8",
}
LAZY_SIZES = {
    "matmult": "300",
    "parsort": "200000 16",
    "linsolv": "40",
    "edenParsort": "200000 8",
}


def seconds(gph, flags, src, args):
    proc, stats = run_with_stats(gph, flags, src, args)
    if proc.returncode != 0:
        sys.exit(f"{src} {' '.join(args)} ({' '.join(flags)}): {proc.stderr.strip()}")
    return stats.get("virtual_time_s") or stats["wall_time_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", help="NAME or NAME=\"ARGS\" (default: all)")
    ap.add_argument("--machine", default=os.path.join(PROGDIR, "grids", "dev2.toml"))
    ap.add_argument("--pes", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--lazy", action="store_true", help="bench/lazy's programs too")
    ap.add_argument("--sim-only", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    opts = ap.parse_args()
    gph = programs.gph(build=not opts.no_build)

    jobs = []
    wanted = dict(w.partition("=")[::2] for w in opts.programs)
    for name, args in SIZES.items():
        if not wanted or name in wanted:
            jobs.append((name, os.path.join(PROGDIR, name + ".gph"), wanted.get(name) or args))
    if opts.lazy:
        for name, args in LAZY_SIZES.items():
            jobs.append((name + " (lazy)", os.path.join(LAZY, name + ".gph"), args))

    n = str(opts.pes)
    sim = ["--engine", "sim", "--grid", opts.machine]
    head = ["program", "args"]
    if not opts.sim_only:
        head += ["1 PE s", f"{n} PEs s", "speedup"]
    head += ["sim 1", f"sim {n}", "predicted"]
    if not opts.sim_only:
        head.append("pred/meas")
    print(f"threads engine: least of {opts.runs} runs, wall s of the run; "
          f"sim: {os.path.basename(opts.machine)}, virtual s", flush=True)
    rows = []
    for name, src, args in jobs:
        args = args.split()
        s1 = seconds(gph, sim + ["--pes", "1"], src, args)
        sn = seconds(gph, sim + ["--pes", n], src, args)
        row = [name, " ".join(args)]
        if not opts.sim_only:
            r1 = min(seconds(gph, ["--pes", "1"], src, args) for _ in range(opts.runs))
            rn = min(seconds(gph, ["--pes", n], src, args) for _ in range(opts.runs))
            ratio = (s1 / sn) / (r1 / rn)
            row += [f"{r1:.3f}", f"{rn:.3f}", f"{r1 / rn:.2f}"]
        row += [f"{s1:.3f}", f"{sn:.3f}", f"{s1 / sn:.2f}"]
        if not opts.sim_only:
            row.append(f"{ratio:.2f}" + ("" if 0.75 <= ratio <= 1.25 else " !"))
        rows.append(row)
    if not rows:
        sys.exit("no programs")
    print_table(head, rows)


if __name__ == "__main__":
    main()
