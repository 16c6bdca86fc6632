#!/usr/bin/env python3
"""The grid skeletons' experiments on the sim engine (docs/skeletons.md).

    bench/skeletons.py [--quick] [--only 003|004]

003 (Shih, Yang, Tseng): matrix multiplication (its Fig. 6), association
rule mining by count distribution (Fig. 8) and Mandelbrot (Fig. 10) under
every schedule, on the TIGER grid (programs/grids/tiger16.toml) and the
same grid with loaded machines (tiger16-loaded.toml), and PWD's w1 from 0
to 1 (Figs. 5, 7, 9).

004 (González-Vélez, Cole): the task farm over S = 960, 3840, 9600 equal
tasks on 8, 16, 32 workers, adaptive (aspFarm) against the one-by-one work
queue (dlMap PSS) (its Table II, Fig. 4); the pipeline of 8, 16, 32 stages
over S = 32 .. 512 items, adaptive (aspPipe) against the naive mapping
(naivePipe) (its Table III, Fig. 5); on non-dedicated grids whose load
changes during the run (bench/skeletons/grids/aspara*.toml; the pipeline's
runs are shorter, and its grids' loads change faster: aspara*p.toml).

Prints virtual seconds (host-independent) as markdown tables. Needs
target/release/gph (cargo build --release).
"""
import json, os, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPH = os.path.join(ROOT, "target", "release", "gph")
SK = os.path.join(ROOT, "bench", "skeletons")
GRIDS = os.path.join(ROOT, "programs", "grids")
QUICK = "--quick" in sys.argv

SCHEDULES = [("static", ["static"]), ("gss", ["gss"]), ("fss", ["fss"]), ("tss", ["tss"]),
             ("ngss(30)", ["ngss", "30"]), ("ngss(75)", ["ngss", "75"]), ("pwd(0.9)", ["pwd", "0.9"])]
APPS = [  # program, sizes, the size of the w1 sweep, 003's best w1
    ("matmul", [128, 192, 256, 320], 256, 0.9),
    ("apriori", [2000, 4000, 6000, 8000], 4000, 0.6),
    ("mandel", [64, 128, 192, 256], 128, 0.8),
]


def run(prog, size, sched, grid):
    args = [str(size)] if size is not None else []
    with tempfile.NamedTemporaryFile(suffix=".json") as st:
        path = grid if os.path.isabs(grid) else os.path.join(GRIDS, grid)
        cmd = [GPH, "run", "--engine", "sim", "--grid", path,
               "--stats-json", st.name, os.path.join(SK, prog + ".gph"), "--"] + args + sched
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if out.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {out.stderr}")
        return out.stdout.strip(), json.load(open(st.name))["virtual_time_s"]


def table(title, cols, rows):
    print(f"\n{title}\n")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(r) + " |")


def versus(pool, title, cols, prog, grids, sizes, args, modes):
    """Runs prog in both modes for every grid and size and prints the
    times and the first mode's gain over the second."""
    jobs = {(n, s, m): pool.submit(run, prog, None, args(n, s) + [m], grids[n])
            for n in grids for s in sizes for m in modes}
    rows = []
    for n in grids:
        for s in sizes:
            a, b = (jobs[(n, s, m)].result() for m in modes)
            assert a[0] == b[0], f"{prog}: {modes[0]} and {modes[1]} disagree"
            rows.append([str(n), str(s), f"{a[1]:.4f}", f"{b[1]:.4f}", f"{(b[1] - a[1]) / b[1] * 100:+.1f} %"])
    table(title, cols, rows)


def paper004(pool):
    grids = {n: os.path.join(SK, "grids", f"aspara{n}.toml") for n in (8, 16, 32)}
    versus(pool, "004's task farm: virtual seconds (gain: adaptive over the work queue; the paper: -0.3 % to +3.4 %)",
           ["workers", "S", "adaptive", "one-by-one", "gain"], "aspfarm", grids,
           [960, 3840] if QUICK else [960, 3840, 9600], lambda n, s: [str(s)], ("adaptive", "queue"))
    pipes = {n: os.path.join(SK, "grids", f"aspara{n}p.toml") for n in (8, 16, 32)}
    versus(pool, "004's pipeline: virtual seconds (gain: adaptive over the naive mapping; the paper: +2.6 % to +16.6 %)",
           ["stages", "S", "adaptive", "naive", "gain"], "asppipe", pipes,
           [32, 128] if QUICK else [32, 64, 128, 256, 512], lambda n, s: [str(n), str(s)], ("adaptive", "naive"))


def main():
    pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
    if "--only" in sys.argv and sys.argv[sys.argv.index("--only") + 1] == "004":
        return paper004(pool)
    only003 = "--only" in sys.argv
    for grid in ["tiger16.toml", "tiger16-loaded.toml"]:
        for prog, sizes, sweep, best in APPS:
            sizes = sizes[:2] if QUICK else sizes
            jobs = {(s, n): pool.submit(run, prog, s, sch, grid) for s in sizes for n, sch in SCHEDULES}
            rows = []
            for n, _ in SCHEDULES:
                rows.append([n] + [f"{jobs[(s, n)].result()[1]:.4f}" for s in sizes])
            outs = {jobs[k].result()[0] for k in jobs}
            for s in sizes:
                assert len({jobs[(s, n)].result()[0] for n, _ in SCHEDULES}) == 1, "schedules disagree"
            fastest = [min(SCHEDULES, key=lambda x: jobs[(s, x[0])].result()[1])[0] for s in sizes]
            rows.append(["fastest"] + fastest)
            table(f"{prog} on {grid}: virtual seconds by size", ["schedule"] + [str(s) for s in sizes], rows)
            ws = [i / 10 for i in range(0, 11, 2 if QUICK else 1)]
            sw = {w: pool.submit(run, prog, sweep, ["pwd", str(w)], grid) for w in ws}
            times = {w: sw[w].result()[1] for w in ws}
            bw = min(ws, key=lambda w: times[w])
            table(f"{prog} {sweep} on {grid}: PWD's w1 (003 found {best} best)", ["w1"] + [str(w) for w in ws],
                  [["seconds"] + [f"{times[w]:.4f}" for w in ws], ["best"] + ["*" if w == bw else "" for w in ws]])
    if not only003:
        paper004(pool)


if __name__ == "__main__":
    main()
