"""Writers for the interleaving Petri net (Tina `.net`, PNML P/T net) and Graphviz DOT
drawings of the network system, the Petri net and the serial automaton.

Identifiers are always `p<i>` / `t<i>` (places / transitions, numbered as in the net)
or `n<i>`-style ids in DOT, so they can never collide whatever the state names are;
the canonical names (docs/naming.md) appear only in comments and labels, escaped so
that each stays on one line.
"""

from __future__ import annotations

import json
import re
from xml.sax.saxutils import escape, quoteattr

from prover.ns import NetworkSystem
from prover.petri.net import NetTransition, PetriNet, Place
from prover.serial.automaton import SerialAutomaton


def safe_identifier(name: str, default: str = "model") -> str:
    """An identifier made of `[A-Za-z0-9_]` only, not starting with a digit."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not out:
        return default
    return "n_" + out if out[0].isdigit() else out


def one_line(text: str) -> str:
    """A label as a JSON string literal: quotes, backslashes and control characters
    escaped, so it stays on one line; non-ASCII text is kept readable."""
    return json.dumps(text, ensure_ascii=False)


def place_label(p: Place) -> str:
    return p.label()


def transition_label(t: NetTransition) -> str:
    return t.label()


# ---- Tina .net -------------------------------------------------------------------------


def _arc_list(arcs: tuple[tuple[int, int], ...]) -> str:
    return " ".join(f"p{i}" if w == 1 else f"p{i}*{w}" for i, w in arcs)


def petri_to_tina(net: PetriNet, name: str = "model") -> str:
    """Tina `.net` text that SMPT and Tina read.

    SMPT's reader turns `#` and `,` into `.` and treats a line then starting with `.`
    as a comment unless its second word is `pl` or `tr`; our comments start with
    `# p<i>` / `# t<i>`, so they are plain comments for both tools.
    """
    marking = dict(net.initial)
    lines = [
        "# Interleaving Petri net of the network system, written by ser-prove.",
        "# Identifiers are p<i> (places) and t<i> (transitions); each is followed by a",
        "# comment with its canonical name.",
        f"net {safe_identifier(name)}",
    ]
    for i, p in enumerate(net.places):
        lines.append(f"pl p{i} ({marking.get(i, 0)})")
        lines.append(f"# p{i} = {one_line(place_label(p))}")
    for j, t in enumerate(net.transitions):
        pre, post = _arc_list(t.pre), _arc_list(t.post)
        lines.append(f"tr t{j} {pre} -> {post}".replace("  ", " "))
        lines.append(f"# t{j} = {one_line(transition_label(t))}")
    return "\n".join(lines) + "\n"


# ---- PNML ------------------------------------------------------------------------------

_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    # Characters XML 1.0 cannot carry at all are written as \uXXXX.
    return escape(_XML_BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def petri_to_pnml(net: PetriNet, name: str = "model") -> str:
    """A PNML (2009 grammar) place/transition net; ids p<i>, t<i>, a<k>."""
    marking = dict(net.initial)
    ident = safe_identifier(name)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">',
        f'  <net id={quoteattr(ident)} type="http://www.pnml.org/version-2009/grammar/ptnet">',
        f"    <name><text>{_xml_text(name)}</text></name>",
        '    <page id="page0">',
    ]
    for i, p in enumerate(net.places):
        mark = marking.get(i, 0)
        init = f"<initialMarking><text>{mark}</text></initialMarking>" if mark else ""
        out.append(
            f'      <place id="p{i}"><name><text>{_xml_text(place_label(p))}</text></name>'
            f"{init}</place>"
        )
    for j, t in enumerate(net.transitions):
        out.append(
            f'      <transition id="t{j}"><name><text>{_xml_text(transition_label(t))}'
            "</text></name></transition>"
        )
    k = 0
    for j, t in enumerate(net.transitions):
        for arcs, forward in ((t.pre, False), (t.post, True)):
            for i, w in arcs:
                src, dst = (f"t{j}", f"p{i}") if forward else (f"p{i}", f"t{j}")
                ins = f"<inscription><text>{w}</text></inscription>" if w != 1 else ""
                out.append(f'      <arc id="a{k}" source="{src}" target="{dst}">{ins}</arc>')
                k += 1
    out += ["    </page>", "  </net>", "</pnml>"]
    return "\n".join(out) + "\n"


# ---- DOT -------------------------------------------------------------------------------


def dot_string(text: str) -> str:
    """A DOT double-quoted string; backslashes are doubled so DOT shows them verbatim."""
    body = (
        text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    )
    return f'"{body}"'


def ns_to_dot(ns: NetworkSystem, name: str = "model") -> str:
    """Local states as nodes; a transition is an edge labelled `global -> global'`;
    requests enter from boxes, responses leave to plain-text nodes."""
    locals_ = {loc: i for i, loc in enumerate(ns.local_states)}
    out = [f"digraph {safe_identifier(name)} {{", "  rankdir=LR;", "  node [shape=ellipse];"]
    for loc, i in locals_.items():
        out.append(f"  l{i} [label={dot_string(loc)}];")
    for k, r in enumerate(ns.requests):
        out.append(f"  q{k} [shape=box, label={dot_string(r.request)}];")
        out.append(f"  q{k} -> l{locals_[r.local]} [style=dashed];")
    for k, a in enumerate(ns.responses):
        out.append(f"  a{k} [shape=plaintext, label={dot_string(a.response)}];")
        out.append(f"  l{locals_[a.local]} -> a{k} [style=dashed];")
    for t in ns.transitions:
        label = dot_string(f"{t.from_global} -> {t.to_global}")
        out.append(f"  l{locals_[t.from_local]} -> l{locals_[t.to_local]} [label={label}];")
    out.append("}")
    return "\n".join(out) + "\n"


def petri_to_dot(net: PetriNet, name: str = "model") -> str:
    marking = dict(net.initial)
    out = [f"digraph {safe_identifier(name)} {{", "  rankdir=LR;"]
    for i, p in enumerate(net.places):
        tokens = marking.get(i, 0)
        label = place_label(p) + (f"\n({tokens})" if tokens else "")
        out.append(f"  p{i} [shape=circle, label={dot_string(label)}];")
    for j, t in enumerate(net.transitions):
        out.append(f"  t{j} [shape=box, label={dot_string(transition_label(t))}];")
        for i, w in t.pre:
            extra = f" [label={dot_string(str(w))}]" if w != 1 else ""
            out.append(f"  p{i} -> t{j}{extra};")
        for i, w in t.post:
            extra = f" [label={dot_string(str(w))}]" if w != 1 else ""
            out.append(f"  t{j} -> p{i}{extra};")
    out.append("}")
    return "\n".join(out) + "\n"


def serial_to_dot(automaton: SerialAutomaton, name: str = "model") -> str:
    states = {s: i for i, s in enumerate(automaton.states)}
    for e in automaton.edges:  # defensive: edges to states not listed
        for s in (e.source, e.target):
            states.setdefault(s, len(states))
    out = [f"digraph {safe_identifier(name)} {{", "  rankdir=LR;", "  init [shape=point];"]
    for s, i in states.items():
        out.append(f"  s{i} [shape=ellipse, label={dot_string(s)}];")
    out.append(f"  init -> s{states[automaton.initial]};")
    for e in automaton.edges:
        label = dot_string(f"{e.request}/{e.response}")
        out.append(f"  s{states[e.source]} -> s{states[e.target]} [label={label}];")
    out.append("}")
    return "\n".join(out) + "\n"
