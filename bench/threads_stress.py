#!/usr/bin/env python3
"""Threads engine stress (issue 32, docs/reliability.md "Threads under
stress"): every parallel golden program (those that import
Control.Parallel or Eden) and the programs of programs/ (at small sizes),
many times each on real threads, each run with a random PE count (2-16)
and a random time slice (`--slice`, 50 to 100,000 reductions). Each run
must print what the program prints (GHC's output; one PE's for
programs/) and exit as it does. A watchdog ends a run that takes longer
than --timeout with SIGTERM (gph then finishes its eventlog) and counts a
hang; every run records an eventlog, kept for a failure and removed
otherwise.

    bench/threads_stress.py                  # 200 runs of each program
    bench/threads_stress.py --runs 20 --only par_
    GPH=path/to/gph bench/threads_stress.py --keep /tmp/stress

Prints one line per failure (the command, and where its eventlog is) and
a summary. Exit status 1 if any run failed.
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs  # noqa: E402
from programs import ROOT, SMALL, Case, differences, failure, golden, run, sweep  # noqa: E402


def parallel(case):
    """Whether a golden program imports GpH's or Eden's modules."""
    try:
        text = open(os.path.join(ROOT, case.file), encoding="utf-8", errors="replace").read()
    except OSError:
        return False
    return any(line.startswith(("import Control.Parallel", "import Eden"))
               for line in text.splitlines())


def run_watched(cmd, stdin, timeout):
    """(exit status or 'hang', stdout, stderr): a run past `timeout` gets
    SIGTERM (gph finishes its eventlog and exits), then SIGKILL."""
    p = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(stdin, timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        try:
            out, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        return "hang", out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200, help="runs of each program (default 200)")
    ap.add_argument("--seed", type=int, default=1, help="seeds the random PE counts and slices")
    ap.add_argument("--only", default="", help="programs whose names start with this")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60, help="seconds before a run is a hang")
    ap.add_argument("--keep", default=None, help="folder for the failures' eventlogs")
    a = ap.parse_args()
    gph = programs.gph()
    keep = a.keep or tempfile.mkdtemp(prefix="gph-stress-")
    os.makedirs(keep, exist_ok=True)

    cases = [c for c in golden("tests/programs") if parallel(c)]
    for name, args in programs.jobs([]):
        args = SMALL.get(name, " ".join(args)).split()
        cases.append(Case(name, os.path.relpath(programs.source(name), ROOT), args))
    cases = [c for c in cases if c.name.startswith(a.only)]
    for c in cases:
        if c.stdout is None:
            c.exit, c.stdout, _ = run(gph, ["--pes", "1"], c, a.timeout)

    rng = random.Random(a.seed)
    work = []
    for c in cases:
        for k in range(a.runs):
            pes = rng.randint(2, 16)
            slice_ = int(10 ** rng.uniform(1.7, 5))
            work.append((c, k, pes, slice_))

    def one(job):
        c, k, pes, slice_ = job
        log = os.path.join(keep, f"{c.name}-{k}.eventlog")
        flags = ["--pes", str(pes), "--slice", str(slice_), "--eventlog", log]
        cmd = [gph, "run", *flags, *c.flags, c.file, "--", *c.args]
        code, out, err = run_watched(cmd, c.stdin, a.timeout)
        problems = differences(c, code, out, err)
        if not problems:
            os.unlink(log) if os.path.exists(log) else None
            return None
        return failure(flags, c, problems, err, " (eventlog kept)")

    failures, secs = sweep(work, one, a.jobs, 500)
    print(f"{len(cases)} programs x {a.runs} runs (2-16 PEs, slices of 50-100,000 "
          f"reductions) = {len(work)} runs: {len(failures)} failed, "
          f"{secs:.0f} s; eventlogs of failures in {keep}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
