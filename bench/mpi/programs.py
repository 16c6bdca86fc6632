#!/usr/bin/env python3
"""The mpi engine on whole programs (docs/mpi.md, "Measurements").

For each program: wall seconds on the threads engine with 1 and 2 PEs,
`mpirun -np 2` (shared memory), and with --tcp N, `mpirun -np N` across
the namespace hosts of netns.sh (TCP; run as root) next to the sim
engine's speedup for N PEs (its virtual times, 1 PE / N PEs) of the
machine file --machine (default bench/mpi/netns4.toml, the 2-core machine
with four namespace hosts; --machine none: the sim's own default LAN). Best
of --runs runs each. The same gph binary (built with --features mpi) runs
every engine.

  cargo build --release --features mpi --bin gph-mpi
  python3 bench/mpi/programs.py [--runs 2] [--tcp 4] [--quick] [--machine FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPH = os.path.join(ROOT, "target/release/gph-mpi")
# Sizes at which one PE takes 2 s or more on the 2-core development machine.
PROGRAMS = [
    ("sumEuler", ["1", "5000", "100"]),
    ("nfib", ["39", "20"]),
    ("queens", ["12"]),
    ("raytracer", ["600", "500"]),
    ("edenMandel", ["500", "500"]),
]
QUICK = [
    ("sumEuler", ["1", "1500", "50"]),
    ("nfib", ["30", "15"]),
    ("queens", ["10"]),
    ("raytracer", ["160", "120"]),
    ("edenMandel", ["200", "200"]),
]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def timed(cmd, expect=None):
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=ENV, capture_output=True, text=True)
    took = time.perf_counter() - t
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    if expect is not None and out.stdout != expect:
        sys.exit(f"{' '.join(cmd)}: output differs from 1 PE")
    return took, out.stdout


def best(cmd, runs, expect):
    return min(timed(cmd, expect)[0] for _ in range(runs))


def best_run(cmd, runs, expect):
    """The least whole-command seconds and the least run seconds (the
    run's own `wall_time_s`: without starting the ranks, which takes
    0.35 s for mpirun across 4 namespaces, and without compiling)."""
    whole, run = [], []
    for _ in range(runs):
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            at = cmd.index("run") + 1
            whole.append(timed(cmd[:at] + ["--stats-json", f.name] + cmd[at:], expect)[0])
            run.append(json.load(open(f.name))["wall_time_s"])
    return min(whole), min(run)


def virtual_time(prog, args, pes, machine):
    grid = [] if machine == "none" else ["--grid", machine]
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        timed([GPH, "run", "--engine", "sim", "--pes", str(pes), "--stats-json", f.name]
              + grid + [f"programs/{prog}.gph", "--"] + args)
        return json.load(open(f.name))["virtual_time_s"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--tcp", type=int, default=0, help="ranks across namespace hosts")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--machine", default=os.path.join(ROOT, "bench/mpi/netns4.toml"),
                    help="the sim's machine file, or none")
    o = ap.parse_args()
    if o.tcp:
        subprocess.run([os.path.join(ROOT, "bench/mpi/netns.sh"), "up", str(o.tcp)], check=True)
    head = f"{'program (args)':28} {'1 PE':>6} {'2 PEs':>6} {'mpi 2':>6} {'mpi/thr':>7}"
    if o.tcp:
        head += (f" {'tcp ' + str(o.tcp):>7} {'speedup':>7} {'run 1':>6} {'run ' + str(o.tcp):>6}"
                 f" {'speedup':>7} {'sim':>5} {'ratio':>6}")
    print(head)
    for prog, args in QUICK if o.quick else PROGRAMS:
        run = ["run", f"programs/{prog}.gph", "--"] + args
        _, expect = timed([GPH] + run[:1] + ["--pes", "1"] + run[1:])
        one, one_run = best_run([GPH, "run", "--pes", "1"] + run[1:], o.runs, expect)
        two = best([GPH, "run", "--pes", "2"] + run[1:], o.runs, expect)
        # ob1, MPI's own point-to-point layer: probing for UCX first added
        # 0.2 s to every start (0.32 s against 0.12 s for an empty program).
        mpi = best(["mpirun", "--mca", "pml", "ob1", "-np", "2", GPH, "run", "--engine", "mpi"]
                   + run[1:], o.runs, expect)
        line = f"{prog + ' ' + ' '.join(args):28} {one:6.2f} {two:6.2f} {mpi:6.2f} {mpi / two:7.2f}"
        if o.tcp:
            tcp, tcp_run = best_run([os.path.join(ROOT, "bench/mpi/mpirun-tcp"), "-np",
                                     str(o.tcp), GPH, "run", "--engine", "mpi"] + run[1:],
                                    o.runs, expect)
            sim = (virtual_time(prog, args, 1, o.machine)
                   / virtual_time(prog, args, o.tcp, o.machine))
            line += (f" {tcp:7.2f} {one / tcp:7.2f} {one_run:6.2f} {tcp_run:6.2f}"
                     f" {one_run / tcp_run:7.2f} {sim:5.2f} {one_run / tcp_run / sim:6.2f}")
        print(line, flush=True)
    if o.tcp:
        subprocess.run([os.path.join(ROOT, "bench/mpi/netns.sh"), "down"])


if __name__ == "__main__":
    main()
