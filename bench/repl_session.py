#!/usr/bin/env python3
"""A long REPL session (issue 32, docs/reliability.md "Long sessions"):
N inputs typed into one `gph repl` (definitions that replace earlier
ones, evaluations, some on 4 simulated PEs, `:reload` of a file), with the
resident memory of the process (VmRSS) and the size of its scratch
folder read at every checkpoint.

    bench/repl_session.py                 # 10,000 inputs, checkpoints every 1,000
    bench/repl_session.py --inputs 2000 --every 500
    GPH=path/to/gph bench/repl_session.py

Prints one line per checkpoint: inputs so far, seconds, RSS in MB, the
scratch folder's bytes. Exit status 1 if the REPL died or its memory at
the end is more than twice that at the first checkpoint.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs  # noqa: E402

LOADED = """module Main where

square :: Int -> Int
square x = x * x

main :: IO ()
main = print (sum (map square [1 .. 100]))
"""


def inputs(i):
    """Input number i of the session: a cycle of ten kinds."""
    k = i % 10
    name = f"f{i % 7}"
    return [
        f"let {name} x = x * {i % 13} + square x",
        f"{name} {i}",
        f"sum (map {name} [1 .. {100 + i % 50}])",
        f"xs{i % 5} <- return [1 .. {i % 100}]",
        f"length xs{i % 5} + {i}",
        ":t " + name,
        "main",
        f"foldr (\\x acc -> x + acc) 0 [1 .. {200 + i % 300}] :: Integer",
        ":reload" if i % 100 == 8 else f"show ({name} 3, \"s{i}\")",
        # Half of the session on 4 simulated PEs.
        {9: ":set pes 4", 109: ":set pes 1"}.get(i % 200, f"map (* 2) [1 .. {i % 20}]"),
    ][k]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def scratch_folders(tmp):
    """The REPL scratch folders in `tmp` (the REPL's own TMPDIR, so that
    no other gph's, a fuzzer's say, are counted)."""
    return set(glob.glob(os.path.join(tmp, "gph-repl-*")))


def scratch_bytes(folders):
    """Bytes in the scratch folders `folders`."""
    total = 0
    for d in folders:
        for root, _, files in os.walk(d):
            for f in files:
                try:
                    total += os.path.getsize(os.path.join(root, f))
                except OSError:
                    pass
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=10000)
    ap.add_argument("--every", type=int, default=1000, help="inputs between checkpoints")
    a = ap.parse_args()
    gph = programs.gph()
    work = tempfile.mkdtemp(prefix="gph-long-session-")
    loaded = os.path.join(work, "Loaded.hs")
    with open(loaded, "w") as f:
        f.write(LOADED)
    tmp = os.path.join(work, "tmp")
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    p = subprocess.Popen([gph, "repl", "--engine", "sim", "--pes", "1", loaded],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, cwd=work, env=env)
    seen = []
    cond = threading.Condition()

    def reader():
        for line in p.stdout:
            with cond:
                seen.append(line)
                cond.notify_all()
        with cond:
            seen.append(None)
            cond.notify_all()

    threading.Thread(target=reader, daemon=True).start()
    start = time.time()
    first = last = None
    print("  inputs    seconds   RSS MB   scratch bytes")
    for done in range(a.every, a.inputs + 1, a.every):
        for i in range(done - a.every, done):
            p.stdin.write(inputs(i) + "\n")
        mark = f"checkpoint {done}"
        p.stdin.write(f'putStrLn "{mark}"\n')
        p.stdin.flush()
        with cond:
            while not any(s is None or (s.strip() == mark) for s in seen):
                cond.wait()
            if seen[-1] is None:
                print("the REPL ended early:", "".join(s for s in seen[-20:] if s))
                sys.exit(1)
            seen.clear()
        mb = rss_mb(p.pid)
        first = first or mb
        last = mb
        print(f"{done:8} {time.time() - start:10.1f} {mb:8.1f} {scratch_bytes(scratch_folders(tmp)):15}",
              flush=True)
    p.stdin.write(":quit\n")
    p.stdin.close()
    p.wait()
    left = scratch_folders(tmp)
    print(f"exit {p.returncode}; scratch folders left: {len(left)}")
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if p.returncode == 0 and not left and last <= 2 * first else 1)


if __name__ == "__main__":
    main()
