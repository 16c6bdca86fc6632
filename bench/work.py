#!/usr/bin/env python3
"""The work one PE does, before and after a change to the compiler: the
reductions and the bytes allocated (`gph run --pes 1 --stats-json`) of
every program of tests/programs/, programs/ and bench/styles/ (its .args,
.stdin), for two binaries, with the ratios. A program whose reductions or
allocation grew by more than 3 % is marked `<<<`; the largest falls are
listed last. Counts, unlike times, do not depend on the machine's load.

    bench/work.py OLD_GPH NEW_GPH            # e.g. a copy of the release
                                             # binary before the change
(Programs with a .flags file, which set limits, and those that fail or run
past 20 s are left out; a few read the clock and vary by themselves:
lib_system_timeout.)
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def work(gph, program):
    """(reductions, bytes allocated) of one run, or None."""
    base = program[: -len(".gph")]
    args = open(base + ".args").read().split() if os.path.exists(base + ".args") else []
    stdin = open(base + ".stdin", "rb") if os.path.exists(base + ".stdin") else subprocess.DEVNULL
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        try:
            r = subprocess.run(
                [gph, "run", "--pes", "1", "--stats-json", out.name, program, "--", *args],
                stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                timeout=20, cwd=ROOT,
            )
            stats = json.load(open(out.name))
        except (subprocess.TimeoutExpired, ValueError):
            return None
    if r.returncode != 0:
        return None
    pes = stats["per_pe"]
    return sum(p["reductions"] for p in pes), sum(p["allocated_bytes"] for p in pes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    a = ap.parse_args()
    programs = [
        p
        for d in ("tests/programs", "programs", "bench/styles")
        for p in sorted(glob.glob(os.path.join(ROOT, d, "*.gph")))
        if not os.path.exists(p[: -len(".gph")] + ".flags")
    ]
    rows = []
    for p in programs:
        old, new = work(a.old, p), work(a.new, p)
        if old is None or new is None:
            continue
        ratio = [n / o if o else 1.0 for o, n in zip(old, new)]
        name = os.path.relpath(p, ROOT)
        mark = "  <<<" if max(ratio) > 1.03 else ""
        print(f"{name:55s} reductions {ratio[0]:6.3f} allocation {ratio[1]:6.3f}"
              f"  ({old[0]} -> {new[0]}){mark}", flush=True)
        rows.append((ratio[0], name))
    rows.sort()
    print("\nlargest falls in reductions:")
    for r, name in rows[:10]:
        print(f"  {r:6.3f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
