#!/usr/bin/env python3
"""The fault sweep (issue 32, docs/reliability.md "Faults"): every program
of tests/programs, tests/runtime-errors and programs/ on the sim engine
under `--faults SEED` for many seeds, on 4 and 16 PEs, under gum and gum2;
each run must print what the program prints without faults (the oracle's
output for the golden programs, one PE's for programs/) and exit as it
does. A run that takes longer than --timeout is a hang.

    bench/faults.py                      # 100 seeds x {4,16} x {gum,gum2}
    bench/faults.py --seeds 5 --only par_ # five seeds, programs named par_*
    bench/faults.py --pes '' --grid programs/grids/hetero8.toml  # on a grid
    GPH=path/to/gph bench/faults.py       # another build

Prints one line per failure (the command to run it again) and a summary:
programs x seeds x configurations tried, failures, time. Exit status 1
if any run failed.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs  # noqa: E402
from programs import ROOT, SMALL, Case, differences, failure, golden, run, sweep  # noqa: E402

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=100, help="how many fault seeds (default 100)")
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--pes", default="4,16", help="PE counts, comma-separated")
    ap.add_argument("--sched", default="gum,gum2", help="load policies, comma-separated")
    ap.add_argument("--grid", action="append", default=[],
                    help="a grid file to run on too (with each policy); may be repeated")
    ap.add_argument("--only", default="", help="programs whose names start with this")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120, help="seconds a run may take")
    a = ap.parse_args()
    gph = programs.gph()

    cases = golden("tests/programs") + golden("tests/runtime-errors")
    for name, args in programs.jobs([]):
        args = SMALL.get(name, " ".join(args)).split()
        cases.append(Case(name, os.path.relpath(programs.source(name), ROOT), args))
    cases = [c for c in cases if c.name.startswith(a.only)]
    # programs/ print what one PE prints.
    for c in cases:
        if c.stdout is None:
            c.exit, c.stdout, _ = run(gph, ["--pes", "1"], c, a.timeout)

    # (what it is, its flags)
    configs = [(f"{p} PEs {s}", ["--pes", p, "--sched", s])
               for p in a.pes.split(",") if p for s in a.sched.split(",")]
    configs += [(f"{os.path.basename(g)} {s}", ["--grid", g, "--sched", s])
                for g in a.grid for s in a.sched.split(",")]
    seeds = range(a.first_seed, a.first_seed + a.seeds)
    work = [(c, flags, seed) for c in cases for _, flags in configs for seed in seeds]

    def one(job):
        c, config, seed = job
        flags = ["--engine", "sim", *config, "--faults", str(seed)]
        code, out, err = run(gph, flags, c, a.timeout)
        problems = differences(c, code, out, err)
        return failure(flags, c, problems, err) if problems else None

    failures, secs = sweep(work, one, a.jobs, 1000)
    print(f"{len(cases)} programs x {a.seeds} seeds x {len(configs)} configurations "
          f"({', '.join(what for what, _ in configs)}) = {len(work)} runs: "
          f"{len(failures)} failed, {secs:.0f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
