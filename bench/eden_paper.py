#!/usr/bin/env python3
"""The measurements of Berthold's "Dynamic Chunking in Eden" on gph.

Runs the paper's programs on the sim engine on programs/grids/beowulf8.toml
(the paper's cluster: 8 PEs, 100 Mbit/s, lambda = 63.34 us per packet and
beta = 0.1 us per 32-bit word charged to the sender), each without
(`--no-chunking`: every message a packet of its own, the paper's "normal"
runtime) and with the packet layer (the default), and prints gph's virtual
times beside the paper's:

  1. the paper's table (section 4.2): parsort of 100K Ints, Mandelbrot
     300x300, the hand-chunked raytracer; the ratio without/with and
     whether it meets the target (parsort >= 2.5, Mandelbrot >= 1.5,
     raytracer within +-5 %);
  2. the statically chunked sorts (the paper's Fig. 6, no figures in its
     text): parsortchunk and parsortchunk2 for a few chunk sizes;
  3. the echo curve (Fig. 5): 10,000 elements of SIZE Ints through
     `process id`, for SIZE from 1 to 1000, and the break-even size from
     which chunking gains nothing (the times equal within 0.1 %). Sizes
     are also given in 32-bit words as the grid charges them: the HEAD
     bytes per element (from --stats-json) over 4;
  4. speedups over one PE (virtual time on `--engine sim --pes 1` over the
     chunked time on beowulf8; targets: the Mandelbrot farm >= 5,
     edenParsort >= 2.5), and, for comparison, on 8 PEs of the default LAN
     (`--pes 8`, no sending costs);
  5. with --threads, parsort and Mandelbrot on the threads engine (1, 2 and
     4 PEs, with and without chunking): median wall time of --runs runs
     (the run itself, from --stats-json, without compiling).

Each program's output must be the same in every configuration; a run
whose output differs from the program's first run is flagged DIFF.

    python3 bench/eden_paper.py                  # 1-4, about 3 minutes
    python3 bench/eden_paper.py --threads        # and 5 (20 s more)
    python3 bench/eden_paper.py --only echo --echo-sizes 1,10,100 --echo-count 2000
    python3 bench/eden_paper.py --size parsort=50000 --size mandel="200 200"

--size NAME=ARGS replaces a program's arguments: parsort (N), parsortchunk
(N; the chunk sizes come from --chunk-sizes), mandel (W H), raytracer
(W H), mandel-deep (W H DEPTH, part 4 only), edenParsort (N K).
"""

import argparse
import os
import statistics
import sys

import programs
from programs import PROGDIR, print_table

GRID = os.path.join(PROGDIR, "grids", "beowulf8.toml")
BEOWULF = ["--engine", "sim", "--grid", GRID]
ONE_PE = ["--engine", "sim", "--pes", "1"]
LAN8 = ["--engine", "sim", "--pes", "8"]
NO_CHUNKING = ["--no-chunking"]

# Default arguments: the paper's sizes where it gives them.
SIZES = {
    "parsort": "100000",          # "100K Integers"
    "parsortchunk": "100000",
    "mandel": "300 300",          # "300x300 pixels"
    # The same picture with pixels about 3.7 times dearer (215 steps on
    # average instead of 59): the paper's pixels cost about 1.8 ms each on
    # 8 PEs, ours 11 us at depth 255, so its farm's serial share was small.
    "mandel-deep": "300 300 1000",
    "raytracer": "400 300",       # "huge scene": about the Mandelbrot's work
    "edenParsort": "100000 8",
}

# The paper's table, section 4.2: seconds without and with dynamic
# chunking, 8 PEs of the Beowulf cluster.
PAPER = {
    "parsort": (37.9, 13.7),
    "mandel": (38.3, 20.3),
    "raytracer": (27.3, 26.9),
}
PAPER_ECHO_BREAK_EVEN_WORDS = 300   # section 4.2, Fig. 5: "around 300 words"
# Chunked and unchunked echo times this close (relative gain) count as equal.
EVEN = 0.001


class Runner:
    """Runs gph and remembers each program's first output."""

    def __init__(self, gph):
        self.gph = gph
        self.first = {}

    def run(self, flags, prog, args):
        """Runs programs/PROG.gph; returns (stats dict, note), the note
        "DIFF" when the output is not the program's first output (or the
        exit status when the run failed)."""
        proc, stats = programs.run_with_stats(
            self.gph, flags, os.path.join(PROGDIR, prog + ".gph"), args)
        if proc.returncode != 0:
            return stats, f"exit {proc.returncode}: {proc.stderr.strip()[:200]}"
        # The sorts print the variant's name first; compare the rest.
        out = proc.stdout.split("\n", 1)[1] if prog == "edenSorts" else proc.stdout
        key = (prog, args[1] if prog == "edenSorts" else " ".join(args))
        if self.first.setdefault(key, out) != out:
            return stats, "DIFF"
        return stats, ""

    def vtime(self, flags, prog, args):
        """(virtual seconds, stats, note) of one sim run."""
        stats, note = self.run(flags, prog, args)
        return stats.get("virtual_time_s"), stats, note


def fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def ratio(a, b):
    return a / b if a is not None and b else None


def yes(ok):
    return "-" if ok is None else ("yes" if ok else "NO")


def paper_table(run, sizes):
    print("1. The paper's table: 8 PEs (beowulf8), seconds without and with chunking")
    print("   (paper: real seconds on the Beowulf; gph: virtual seconds of the sim engine)\n")
    jobs = [
        ("parsort", "edenSorts", ["parsort", *sizes["parsort"].split()],
         lambda r: r >= 2.5, ">= 2.5x"),
        ("mandel", "edenMandel", sizes["mandel"].split(),
         lambda r: r >= 1.5, ">= 1.5x"),
        ("raytracer", "edenRaytracer", sizes["raytracer"].split(),
         lambda r: abs(1 / r - 1) <= 0.05, "+-5 %"),
    ]
    rows = []
    for name, prog, args, target, target_text in jobs:
        paper = PAPER[name]
        without, _, n1 = run.vtime(BEOWULF + NO_CHUNKING, prog, args)
        with_, _, n2 = run.vtime(BEOWULF, prog, args)
        r = ratio(without, with_)
        rows.append([name, " ".join(args), fmt(paper[0], ".1f"), fmt(paper[1], ".1f"),
                     fmt(paper[0] / paper[1], ".2f"), fmt(without), fmt(with_), fmt(r, ".2f"),
                     target_text, yes(None if r is None else target(r)), (n1 + " " + n2).strip()])
    print_table(["program", "args", "paper w/o", "paper with", "ratio", "gph w/o", "gph with",
                 "ratio", "target", "met", ""], rows)
    print("\n   ratio = time without chunking / time with; the raytracer's target is"
          "\n   with/without within 0.95 .. 1.05.\n")


def chunk_table(run, sizes, chunk_sizes):
    print("2. Static chunking (the paper's Fig. 6): the sorts on beowulf8, virtual seconds\n")
    n = sizes["parsortchunk"].split()
    rows = []
    for variant in ["parsort", "parsortchunk", "parsortchunk2"]:
        for s in [None] if variant == "parsort" else chunk_sizes:
            args = [variant, *n] + ([] if s is None else [str(s)])
            without, _, n1 = run.vtime(BEOWULF + NO_CHUNKING, "edenSorts", args)
            with_, _, n2 = run.vtime(BEOWULF, "edenSorts", args)
            rows.append([variant, "-" if s is None else str(s), fmt(without), fmt(with_),
                         fmt(ratio(without, with_), ".2f"), (n1 + " " + n2).strip()])
    print_table(["variant", "chunk", "w/o", "with", "ratio", ""], rows)
    print()


def echo_curve(run, sizes, count):
    print(f"3. echo (Fig. 5): {count} elements of SIZE Ints through `process id`, beowulf8,"
          " virtual seconds\n")
    rows, points = [], []
    for size in sizes:
        args = [str(size), str(count)]
        without, stats, n1 = run.vtime(BEOWULF + NO_CHUNKING, "edenEcho", args)
        with_, _, n2 = run.vtime(BEOWULF, "edenEcho", args)
        head = stats.get("messages", {}).get("HEAD", {})
        words = head["bytes"] / head["count"] / 4 if head.get("count") else None
        if words is not None and without is not None and with_ is not None:
            points.append((size, words, without, with_))
        rows.append([str(size), fmt(words, ".0f"), fmt(without), fmt(with_),
                     fmt(ratio(without, with_), ".4f"), (n1 + " " + n2).strip()])
    print_table(["Ints", "words", "w/o", "with", "w/o / with", ""], rows)
    print("\n   words: 32-bit words per element as sent (HEAD bytes per message / 4),"
          "\n   what the grid charges beta for.")
    # The break-even point: the first size at which chunking gains no more
    # than EVEN (the two times equal within it), interpolated linearly on
    # the gain (without / with - 1) from the size before it to zero.
    paper = f"(paper: about {PAPER_ECHO_BREAK_EVEN_WORDS} words)"
    gains = [(s, w, a / b - 1) for s, w, a, b in points]
    even = next((i for i, (_, _, g) in enumerate(gains) if g <= EVEN), None)
    if even is None and gains:
        s, w, g = gains[-1]
        print(f"   break-even: none up to {s} Ints = {w:.0f} words, where chunking still"
              f" gains {g * 100:.2f} % {paper}")
    elif even == 0:
        print(f"   break-even: chunking gains nothing even at {gains[0][0]} Ints {paper}")
    elif even is not None:
        (s0, w0, g0), (s1, w1, g1) = gains[even - 1], gains[even]
        f = min(1.0, g0 / (g0 - g1))
        print(f"   break-even: about {s0 + f * (s1 - s0):.0f} Ints ="
              f" {w0 + f * (w1 - w0):.0f} words per element {paper}")
        worst = min(g for _, _, g in gains[even:])
        if worst < 0:
            print(f"   beyond it, chunking costs at most {-worst * 100:.2f} %")
    print()


def speedups(run, sizes):
    print("4. Speedup over one PE (virtual seconds; the 8-PE runs with chunking)\n")
    jobs = [
        ("Mandelbrot farm", "edenMandel", sizes["mandel"].split(), 5.0),
        ("Mandelbrot farm", "edenMandel", sizes["mandel-deep"].split(), 5.0),
        ("edenParsort", "edenParsort", sizes["edenParsort"].split(), 2.5),
        ("parsort", "edenSorts", ["parsort", *sizes["parsort"].split()], None),
        ("raytracer", "edenRaytracer", sizes["raytracer"].split(), None),
    ]
    rows = []
    for name, prog, args, target in jobs:
        one, _, n1 = run.vtime(ONE_PE, prog, args)
        beo, stats, n2 = run.vtime(BEOWULF, prog, args)
        lan, _, n3 = run.vtime(LAN8, prog, args)
        s = ratio(one, beo)
        rows.append([name, " ".join(args), fmt(one), fmt(beo), fmt(s, ".2f"),
                     "-" if target is None else f">= {target:g}x",
                     yes(None if target is None or s is None else s >= target),
                     fmt(busiest_bound(stats), ".2f"),
                     fmt(lan), fmt(ratio(one, lan), ".2f"), " ".join([n1, n2, n3]).strip()])
    print_table(["program", "args", "1 PE", "beowulf8", "speedup", "target", "met",
                 "bound", "LAN 8", "speedup", ""], rows)
    print("\n   bound: the run's reductions over those of its busiest PE on beowulf8"
          " (the main PE,\n   with its own serial work and one worker), the most any"
          " sending costs could allow.\n   LAN 8: `--engine sim --pes 8`, 0.2 ms apart"
          " at 100 Mbit/s, no sending costs.\n")


def busiest_bound(stats):
    """Total reductions over the busiest PE's: the speedup a run could
    reach if sending cost nothing, its work placed as it was."""
    per_pe = [pe.get("reductions", 0) for pe in stats.get("per_pe", [])]
    return sum(per_pe) / max(per_pe) if per_pe and max(per_pe) else None


def threads(run, sizes, runs):
    print(f"5. The threads engine: median wall seconds of {runs} runs (the run, not the"
          " compilation)\n")
    jobs = [
        ("parsort", "edenSorts", ["parsort", *sizes["parsort"].split()]),
        ("Mandelbrot", "edenMandel", sizes["mandel"].split()),
    ]
    rows = []
    for name, prog, args in jobs:
        for pes in [1, 2, 4]:
            cells, notes = [], []
            for flags in [NO_CHUNKING, []]:
                times = []
                for _ in range(runs):
                    stats, note = run.run(["--engine", "threads", "--pes", str(pes), *flags],
                                          prog, args)
                    if note:
                        notes.append(note)
                    if "wall_time_s" in stats:
                        times.append(stats["wall_time_s"])
                cells.append(statistics.median(times) if times else None)
            rows.append([name, str(pes), fmt(cells[0]), fmt(cells[1]),
                         fmt(ratio(cells[0], cells[1]), ".2f"), " ".join(sorted(set(notes)))])
    print_table(["program", "PEs", "w/o", "with", "ratio", ""], rows)
    print(f"\n   (the machine has {os.cpu_count()} cores; other load distorts these.)\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", action="append", default=[], metavar="NAME=ARGS",
                    help="a program's arguments: " + ", ".join(SIZES))
    ap.add_argument("--chunk-sizes", default="10,100,1000",
                    help="chunk sizes of parsortchunk and parsortchunk2")
    ap.add_argument("--echo-sizes", default="1,2,5,10,20,50,100,200,300,500,600,1000",
                    help="element sizes of the echo curve, in Ints")
    ap.add_argument("--echo-count", type=int, default=10000)
    ap.add_argument("--only", default="table,chunks,echo,speedup",
                    help="which parts, of table, chunks, echo, speedup, threads")
    ap.add_argument("--threads", action="store_true", help="also part 5, the threads engine")
    ap.add_argument("--runs", type=int, default=3, help="runs of each threads measurement")
    ap.add_argument("--no-build", action="store_true")
    opts = ap.parse_args()

    sizes = dict(SIZES)
    for s in opts.size:
        name, _, args = s.partition("=")
        if name not in sizes or not args:
            ap.error(f"--size {s}: NAME=ARGS with NAME one of {', '.join(SIZES)}")
        sizes[name] = args
    parts = set(opts.only.split(","))
    if opts.threads:
        parts.add("threads")

    run = Runner(programs.gph(build=not opts.no_build))
    print(f"grid: {os.path.relpath(GRID)}; gph: {os.path.relpath(run.gph)}\n")
    if "table" in parts:
        paper_table(run, sizes)
    if "chunks" in parts:
        chunk_table(run, sizes, [int(s) for s in opts.chunk_sizes.split(",")])
    if "echo" in parts:
        echo_curve(run, [int(s) for s in opts.echo_sizes.split(",")], opts.echo_count)
    if "speedup" in parts:
        speedups(run, sizes)
    if "threads" in parts:
        threads(run, sizes, opts.runs)


if __name__ == "__main__":
    sys.exit(main())
