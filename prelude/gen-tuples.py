#!/usr/bin/env python3
"""Writes the instances of the large tuples at the end of prelude/Prelude.gph
(between marker lines): Eq, Ord, Show and Bounded for tuples of 8 to 15
components and Read for 4 to 15, as far as GHC's base goes. The small
tuples' instances are written by hand in the Prelude; these are the same
code at more components, so they are generated: run this after changing
the template.

    python3 prelude/gen-tuples.py
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
LETTERS = "abcdefghijklmno"
READ_MAX = 15


def tup(xs):
    return "(" + ", ".join(xs) + ")"


def ctx(cls, vs):
    return "(" + ", ".join(f"{cls} {v}" for v in vs) + ")"


def instances(n):
    vs = list(LETTERS[:n])
    t = tup(vs)
    out = []
    l1 = [f"{v}1" for v in vs]
    l2 = [f"{v}2" for v in vs]
    out.append(f"instance {ctx('Eq', vs)} => Eq {t} where\n"
               f"  {tup(l1)} == {tup(l2)} =\n"
               f"    " + " && ".join(f"{a} == {b}" for a, b in zip(l1, l2)) + "\n")
    out.append(f"instance {ctx('Ord', vs)} => Ord {t} where\n"
               f"  compare {tup(l1)} {tup(l2)} =\n"
               f"    " + " `thenCmp` ".join(f"compare {a} {b}" for a, b in zip(l1, l2)) + "\n")
    out.append(f"instance {ctx('Show', vs)} => Show {t} where\n"
               f"  showsPrec _ {tup(vs)} s =\n"
               f"    '(' : " + " (',' : ".join(f"shows {v}" for v in vs)
               + " (')' : s)" + ")" * (n - 1) + "\n")
    out.append(f"instance {ctx('Bounded', vs)} => Bounded {t} where\n"
               f"  minBound = {tup(['minBound'] * n)}\n"
               f"  maxBound = {tup(['maxBound'] * n)}\n")
    return out


def read_instance(n):
    vs = list(LETTERS[:n])
    # "(" v1 "," v2 ... ")" read with lex/reads, GHC's format.
    gens = ['("(", s0) <- lex r']
    for i, v in enumerate(vs):
        gens.append(f"({v}, t{i}) <- reads s{i}")
        sep = '")"' if i == n - 1 else '","'
        nxt = "y" if i == n - 1 else f"s{i + 1}"
        gens.append(f"({sep}, {nxt}) <- lex t{i}")
    body = "\n      , ".join(gens)
    return (f"instance {ctx('Read', vs)} => Read {tup(vs)} where\n"
            f"  readsPrec _ = readParen False\n"
            f"    (\\r -> [ ({tup(vs)}, y)\n"
            f"      | {body} ])\n")


def main():
    parts = ["-- BEGIN tuples (prelude/gen-tuples.py)\n"]
    for n in range(4, 16):
        if n >= 8:
            parts.extend(instances(n))
        if n <= READ_MAX:
            parts.append(read_instance(n))
    parts.append("-- END tuples\n")
    text = "\n".join(parts)
    path = os.path.join(HERE, "Prelude.gph")
    src = open(path).read()
    pat = re.compile(r"-- BEGIN tuples.*?-- END tuples\n", re.S)
    if pat.search(src):
        src = pat.sub(lambda _: text, src)
    else:
        src = src.rstrip("\n") + "\n\n" + text
    open(path, "w").write(src)


if __name__ == "__main__":
    main()
