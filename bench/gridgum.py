#!/usr/bin/env python3
"""Grid-GUM2 against GUM: Table 8.1 of the SCPE Grid-GUM paper
(../shared/papers/000_*, Table 1 of 001_*) on the sim engine.

queens, sumEuler, linSolv and raytracer on programs/grids/hetero8.toml (4
fast PEs at 1395 MHz and 4 slow ones at 534 MHz on one LAN, the paper's
Edin1 + Edin2) under `--sched gum`, `--sched gum --thread-limit 1` and
`--sched gum2`, each over --seeds seeds (the mean virtual time), printed
next to the paper's run times; then the same programs on 8 identical PEs
(programs/grids/homogeneous8.toml), gum against gum2, where gum2 must not
be slower (within 3 %). `ideal` is the 1-PE time over the grid's capacity
(4 + 4 x 534/1395 = 5.53 fast PEs): no scheduler can beat it, so it bounds
the improvement any policy can make over gum.

    python3 bench/gridgum.py                  # about 5 minutes
    python3 bench/gridgum.py --seeds 1 --size queens=10
    python3 bench/gridgum.py --figures docs/observe  # only Figs 8.1-8.6

--figures DIR writes the activity profiles of the paper's Figs 8.1-8.6
instead of the tables: raytracer 350x350 and 500x500 on hetero8 under
gum, gum with thread limit 1 and gum2 (DIR/fig8-raytracer-SIZE-POLICY.svg).
"""

import argparse
import math
import os
import statistics
import sys

import programs
from programs import PROGDIR, print_table

GRIDS = os.path.join(PROGDIR, "grids")
HETERO = ["--engine", "sim", "--grid", os.path.join(GRIDS, "hetero8.toml")]
HOMOGENEOUS = ["--engine", "sim", "--grid", os.path.join(GRIDS, "homogeneous8.toml")]
ONE_PE = ["--engine", "sim", "--pes", "1"]
CAPACITY = 4 + 4 * 534 / 1395

# 1 PE takes 2-6 s of virtual time at these sizes.
SIZES = {
    "queens": "11",
    "sumEuler": "1 8000 100",
    "linsolv": "50",
    "raytracer": "400 300",
}
# Table 8.1: run times in seconds, GRID-GUM and GRID-GUM2.
PAPER = {
    "queens": (668, 310),
    "sumEuler": (570, 279),
    "linsolv": (217, 180),
    "raytracer": (1340, 572),
}
POLICIES = [
    ("gum", ["--sched", "gum"]),
    ("gum tl1", ["--sched", "gum", "--thread-limit", "1"]),
    ("gum2", ["--sched", "gum2"]),
]


def vtime(gph, flags, prog, args, seed, expected=None):
    """The virtual seconds of one run, and its output."""
    return programs.virtual_time(gph, [*flags, "--seed", str(seed)], prog, args, expected)


def mean_time(gph, flags, prog, args, seeds, expected):
    return statistics.mean(vtime(gph, flags, prog, args, seed, expected)[0]
                           for seed in range(seeds))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", action="append", default=[], metavar="NAME=ARGS")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--figures", metavar="DIR", help="write Figs 8.1-8.6 to DIR instead")
    opts = ap.parse_args()
    sizes = programs.sizes(SIZES, opts.size, ap)
    gph = programs.gph(build=not opts.no_build)
    if opts.figures:
        return figures(gph, opts.figures)

    print(f"Table 8.1: 4 fast + 4 slow PEs (hetero8), virtual seconds, mean of"
          f" {opts.seeds} seeds\n")
    rows, gains, homog = [], [], []
    for prog, size in sizes.items():
        args = size.split()
        one, expected = vtime(gph, ONE_PE, prog, args, 0)
        t = {name: mean_time(gph, HETERO + flags, prog, args, opts.seeds, expected)
             for name, flags in POLICIES}
        gain = 1 - t["gum2"] / t["gum"]
        gains.append(gain)
        best = 1 - (one / CAPACITY) / t["gum"]
        p_gum, p_gum2 = PAPER[prog]
        rows.append([prog, size, f"{one:.3f}", f"{one / CAPACITY:.3f}",
                     *(f"{t[n]:.3f}" for n, _ in POLICIES),
                     f"{gain * 100:.1f} %", f"{best * 100:.1f} %",
                     p_gum, p_gum2, f"{(1 - p_gum2 / p_gum) * 100:.0f} %"])
        h = {name: mean_time(gph, HOMOGENEOUS + flags, prog, args, opts.seeds, expected)
             for name, flags in POLICIES if name != "gum tl1"}
        homog.append([prog, size, f"{h['gum']:.3f}", f"{h['gum2']:.3f}",
                      f"{(h['gum2'] / h['gum'] - 1) * 100:+.1f} %",
                      "yes" if h["gum2"] <= 1.03 * h["gum"] else "NO"])
    print_table(["program", "args", "1 PE", "ideal", "gum", "gum tl1", "gum2", "gain",
           "most", "paper gum", "paper gum2", "paper gain"], rows)
    geo = 1 - math.exp(statistics.mean(math.log(1 - g) for g in gains))
    print(f"\n   gain: run time saved by gum2 over gum; most: what the ideal would"
          f" save.\n   geometric mean gain: {geo * 100:.1f} % (paper 47.3 %, target"
          f" >= 35 %)\n")
    print("8 identical PEs (homogeneous8): gum2 no slower than gum (within 3 %)\n")
    print_table(["program", "args", "gum", "gum2", "change", "met"], homog)


def figures(gph, out):
    """Figs 8.1-8.6: raytracer's activity profiles on hetero8."""
    rows = []
    for size in ["350 350", "500 500"]:
        expected = None
        for name, flags in POLICIES:
            tag = name.replace(" ", "-")
            path = os.path.join(out, f"fig8-raytracer-{size.replace(' ', 'x')}-{tag}.svg")
            t, expected = vtime(gph, HETERO + flags + ["--profile", path], "raytracer",
                                size.split(), 0, expected)
            rows.append([f"raytracer {size}", name, f"{t:.3f}", path])
    print_table(["run", "policy", "virtual s", "profile"], rows)


if __name__ == "__main__":
    sys.exit(main())
