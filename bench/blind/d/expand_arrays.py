#!/usr/bin/env python3
"""Write a Ser model that uses `const`, arrays of globals, request families and `for`
out into the plain language that bench/blind/bounded.py reads, following the rules of
docs/language.md ("Constants, arrays and request families"), so that its verdict can be
checked by bounded search.  Written for this corpus only (blind, from the docs):

* `const N := e;` is substituted everywhere (with -D N=v overrides);
* `global A[LEN] := I` becomes `A_0 := I, ..., A_{LEN-1} := I`;
* `request r[v in LO..HI] { B }` becomes `request r_LO { B[v:=LO] } ...`;
* `for (v in LO..HI) { B }` becomes `B[v:=LO]; ...; B[v:=HI]` (0 if LO > HI);
* `A[e]` with a constant `e` becomes `A_e`; otherwise a read is the chain
  `(if (e == 0) { A_0 } else { if ... else { exit } })` and a write `A[e] := v` the
  chain `if (e == 0) { A_0 := v } else ...` (an index out of range reaches `exit`, an
  error, as E-INDEX is).  An index must not assign, yield or choose (the models here
  index by locals and constants only).

Usage: expand_arrays.py MODEL.ser [-D N=V ...] > OUT.ser
"""
import re
import sys


def strip_comments(s):
    return "\n".join(line.split("//", 1)[0] for line in s.splitlines())


def match_close(s, i, o, c):
    d = 0
    for j in range(i, len(s)):
        if s[j] == o:
            d += 1
        elif s[j] == c:
            d -= 1
            if d == 0:
                return j
    raise SystemExit(f"unbalanced {o}{c} at {i}")


def ceval(e):
    if not re.fullmatch(r"[\d\s()+\-*/%<>=!&|]*", e):
        raise ValueError(e)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    e = e.replace("/", "//")
    return int(eval(e, {}, {}))


def subst(s, name, val):
    return re.sub(r"(?<![\w\[])\b%s\b(?!\s*\[)" % re.escape(name), str(val), s) if False else \
        re.sub(r"\b%s\b" % re.escape(name), f"({val})" if val < 0 else str(val), s)


def expand_for(s):
    while True:
        m = re.search(r"\bfor\s*\(\s*([a-z]\w*)\s+in\s+(.+?)\.\.(.+?)\)\s*\{", s)
        if not m:
            return s
        lo, hi = ceval(m.group(2)), ceval(m.group(3))
        b0 = m.end() - 1
        b1 = match_close(s, b0, "{", "}")
        body = s[b0 + 1:b1]
        copies = [subst(body, m.group(1), k) for k in range(lo, hi + 1)]
        s = s[:m.start()] + ("; ".join(c.strip() for c in copies) if copies else "0") + s[b1 + 1:]


def value_end(s, i):
    d = 0
    for j in range(i, len(s)):
        ch = s[j]
        if ch in "({[":
            d += 1
        elif ch in ")}]":
            if d == 0:
                return j
            d -= 1
        elif ch == ";" and d == 0:
            return j
    return len(s)


def expand_index(s, arrays):
    pat = re.compile(r"\b(%s)\s*\[" % "|".join(map(re.escape, arrays))) if arrays else None
    while pat:
        m = pat.search(s)
        if not m:
            return s
        name, n = m.group(1), arrays[m.group(1)]
        b0 = m.end() - 1
        b1 = match_close(s, b0, "[", "]")
        idx = expand_index(s[b0 + 1:b1], arrays)
        rest = s[b1 + 1:]
        try:
            k = ceval(idx)
            if not 0 <= k < n:  # E-INDEX if reached: `exit` (an error only if reachable)
                w = re.match(r"\s*:=", rest)
                if w:
                    rest = rest[value_end(rest, w.end()):]
                s = s[:m.start()] + "exit" + rest
                continue
            s = s[:m.start()] + f"{name}_{k}" + rest
            continue
        except ValueError:
            pass
        w = re.match(r"\s*:=", rest)
        if w:
            vend = value_end(rest, w.end())
            val = rest[w.end():vend]
            chain = "exit"
            for k in reversed(range(n)):
                chain = f"if (({idx}) == {k}) {{ {name}_{k} := {val.strip()} }} else {{ {chain} }}"
            s = s[:m.start()] + chain + rest[vend:]
        else:
            chain = "exit"
            for k in reversed(range(n)):
                chain = f"if (({idx}) == {k}) {{ {name}_{k} }} else {{ {chain} }}"
            s = s[:m.start()] + "(" + chain + ")" + rest
    return s


def main():
    args = sys.argv[1:]
    path = args[0]
    over = {}
    for i, a in enumerate(args):
        if a == "-D":
            k, v = args[i + 1].split("=")
            over[k] = int(v)
    s = strip_comments(open(path).read())
    consts = {}
    for m in re.finditer(r"\bconst\s+(\w+)\s*:=\s*([^;]+);", s):
        e = m.group(2)
        for k, v in consts.items():
            e = subst(e, k, v)
        consts[m.group(1)] = over.get(m.group(1), ceval(e))
    s = re.sub(r"\bconst\s+\w+\s*:=\s*[^;]+;", "", s)
    for k, v in consts.items():
        s = subst(s, k, v)
    arrays = {}

    def decl(m):
        out = []
        for part in m.group(1).split(","):
            a = re.fullmatch(r"\s*(\w+)\s*\[(.+?)\]\s*(?::=\s*(.+?))?\s*", part)
            if a:
                n = ceval(a.group(2))
                arrays[a.group(1)] = n
                init = ceval(a.group(3)) if a.group(3) else 0
                out += [f"{a.group(1)}_{k} := {init}" for k in range(n)]
            else:
                part = part.strip()
                out.append(part if ":=" in part or not part else part + " := 0")
        return "global " + ", ".join(out) + ";"

    s = re.sub(r"\bglobal\b([^;]*);", decl, s)
    while True:
        m = re.search(r"\brequest\s+(\w+)\s*\[\s*([a-z]\w*)\s+in\s+(.+?)\.\.(.+?)\]\s*\{", s)
        if not m:
            break
        b0 = m.end() - 1
        b1 = match_close(s, b0, "{", "}")
        body = s[b0 + 1:b1]
        members = [f"request {m.group(1)}_{k} {{{subst(body, m.group(2), k)}}}"
                   for k in range(ceval(m.group(3)), ceval(m.group(4)) + 1)]
        s = s[:m.start()] + "\n".join(members) + s[b1 + 1:]
    s = expand_for(s)
    s = re.sub(r"\?\(([^()]*?)\.\.([^()]*?)\)", lambda m: f"?({ceval(m.group(1))}..{ceval(m.group(2))})", s)
    s = expand_index(s, arrays)
    print(s)


if __name__ == "__main__":
    main()
