#!/usr/bin/env python3
"""convert.py SRC DEST: a gph module as a GHC source file, for check-with-ghc.sh.

The module is compiled with RebindableSyntax, so that integer literals,
negation and do-notation use the gph Prelude's classes instead of GHC's.
What RebindableSyntax cannot rebind is rewritten here:

* RebindableSyntax implies NoImplicitPrelude: `import Prelude` is added
  when the module does not import the Prelude itself.
* `if` calls the `ifThenElse` in scope: GhcCheck.IfThenElse is imported.
* A fractional literal would be passed to fromRational as GHC's Rational:
  1.5e3 becomes fromRational (toRational 15 / toRational 10 * ...), written
  with the gph Prelude imported qualified as GhcCheckP.
* Arithmetic sequences would use GHC's Enum class: [a, b .. c] becomes
  (GhcCheckP.enumFromThenTo (a) (b) (c)), and so on.

The imports go in front of the first import (or declaration), on the same
line, so that GHC's line numbers are those of the .gph file.
Derived instances cannot be checked this way (GHC would derive its own
classes); programs that derive instances do not compile.
"""
import re
import sys

SYMBOLS = set('!#$%&*+./<=>?@\\^|-~:')
FLOAT = re.compile(r'[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?')


def tokenize(s):
    """[(pre, text, kind)]: pre is the white space / comments before the token."""
    toks, i, pre_start, n = [], 0, 0, len(s)

    def add(kind, j):
        nonlocal i, pre_start
        toks.append((s[pre_start:i], s[i:j], kind))
        i = j
        pre_start = j

    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
        elif s.startswith('{-', i):
            depth, i = 1, i + 2
            while i < n and depth:
                if s.startswith('{-', i):
                    depth, i = depth + 1, i + 2
                elif s.startswith('-}', i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c in SYMBOLS:
            j = i
            while j < n and s[j] in SYMBOLS:
                j += 1
            if s[i:j] == '-' * (j - i) and j - i >= 2:     # line comment
                while i < n and s[i] != '\n':
                    i += 1
            else:
                add('op', j)
        elif c.isalpha() or c == '_':
            j = i
            while j < n and (s[j].isalnum() or s[j] in "_'"):
                j += 1
            # qualified names: Mod.name
            while j + 1 < n and s[j] == '.' and s[i].isupper() and (s[j + 1].isalpha() or s[j + 1] == '_'):
                j += 1
                while j < n and (s[j].isalnum() or s[j] in "_'"):
                    j += 1
            add('id', j)
        elif c.isdigit():
            if re.match(r'0[xXoO][0-9a-fA-F]', s[i:i + 3]):
                j = i + 2
                while j < n and s[j].isalnum():
                    j += 1
                add('int', j)
            else:
                m = FLOAT.match(s, i)
                add('float' if (m.group(1) or m.group(2)) else 'int', m.end())
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and s[j] != c:
                j += 2 if s[j] == '\\' else 1
            add('lit', j + 1)
        else:
            add('punct', i + 1)
    toks.append((s[pre_start:], '', 'eof'))
    return toks


def float_expr(text, in_prelude):
    m = re.fullmatch(r'([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?', text)
    ip, fp, ex = m.group(1), m.group(2) or '', int(m.group(3) or 0)
    num, den = int(ip + fp), 10 ** len(fp)
    if ex >= 0:
        num *= 10 ** ex
    else:
        den *= 10 ** -ex
    if in_prelude:
        return '(fromRational ((%d :: Integer) :%% %d))' % (num, den)
    return ('(GhcCheckP.fromRational (GhcCheckP.toRational (%d :: GhcCheckP.Integer)'
            ' GhcCheckP./ GhcCheckP.toRational (%d :: GhcCheckP.Integer)))' % (num, den))


def rewrite(toks, in_prelude):
    out = []
    i = 0
    while i < len(toks):
        pre, text, kind = toks[i]
        if kind == 'float':
            out.append(pre + float_expr(text, in_prelude))
            i += 1
        elif kind == 'punct' and text == '[':
            depth, k, seps = 0, i + 1, []
            while k < len(toks):
                t, kd = toks[k][1], toks[k][2]
                if kd == 'punct' and t in '([{':
                    depth += 1
                elif kd == 'punct' and t in ')]}':
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0 and ((kd == 'punct' and t == ',') or (kd == 'op' and t in ('..', '|'))):
                    seps.append(k)
                k += 1
            kinds = [toks[s][1] for s in seps]
            if k < len(toks) and '..' in kinds and '|' not in kinds:
                bounds = [i] + seps + [k]
                parts = [rewrite(toks[a + 1:b], in_prelude) for a, b in zip(bounds, bounds[1:])]
                if kinds == [',', '..']:
                    fn = 'enumFromThenTo' if parts[2].strip() else 'enumFromThen'
                elif kinds == ['..']:
                    fn = 'enumFromTo' if parts[1].strip() else 'enumFrom'
                else:
                    sys.exit('%s: cannot convert an arithmetic sequence' % sys.argv[1])
                args = [p for p in parts if p.strip()]
                q = '' if in_prelude else 'GhcCheckP.'
                out.append(pre + '(' + q + fn + ''.join(' (' + a + ')' for a in args) + toks[k][0] + ')')
                i = k + 1
            else:
                out.append(pre + text)
                i += 1
        else:
            out.append(pre + text)
            i += 1
    return ''.join(out)


def main():
    src, dest = sys.argv[1], sys.argv[2]
    text = open(src).read()
    toks = tokenize(text)
    # The module's name, and the first token of its body.
    name, at = 'Main', 0
    if toks[0][1] == 'module':
        name = toks[1][1]
        at = next(i for i, t in enumerate(toks) if t[1] == 'where' and t[2] == 'id') + 1
    if toks[at][1] == '{':
        at += 1
    in_prelude = name == 'Prelude'
    # The library's Gph modules are beneath the Prelude (it imports them).
    beneath = name.startswith('Gph.')
    extra = ['import GhcCheck.IfThenElse (ifThenElse)']
    if not in_prelude and not beneath:
        extra.append('import qualified Prelude as GhcCheckP')
        if not re.search(r'^import\s+(qualified\s+)?Prelude\b', text, re.M):
            extra.append('import Prelude')
    pre, first, kind = toks[at]
    toks[at] = (pre, '; '.join(extra) + '; ' + first, kind)
    text = rewrite(toks, in_prelude)
    open(dest, 'w').write('{-# LANGUAGE RebindableSyntax #-} ' + text)


main()
