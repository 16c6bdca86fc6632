"""What the bench scripts share: the programs of programs/ and their sizes."""

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGDIR = os.path.join(ROOT, "programs")


def gph(build=True):
    """The release binary of gph, built first unless `build` is false."""
    if build:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "gph")


def jobs(wanted):
    """(name, args) for each NAME or NAME=ARGS in `wanted` (default: every
    program), the arguments defaulting to programs/NAME.args."""
    wanted = wanted or sorted(f[:-4] for f in os.listdir(PROGDIR) if f.endswith(".gph"))
    out = []
    for w in wanted:
        name, _, args = w.partition("=")
        if not args:
            path = os.path.join(PROGDIR, name + ".args")
            args = open(path).read().strip() if os.path.exists(path) else ""
        out.append((name, args.split()))
    return out
