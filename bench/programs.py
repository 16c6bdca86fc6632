"""What the bench scripts share: the programs of programs/ and their sizes."""

import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGDIR = os.path.join(ROOT, "programs")


def gph(build=True):
    """The release binary of gph, built first unless `build` is false; or
    the binary $GPH names (to measure another build)."""
    if os.environ.get("GPH"):
        return os.environ["GPH"]
    if build:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "gph")


STYLEDIR = os.path.join(ROOT, "bench", "styles")


def source(name):
    """The file of program NAME: programs/NAME.gph, else bench/styles/NAME.gph
    (the one-PE benchmark's programs of other styles)."""
    for d in (PROGDIR, STYLEDIR):
        path = os.path.join(d, name + ".gph")
        if os.path.exists(path):
            return path
    sys.exit(f"no program {name} in programs/ or bench/styles/")


def jobs(wanted, dirs=(PROGDIR,)):
    """(name, args) for each NAME or NAME=ARGS in `wanted` (default: every
    program of `dirs`), the arguments defaulting to NAME.args beside it."""
    wanted = wanted or sorted(f[:-4] for d in dirs for f in os.listdir(d) if f.endswith(".gph"))
    out = []
    for w in wanted:
        name, _, args = w.partition("=")
        if not args:
            path = source(name)[:-4] + ".args"
            args = open(path).read().strip() if os.path.exists(path) else ""
        out.append((name, args.split()))
    return out


def sizes(defaults, overrides, ap):
    """`defaults` (NAME: ARGS) with each NAME=ARGS of `overrides` (the
    --size options) applied; an unknown NAME is an error of `ap`."""
    out = dict(defaults)
    for s in overrides:
        name, _, args = s.partition("=")
        if name not in defaults:
            ap.error(f"--size {s}: NAME one of {', '.join(defaults)}")
        out[name] = args
    return out


def run_with_stats(gph, flags, src, args):
    """Runs `gph run FLAGS SRC -- ARGS` with --stats-json; returns the
    finished process (stdout and stderr as text) and the statistics ({}
    when the run failed)."""
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        proc = subprocess.run([gph, "run", *flags, "--stats-json", path, src, "--", *args],
                              capture_output=True, text=True)
        try:
            with open(path) as f:
                stats = json.load(f) if proc.returncode == 0 else {}
        except ValueError:
            stats = {}
    finally:
        os.unlink(path)
    return proc, stats


def virtual_time(gph, flags, prog, args, expected=None):
    """Runs programs/PROG.gph with `flags` on the sim engine; returns its
    virtual seconds and its output. Exits with the error when the run
    fails, or when `expected` is given and the output differs from it."""
    proc, stats = run_with_stats(gph, flags, os.path.join(PROGDIR, prog + ".gph"), args)
    what = f"{prog} {' '.join(args)} ({' '.join(flags)})"
    if proc.returncode != 0:
        sys.exit(f"{what}: {proc.stderr.strip()}")
    if expected is not None and proc.stdout != expected:
        sys.exit(f"{what}: the output differs from the first run's")
    return stats["virtual_time_s"], proc.stdout


def print_table(header, rows):
    """Prints rows (lists of strings) under header, columns aligned: the
    first left, the others right."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]

    def line(r):
        cells = [str(c).ljust(w) if i == 0 else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(r, widths))]
        return "  ".join(cells).rstrip()

    print(line(header))
    print("-" * len(line(header)))
    for r in rows:
        print(line(r), flush=True)


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


def differences(case, code, out, err):
    """What a run of `case` (exit status `code`, or "hang"; its stdout and
    stderr) did that it must not: the wrong exit status, other output, a
    panic."""
    problems = []
    if code != case.exit:
        problems.append("hang" if code == "hang" else f"exit {code}, expected {case.exit}")
    if code != "hang" and out != case.stdout:
        problems.append("stdout differs")
    if "panicked" in err:
        problems.append("panic")
    return problems


def failure(flags, case, problems, err, note=""):
    """One failure's report: the command that runs it again, what went
    wrong, and the end of its stderr."""
    cmd = " ".join(["gph run", *flags, *case.flags, case.file, "--", *case.args])
    return f"{cmd}: {'; '.join(problems)}{note}\n  {err.strip()[-300:]}"


def sweep(work, one, jobs, every):
    """Calls `one` on each item of `work`, `jobs` at a time; prints what it
    returns for a failure (None for a pass) and, every `every` items, the
    progress on stderr. The failures, and the seconds it took."""
    start = time.time()
    failures = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for done, r in enumerate(pool.map(one, work), 1):
            if r:
                failures.append(r)
                print(r, flush=True)
            if done % every == 0:
                print(f"... {done}/{len(work)} runs, {len(failures)} failed, "
                      f"{time.time() - start:.0f} s", file=sys.stderr, flush=True)
    return failures, time.time() - start
