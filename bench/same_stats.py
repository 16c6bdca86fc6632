#!/usr/bin/env python3
"""Checks that a change to the runtime changed no behaviour: the programs of
programs/ (small sizes), the parallel golden programs and two deadlocks, on
the sim engine (1, 4, 16 PEs, the hetero8 grid, a few seeds, the tuning
options) and on one real PE. Every run's output, exit status, `--stats`
text and `--stats-json` must be byte-identical, wall time aside (and, on
the threads engine, the busy/idle seconds): the sim is deterministic.

    bench/same_stats.py --record /tmp/before     # before the change
    bench/same_stats.py --against /tmp/before    # after: lists differences

--gph PATH picks the binary (default: the release build, built first;
CARGO_TARGET_DIR is honoured).
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Sizes that run in about a second each.
PROGRAMS = {
    "sumEuler": "1 1500 50",
    "nfib": "27 15",
    "queens": "9",
    "matmult": "120",
    "parsort": "50000 8",
    "edenParsort": "50000 8",
    "mandel": "120 120",
    "raytracer": "80 60",
    "linsolv": "30",
}

SIM = ["--engine", "sim"]
CONFIGS = {
    "sim1": SIM + ["--pes", "1"],
    "sim4s0": SIM + ["--pes", "4"],
    "sim4s7": SIM + ["--pes", "4", "--seed", "7"],
    "sim16s0": SIM + ["--pes", "16"],
    "sim16s7": SIM + ["--pes", "16", "--seed", "7"],
    "hetero8s0": SIM + ["--grid", "programs/grids/hetero8.toml"],
    "hetero8s3": SIM + ["--grid", "programs/grids/hetero8.toml", "--seed", "3"],
    "sim8tuned": SIM + ["--pes", "8", "--seed", "5", "--low-watermark", "1",
                        "--thread-limit", "2", "--fish-delay", "0"],
    "threads1": ["--pes", "1"],
}
SMALL_CONFIGS = ["sim4s0", "sim16s7", "hetero8s0", "sim8tuned"]

# A cross-PE deadlock: a stolen spark needs what the main thread evaluates.
CROSS_LOOP = """import Control.Parallel
main :: IO ()
main = do
  let x = y + 1 :: Int
      y = x * 2
  x `par` (length [1 .. 200000 :: Int] `pseq` print y)
"""


def cases(tmp):
    out = []
    for name, args in PROGRAMS.items():
        for c in CONFIGS:
            out.append((f"{name}.{c}", c, f"programs/{name}.gph", args.split()))
    golden = os.path.join(ROOT, "tests", "programs")
    for f in sorted(os.listdir(golden)):
        if f.startswith("par_") and f.endswith(".gph"):
            for c in SMALL_CONFIGS:
                out.append((f"{f[:-4]}.{c}", c, f"tests/programs/{f}", []))
    loop = os.path.join(tmp, "cross_loop.gph")
    with open(loop, "w") as h:
        h.write(CROSS_LOOP)
    for c in ["sim4s0", "sim16s7", "threads1"]:
        out.append((f"loop.{c}", c, "tests/runtime-errors/loop.gph", []))
        out.append((f"cross_loop.{c}", c, loop, []))
    return out


def normal_stats_text(text):
    """--stats without what depends on the wall clock."""
    text = re.sub(r"reductions \([0-9.]+ M/s\)", "reductions", text)
    return "".join(l for l in text.splitlines(True) if not l.startswith("Total time"))


def run_case(gph, outdir, case, tmp):
    name, config, src, args = case
    js = os.path.join(tmp, name + ".json")
    p = subprocess.run([gph, "run", *CONFIGS[config], "--stats", "--stats-json", js,
                        src, "--", *args], cwd=ROOT, capture_output=True)
    try:
        with open(js) as h:
            stats = json.load(h)
    except (OSError, ValueError):
        stats = {}
    stats.pop("wall_time_s", None)
    if config.startswith("threads"):
        for pe in stats.get("per_pe", []):
            for k in ("busy_s", "idle_s", "blocked_s"):
                pe.pop(k, None)
    with open(os.path.join(outdir, name + ".out"), "wb") as h:
        h.write(p.stdout)
    with open(os.path.join(outdir, name + ".err"), "w") as h:
        h.write(f"exit {p.returncode}\n")
        h.write(normal_stats_text(p.stderr.decode(errors="replace")))
    with open(os.path.join(outdir, name + ".json"), "w") as h:
        json.dump(stats, h, indent=1, sort_keys=True)
        h.write("\n")
    return name


def record(gph, outdir, jobs):
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        cs = cases(tmp)
        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            for _ in ex.map(lambda c: run_case(gph, outdir, c, tmp), cs):
                pass
    return len(cs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", metavar="DIR")
    ap.add_argument("--against", metavar="DIR")
    ap.add_argument("--gph")
    ap.add_argument("--jobs", type=int, default=2)
    opts = ap.parse_args()
    if not (opts.record or opts.against):
        ap.error("--record DIR or --against DIR")
    gph = opts.gph
    if not gph:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        gph = os.path.join(target, "release", "gph")
    gph = os.path.abspath(gph)
    if opts.record:
        n = record(gph, opts.record, opts.jobs)
        print(f"recorded {n} runs in {opts.record}")
        return
    with tempfile.TemporaryDirectory() as now:
        n = record(gph, now, opts.jobs)
        differ = []
        for f in sorted(os.listdir(opts.against)):
            a = open(os.path.join(opts.against, f), "rb").read()
            path = os.path.join(now, f)
            b = open(path, "rb").read() if os.path.exists(path) else None
            if a != b:
                differ.append(f)
                if len(differ) <= 5:
                    subprocess.run(["diff", os.path.join(opts.against, f), path])
        if differ:
            print(f"{len(differ)} files differ: {' '.join(differ)}")
            sys.exit(1)
        print(f"{n} runs: output, --stats and --stats-json identical")


if __name__ == "__main__":
    main()
