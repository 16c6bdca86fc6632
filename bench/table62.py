#!/usr/bin/env python3
"""GUM's speedups on 16 PEs: Table 6.2 of the SCPE Grid-GUM paper
(../shared/papers/000_*) on the sim engine.

The paper's six programs ran 400-2800 s sequentially on its Beowulf, so
their tasks were large against their messages. Here each program runs at a
size where one simulated PE takes at least 20 s of virtual time, on 1 PE
and on 16 identical PEs of the default LAN (0.2 ms, 100 Mbit/s: `--pes
16`), and the execution speedup is printed next to the paper's (GUM/PVM).
The target is the paper's speedup, except parFib's 17.1, which is
superlinear (GHC's garbage collection on 16 small heaps): 15 there.

    python3 bench/table62.py                       # about 6 minutes
    python3 bench/table62.py --size matmult=400 --only matmult
    python3 bench/table62.py --profiles docs/observe  # and the 16-PE profiles
"""

import argparse
import os

import programs
from programs import print_table

# Sizes where 1 PE takes 20-30 s of virtual time.
SIZES = {
    "nfib": "41 20",
    "sumEuler": "1 9000 100",
    "raytracer": "560 420 3",
    "linsolv": "92",
    "matmult": "740",
    "queens": "13",
}
# Table 6.2 (GUM/PVM): the paper's name, sequential and 16-PE run times
# in seconds, its execution speedup, and our target.
PAPER = {
    "nfib": ("parFib", 413.7, 22.8, 17.1, 15.0),
    "sumEuler": ("sumEuler", 1607.1, 131.8, 12.1, 12.1),
    "raytracer": ("raytracer", 2855.4, 315.3, 9.6, 9.6),
    "linsolv": ("linSolv", 834.2, 102.6, 8.9, 8.9),
    "matmult": ("matMult", 891.9, 150.2, 5.9, 5.9),
    "queens": ("queens", 2802.7, 375.1, 7.4, 7.4),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", action="append", default=[], metavar="NAME=ARGS")
    ap.add_argument("--only", action="append", default=[], metavar="NAME")
    ap.add_argument("--pes", type=int, default=16)
    ap.add_argument("--sched", help="the load policy of the many-PE runs (gph's default if not given)")
    ap.add_argument("--profiles", metavar="DIR",
                    help="also write each 16-PE run's activity profile, DIR/table62-NAME.svg")
    ap.add_argument("--no-build", action="store_true")
    opts = ap.parse_args()
    sizes = programs.sizes(SIZES, opts.size, ap)
    gph = programs.gph(build=not opts.no_build)

    rows = []
    met = 0
    for prog in opts.only or SIZES:
        args = sizes[prog].split()
        one, out1 = programs.virtual_time(gph, ["--engine", "sim", "--pes", "1"], prog, args)
        flags = ["--engine", "sim", "--pes", str(opts.pes)]
        if opts.sched:
            flags += ["--sched", opts.sched]
        if opts.profiles:
            flags += ["--profile", os.path.join(opts.profiles, f"table62-{prog}.svg")]
        many, _ = programs.virtual_time(gph, flags, prog, args, out1)
        name, pseq, ppar, pspeed, target = PAPER[prog]
        speedup = one / many
        ok = speedup >= target
        met += ok
        rows.append([f"{name} ({prog} {sizes[prog]})", f"{one:.2f}", f"{many:.3f}",
                     f"{speedup:.1f}", f"{pseq:.0f}", f"{ppar:.1f}", f"{pspeed:.1f}",
                     f"{target:.1f}", "yes" if ok else "no"])
    print(f"Table 6.2: execution speedup on {opts.pes} PEs, gph sim (virtual s) "
          "against GUM/PVM (the paper's s)")
    print_table(["program (gph args)", "1 PE", f"{opts.pes} PEs", "speedup",
                 "paper seq", "paper 16", "paper", "target", "met"], rows)
    print(f"{met} of {len(rows)} targets met")


if __name__ == "__main__":
    main()
