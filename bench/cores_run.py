#!/usr/bin/env python3
"""Measures gph on the real cores of the machine it runs on, next to GHC's
-O0 -threaded binaries of the same programs, from a folder that
bench/cores.sh packed (gph, programs/, lazy/, ghc/, this file): the
standard library only, no network, no Rust.

    python3 DIR/cores_run.py [--pes 1,2,4,8,16] [--runs 2] [--out OUTDIR] [--quick]

For each program: gph's wall seconds for the whole command (the program
compiled by a run before, and kept: `gph run`'s cache), the least of
--runs, on each PE count; the speedups; GHC's on
the last count; gph's 1-PE time over GHC's; gph's peak resident memory.
OUTDIR (default: $OUT, else the folder) gets `machine.toml` (gph calibrate
here) and `cores.json` (every run). --quick runs the programs at a tenth
of their size, to try the script.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# The sizes of the 16-core table, and bench/lazy's programs (the
# same algorithms with their shared data left lazy) at the same sizes.
PROGRAMS = [
    ("sumEuler", "programs", "1 10000 100", "1 3000 100"),
    ("nfib", "programs", "38 24", "32 20"),
    ("queens", "programs", "11", "9"),
    ("raytracer", "programs", "400 300", "160 120"),
    ("mandel", "programs", "500 500", "160 160"),
    ("matmult", "programs", "400", "150"),
    ("linsolv", "programs", "70", "30"),
    ("parsort", "programs", "400000 16", "60000 16"),
    ("edenMandel", "programs", "500 500", "160 160"),
    ("edenParsort", "programs", "300000 8", "60000 8"),
    ("matmult", "lazy", "400", "150"),
    ("parsort", "lazy", "400000 16", "60000 16"),
    ("linsolv", "lazy", "70", "30"),
    ("edenParsort", "lazy", "300000 8", "60000 8"),
]

TIMEOUT = 120


def timed(cmd, env=None):
    """Runs cmd; returns (wall seconds, peak RSS in MB, exit status, stdout)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        try:
            p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env)
        except OSError:
            return None, None, -1, b""
        deadline = start + TIMEOUT
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                return None, None, -9, b""
            time.sleep(0.002)
        wall = time.perf_counter() - start
        out.seek(0)
        return wall, ru.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status), out.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pes", default="1,2,4,8,16")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--out", default=os.environ.get("OUT") or HERE)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", help="comma-separated program names")
    opts = ap.parse_args()
    pes = [int(n) for n in opts.pes.split(",")]
    os.makedirs(opts.out, exist_ok=True)
    gph = os.path.join(HERE, "gph")
    env = dict(os.environ, GPH_CACHE_DIR=os.path.join(opts.out, "gph-cache"))
    t0 = time.perf_counter()

    machine = os.path.join(opts.out, "machine.toml")
    subprocess.run([gph, "calibrate", "--name", "cores", "--out", machine], env=env)
    print(f"calibrated in {time.perf_counter() - t0:.0f} s: {machine}", flush=True)

    results = []
    for name, where, args, quick in PROGRAMS:
        if opts.only and name not in opts.only.split(","):
            continue
        args = (quick if opts.quick else args).split()
        src = os.path.join(HERE, where, name + ".gph")
        label = name + (" (lazy)" if where == "lazy" else "")
        r = {"program": label, "args": args, "gph": {}, "rss_mb": {}, "ghc": {}}
        # Compiled once first (and kept): every timed run is a run.
        timed([gph, "run", "--pes", "1", src, "--", *args], env)
        outputs = set()
        for n in pes:
            best, rss = None, None
            for _ in range(opts.runs):
                w, m, code, out = timed([gph, "run", "--pes", str(n), src, "--", *args], env)
                if code != 0 or w is None:
                    continue
                outputs.add(out)
                best = w if best is None else min(best, w)
                rss = m if rss is None else max(rss, m)
            r["gph"][n] = best
            r["rss_mb"][n] = rss
        r["same_output"] = len(outputs) == 1
        exe = os.path.join(HERE, "ghc", ("lazy-" if where == "lazy" else "") + name)
        if os.path.exists(exe):
            for n in (1, pes[-1]):
                times = [timed([exe, *args, "+RTS", f"-N{n}", "-RTS"])[0] for _ in range(opts.runs)]
                times = [t for t in times if t is not None]
                r["ghc"][n] = min(times) if times else None
        results.append(r)
        g = r["gph"]
        cells = " ".join(f"{g[n]:7.2f}" if g[n] else "   fail" for n in pes)
        print(f"{label:<20} {' '.join(args):<12} {cells}  ({time.perf_counter() - t0:.0f} s)", flush=True)

    with open(os.path.join(opts.out, "cores.json"), "w") as f:
        json.dump({"pes": pes, "results": results, "seconds": time.perf_counter() - t0}, f, indent=1)

    last = pes[-1]
    head = (f"{'program':<20} {'args':<12} " + " ".join(f"{str(n) + ' PE':>7}" for n in pes)
            + f" {'gph x' + str(last):>8} {'GHC x' + str(last):>8} {'gph/GHC 1':>9}  peak MB by PEs")
    print()
    print(head)
    print("-" * len(head))
    for r in results:
        g, h = r["gph"], r["ghc"]
        cells = " ".join(f"{g[n]:7.2f}" if g[n] else "   fail" for n in pes)
        sp = f"{g[1] / g[last]:8.1f}" if g.get(1) and g.get(last) else f"{'-':>8}"
        gsp = f"{h[1] / h[last]:8.1f}" if h.get(1) and h.get(last) else f"{'-':>8}"
        rel = f"{g[1] / h[1]:9.2f}" if g.get(1) and h.get(1) else f"{'-':>9}"
        mem = " ".join(f"{r['rss_mb'][n]:.0f}" if r["rss_mb"][n] else "-" for n in pes)
        flag = "" if r["same_output"] else "  OUTPUTS DIFFER"
        print(f"{r['program']:<20} {' '.join(r['args']):<12} {cells} {sp} {gsp} {rel}  {mem}{flag}")
    print(f"\n{time.perf_counter() - t0:.0f} s in all; {opts.out}/cores.json, {machine}")


if __name__ == "__main__":
    sys.exit(main())
