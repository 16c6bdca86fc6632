#!/usr/bin/env python3
"""GUM and Grid-GUM2 on small multi-clusters: Tables 6.5 and 6.8-6.9 of
the SCPE Grid-GUM paper (../shared/papers/000_*) on the sim engine.

  * Table 6.5 (--table 6.5): raytracer and queens on every combination of
    fast (F: Edin3, 1816 MHz) and slow (S: SBC, 933 MHz) machines the
    paper ran, one to six machines, F's LAN 0.20 ms, S's 0.15 ms, 2.03 ms
    between them, 100 Mbit/s. The first letter is the main PE. The claim
    checked: with gum2, replacing an S by an F never makes a run slower
    (every pair of configurations of one length that differ in one
    machine).
  * Tables 6.8-6.9 (--table 6.8): two clusters 35.8 ms apart (E: Edin2,
    1395 MHz, 0.15 ms; M: Muni, 1529 MHz, 0.13 ms; 10 Mbit/s between
    them), low-communication programs (parFib, sumEuler) and
    high-communication ones (raytracer, matMult, linSolv).

Each configuration runs under `--sched gum` and `--sched gum2`, with
--seeds seeds each (3 by default: on two clusters 35 ms apart one seed's
luck moves nfib by half, 0.62 s against 1.04 s); the mean virtual
seconds are printed next to the paper's GRID-GUM run times (the
paper has no gum2 column for these tables). The grids are written to a
temporary directory from the configuration strings.

    python3 bench/multicluster.py                 # both, about 25 minutes
    python3 bench/multicluster.py --table 6.5 --size queens=10
"""

import argparse
import os
import sys
import tempfile

import programs
from programs import print_table

# Machines: speed (MHz), latency inside their LAN (ms).
MACHINES = {
    "F": ("Edin3", 1816, 0.20),
    "S": ("SBC", 933, 0.15),
    "E": ("Edin2", 1395, 0.15),
    "M": ("Muni", 1529, 0.13),
}
# Latency and bandwidth between two clusters (Table 5.2).
BETWEEN = {frozenset("FS"): (2.03, 100), frozenset("EM"): (35.8, 10)}

# Table 6.5 (raytracer, queens(13)): run times in seconds.
T65 = {
    "F": (1483.3, 719.5), "S": (4894.0, 2324.7),
    "FF": (772.8, 384.6), "FS": (1199.4, 753.5), "SS": (2698.5, 1176.9), "SF": (2106.1, 666.3),
    "FFF": (545.1, 249.5), "FFS": (728.6, 768.2), "FSS": (1002.3, 733.6),
    "SSS": (1663.0, 795.7), "SSF": (1047.8, 627.6), "SFF": (1002.1, 478.3),
    "FFFF": (425.9, 258.2), "FFFS": (538.8, 483.0), "FFSS": (675.7, 578.0),
    "FSSS": (833.1, 561.6), "SSSS": (1280.9, 741.6), "SSSF": (916.2, 560.3),
    "SSFF": (1006.7, 563.5), "SFFF": (1046.3, 375.5),
    "FFFFF": (376.7, 181.1), "FFFFS": (422.9, 254.5), "FFFFSS": (519.2, 544.9),
    "FFSSS": (615.3, 530.1), "FSSSS": (755.6, 577.7), "SSSSF": (850.7, 560.5),
    "SSSFF": (786.0, 474.3), "SSFFF": (790.4, 375.4), "SFFFF": (747.6, 316.5),
}
T65_PROGRAMS = ["raytracer", "queens"]

# Tables 6.8 (parFib(45), sumEuler) and 6.9 (raytracer, matMult, linSolv).
T68_CONFIGS = ["M", "E", "MM", "EM", "EE", "MMM", "EMM", "EEM", "EEE", "MMMM", "EMMM",
               "EEMM", "EEEM", "EEEE", "MMMMM", "EMMMM", "EEMMM", "EEEMM", "EEEEEM", "EEEEEE"]
T68_PROGRAMS = ["nfib", "sumEuler", "raytracer", "matmult", "linsolv"]
T68 = {
    "nfib": [867.5, 1070.1, 431.0, 480.6, 536.8, 298.8, 331.1, 338.9, 374.8, 241.9, 251.3,
             268.0, 274.9, 292.9, 205.9, 212.7, 226.2, 224.7, 234.0, 251.3],
    "sumEuler": [3138.5, 3227.6, 1270.4, 1308.8, 1332.8, 869.9, 838.7, 867.9, 899.7, 629.7,
                 670.7, 665.8, 665.5, 662.2, 523.2, 544.0, 553.7, 620.8, 588.4, 570.8],
    "raytracer": [903.8, 1027.8, 548.6, 624.6, 545.7, 383.7, 535.8, 494.9, 387.5, 312.8,
                  497.6, 421.7, 377.9, 326.4, 287.8, 473.8, 413.7, 378.7, 329.9, 279.8],
    "matmult": [265.8, 259.9, 228.8, 393.0, 227.8, 133.0, 297.7, 201.9, 137.8, 121.9, 295.0,
                213.9, 145.9, 114.8, 108.6, 290.8, 228.8, 150.9, 125.1, 95.9],
    "linsolv": [290.0, 299.3, 196.5, 232.0, 164.9, 139.4, 231.8, 141.1, 136.8, 119.5, 142.5,
                134.9, 120.9, 117.1, 104.4, 147.0, 142.1, 104.9, 107.7, 102.9],
}

# Sizes at which one fast PE takes 0.5-3 s of virtual time.
SIZES = {
    "raytracer": "240 180 2",
    "queens": "11",
    "nfib": "34 18",
    "sumEuler": "1 3000 50",
    "matmult": "250",
    "linsolv": "50",
}
SCHEDS = ["gum", "gum2"]


def grid_for(config, tmp):
    """Writes the grid of a configuration string (one or two runs of
    letters) and returns its path."""
    runs = []
    for c in config:
        if runs and runs[-1][0] == c:
            runs[-1][1] += 1
        else:
            runs.append([c, 1])
    letters = {c for c, _ in runs}
    if len(runs) > len(letters):
        sys.exit(f"{config}: a machine kind comes back after another (not a grid of two clusters)")
    # Every configuration against the table's fastest machine, so that
    # an all-S grid is slower than an all-F one.
    fastest = max(MACHINES[c][1] for c in (("F", "S") if letters <= {"F", "S"} else ("E", "M")))
    lines = [f'name = "{config}"', f"reference_speed = {fastest}", ""]
    for c, n in runs:
        name, speed, lat = MACHINES[c]
        lines += ["[[cluster]]", f'name = "{name}"', f"pes = {n}", f"speed = {speed}",
                  f"latency_ms = {lat}", "bandwidth_mbit = 100", ""]
    if len(runs) == 2:
        lat, bw = BETWEEN[frozenset(letters)]
        names = [MACHINES[c][0] for c, _ in runs]
        lines += ["[[link]]", f'between = ["{names[0]}", "{names[1]}"]',
                  f"latency_ms = {lat}", f"bandwidth_mbit = {bw}", ""]
    path = os.path.join(tmp, config + ".toml")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def vtime(gph, grid, sched, prog, args, seed, expected):
    return programs.virtual_time(
        gph, ["--engine", "sim", "--grid", grid, "--sched", sched, "--seed", str(seed)],
        prog, args, expected)


def measure(gph, tmp, configs, prog, args, seeds):
    """{(config, sched): mean virtual seconds over `seeds` seeds}."""
    times, expected = {}, None
    for config in configs:
        grid = grid_for(config, tmp)
        for sched in SCHEDS:
            runs = []
            for seed in range(seeds):
                t, expected = vtime(gph, grid, sched, prog, args, seed, expected)
                runs.append(t)
            times[config, sched] = sum(runs) / seeds
    return times


def table65(gph, tmp, sizes, seeds):
    configs = list(T65)
    broken = []
    for i, prog in enumerate(T65_PROGRAMS):
        args = sizes[prog].split()
        times = measure(gph, tmp, configs, prog, args, seeds)
        rows = [[c, f"{times[c, 'gum']:.3f}", f"{times[c, 'gum2']:.3f}",
                 f"{100 * (1 - times[c, 'gum2'] / times[c, 'gum']):.1f} %", f"{T65[c][i]:.1f}"]
                for c in configs]
        print(f"\nTable 6.5: {prog} {sizes[prog]} (virtual s; paper: GRID-GUM s)")
        print_table(["config", "gum", "gum2", "gum2 gain", "paper"], rows)
        # Replacing one S by an F: never slower under gum2.
        for a in configs:
            for j, c in enumerate(a):
                if c == "S":
                    b = a[:j] + "F" + a[j + 1:]
                    if (b, "gum2") in times and times[b, "gum2"] > times[a, "gum2"] * 1.001:
                        broken.append(f"{prog}: {a} {times[a, 'gum2']:.3f} s -> "
                                      f"{b} {times[b, 'gum2']:.3f} s")
    print("\nReplacing an S by an F under gum2: "
          + ("never slower" if not broken else "slower in " + str(len(broken))))
    for b in broken:
        print("  " + b)


def table68(gph, tmp, sizes, seeds):
    for prog in T68_PROGRAMS:
        args = sizes[prog].split()
        times = measure(gph, tmp, T68_CONFIGS, prog, args, seeds)
        rows = [[c, f"{times[c, 'gum']:.3f}", f"{times[c, 'gum2']:.3f}",
                 f"{100 * (1 - times[c, 'gum2'] / times[c, 'gum']):.1f} %", f"{T68[prog][k]:.1f}"]
                for k, c in enumerate(T68_CONFIGS)]
        which = "6.8" if prog in ("nfib", "sumEuler") else "6.9"
        print(f"\nTable {which}: {prog} {sizes[prog]} (virtual s; paper: GRID-GUM s)")
        print_table(["config", "gum", "gum2", "gum2 gain", "paper"], rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=["6.5", "6.8"], action="append")
    ap.add_argument("--size", action="append", default=[], metavar="NAME=ARGS")
    ap.add_argument("--seeds", type=int, default=3,
                    help="runs per configuration, each with its own --seed (the mean is shown)")
    ap.add_argument("--no-build", action="store_true")
    opts = ap.parse_args()
    sizes = programs.sizes(SIZES, opts.size, ap)
    gph = programs.gph(build=not opts.no_build)
    with tempfile.TemporaryDirectory() as tmp:
        for t in opts.table or ["6.5", "6.8"]:
            (table65 if t == "6.5" else table68)(gph, tmp, sizes, opts.seeds)


if __name__ == "__main__":
    main()
