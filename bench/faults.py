#!/usr/bin/env python3
"""The fault sweep (issue 32, docs/reliability.md "Faults"): every program
of tests/programs, tests/runtime-errors and programs/ on the sim engine
under `--faults SEED` for many seeds, on 4 and 16 PEs, under gum and gum2;
each run must print what the program prints without faults (the oracle's
output for the golden programs, one PE's for programs/) and exit as it
does. A run that takes longer than --timeout is a hang.

    bench/faults.py                      # 100 seeds x {4,16} x {gum,gum2}
    bench/faults.py --seeds 5 --only par_ # five seeds, programs named par_*
    GPH=path/to/gph bench/faults.py       # another build

Prints one line per failure (the command to run it again) and a summary:
programs x seeds x configurations tried, failures, time. Exit status 1
if any run failed.
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs  # noqa: E402

ROOT = programs.ROOT

# programs/ at sizes a sweep of hundreds of runs each can afford (their
# .args are the benchmarks' sizes).
SMALL = {
    "edenEcho": "1 3000",
    "edenMandel": "80 60",
    "edenParsort": "20000 8",
    "edenRaytracer": "60 40",
    "edenSorts": "parsort 20000",
    "linsolv": "20",
    "mandel": "80 60",
    "matmult": "60",
    "nfib": "22 15",
    "parsort": "20000 8",
    "queens": "8",
    "raytracer": "60 40",
    "sumEuler": "1 600 30",
}


class Case:
    """A program, how to run it, and what it must print."""

    def __init__(self, name, file, args=(), flags=(), stdin=b"", stdout=None, exit=0):
        self.name, self.file = name, file
        self.args, self.flags = list(args), list(flags)
        self.stdin, self.stdout, self.exit = stdin, stdout, exit


def read(path, binary=False):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        data = f.read()
    return data if binary else data.decode("utf-8", "replace")


def golden(folder):
    """The programs of a golden folder (tests/README.md's layout)."""
    out = []
    base = os.path.join(ROOT, folder)
    for entry in sorted(os.listdir(base)):
        path = os.path.join(base, entry)
        if os.path.isdir(path):
            mains = [os.path.join(path, m) for m in ("Main.gph", "Main.hs", "Main.lhs")]
            file = next((m for m in mains if os.path.isfile(m)), None)
            name = entry
        elif entry.endswith((".gph", ".lhs")):
            file, name = path, entry.rsplit(".", 1)[0]
        else:
            continue
        if file is None:
            continue
        stem = file.rsplit(".", 1)[0]
        words = lambda ext: (read(stem + ext) or "").split()  # noqa: E731
        code = read(stem + ".exitcode")
        exit_code = int(code) if code else (1 if folder.endswith("runtime-errors") else 0)
        out.append(Case(name, os.path.relpath(file, ROOT), words(".args"), words(".flags"),
                        read(stem + ".stdin", True) or b"", read(stem + ".stdout") or "",
                        exit_code))
    return out


def run(gph, flags, case, timeout):
    """(exit status or 'timeout', stdout, stderr) of one run."""
    cmd = [gph, "run", *flags, *case.flags, case.file, "--", *case.args]
    try:
        p = subprocess.run(cmd, input=case.stdin, capture_output=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=100, help="how many fault seeds (default 100)")
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--pes", default="4,16", help="PE counts, comma-separated")
    ap.add_argument("--sched", default="gum,gum2", help="load policies, comma-separated")
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

    configs = [(p, s) for p in a.pes.split(",") for s in a.sched.split(",")]
    seeds = range(a.first_seed, a.first_seed + a.seeds)
    work = [(c, p, s, seed) for c in cases for p, s in configs for seed in seeds]
    start = time.time()
    failures = []

    def one(job):
        c, pes, sched, seed = job
        flags = ["--engine", "sim", "--pes", pes, "--sched", sched, "--faults", str(seed)]
        code, out, err = run(gph, flags, c, a.timeout)
        problems = []
        if code != c.exit:
            problems.append(f"exit {code}, expected {c.exit}")
        if out != c.stdout:
            problems.append("stdout differs")
        if "panicked" in err:
            problems.append("panic")
        if problems:
            cmd = " ".join(["gph run", *flags, *c.flags, c.file, "--", *c.args])
            return f"{cmd}: {'; '.join(problems)}\n  {err.strip()[-300:]}"
        return None

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for done, r in enumerate(pool.map(one, work), 1):
            if r:
                failures.append(r)
                print(r, flush=True)
            if done % 1000 == 0:
                print(f"... {done}/{len(work)} runs, {len(failures)} failed, "
                      f"{time.time() - start:.0f} s", file=sys.stderr, flush=True)
    print(f"{len(cases)} programs x {a.seeds} seeds x {len(configs)} configurations "
          f"({', '.join(f'{p} PEs {s}' for p, s in configs)}) = {len(work)} runs: "
          f"{len(failures)} failed, {time.time() - start:.0f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
