"""Writers for the interleaving Petri net (Tina `.net`, PNML P/T net) and Graphviz DOT
drawings of the network system, the Petri net and the serial automaton.

Identifiers are always `p<i>` / `t<i>` (places / transitions, numbered as in the net)
or `n<i>`-style ids in DOT, so they can never collide whatever the state names are;
the canonical names (docs/naming.md) appear only in comments and labels, escaped so
that each stays on one line. Drawings stay readable at benchmark size: states are
drawn as short ids (`G<j>`, `L<i>`) with a legend, full names as SVG tooltips, and
each request name gets its own cluster.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from xml.sax.saxutils import escape, quoteattr

from prover.ns import NetworkSystem, reaching_requests
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


LEGEND_WIDTH = 90  # characters of a state's text shown in a legend row (full text: tooltip)


def short(text: str, width: int = LEGEND_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class _Names:
    """Short ids (`G0`, `L3`, ...) for long state texts and the legend that maps them back.
    The NS and the Petri-net drawings of one model number the same states alike: the
    initial global state is G0, the other states follow in the order of their texts."""

    def __init__(self, prefix: str, texts: Iterable[str], first: str | None = None) -> None:
        self.prefix = prefix
        self.ids: dict[str, str] = {}
        if first is not None:
            self(first)
        for text in sorted(set(texts)):
            self(text)

    def __call__(self, text: str) -> str:
        got = self.ids.get(text)
        if got is None:
            got = self.ids[text] = f"{self.prefix}{len(self.ids)}"
        return got

    def rows(self) -> list[tuple[str, str]]:
        return [(i, t) for t, i in self.ids.items()]


def _html(text: str) -> str:
    """Text for a DOT HTML-like label: control characters as escapes, markup escaped."""
    body = json.dumps(text, ensure_ascii=False)[1:-1].replace('\\"', '"')
    return body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def legend(title: str, *groups: tuple[str, list[tuple[str, str]]]) -> str:
    """A DOT node with a two-column table: short id, (shortened) full text."""
    cells = [f'<tr><td colspan="2" align="left"><b>{_html(title)}</b></td></tr>']
    for heading, rows in groups:
        if not rows:
            continue
        cells.append(f'<tr><td colspan="2" align="left"><i>{_html(heading)}</i></td></tr>')
        for ident, text in rows:
            cells.append(f'<tr><td align="left">{_html(ident)}</td>'
                         f'<td align="left">{_html(short(text))}</td></tr>')
    table = (
        '<table border="0" cellborder="0" cellspacing="0" cellpadding="2">'
        + "".join(cells) + "</table>"
    )
    return f"  legend [shape=note, fontname=Courier, fontsize=10, label=<{table}>];"


_HEAD = ('  graph [fontname=Helvetica, fontsize=11, labelloc=t, nodesep=0.3, ranksep=0.4];',
         '  node [fontname=Helvetica, fontsize=11];',
         '  edge [fontname=Helvetica, fontsize=9];')


def _request_of_locals(ns: NetworkSystem) -> dict[str, str]:
    """Each local state reached from the arrival states of exactly one request name ->
    that name (the cluster it is drawn in); shared local states are drawn outside."""
    return {loc: next(iter(o)) for loc, o in reaching_requests(ns).items() if len(o) == 1}


def ns_to_dot(ns: NetworkSystem, name: str = "model") -> str:
    """Local states as nodes with short ids `L<i>`, grouped in one cluster per request
    name; a transition is an edge labelled `G<j> → G<k>` (all the global changes between
    the same two local states on one edge); arrivals enter from boxes, responses leave to
    plain-text nodes. A legend maps the ids back to the states; SVG output also shows
    each full state as a tooltip."""
    loc_id = _Names("L", ns.local_states)
    glob_id = _Names("G", [g for t in ns.transitions for g in (t.from_global, t.to_global)],
                     ns.initial_global)
    node = {loc: f"l{i}" for i, loc in enumerate(ns.local_states)}
    owner = _request_of_locals(ns)
    out = [f"digraph {safe_identifier(name)} {{", "  rankdir=LR;", *_HEAD,
           f"  label={dot_string(f'network system of {name}')};"]

    def local_node(loc: str, indent: str) -> str:
        return (f"{indent}{node[loc]} [shape=ellipse, label={dot_string(loc_id(loc))}, "
                f"tooltip={dot_string(loc)}];")

    names = sorted({r.request for r in ns.requests})
    for c, req in enumerate(names):
        out += [f"  subgraph cluster_{c} {{",
                f"    label={dot_string(f'request {req}')}; style=rounded; color=gray60;"]
        for k, r in enumerate(ns.requests):
            if r.request == req:
                out.append(f"    q{k} [shape=box, style=filled, fillcolor=gray92, "
                           f"label={dot_string(f'{req} arrives')}];")
        out += [local_node(loc, "    ") for loc in ns.local_states if owner.get(loc) == req]
        out.append("  }")
    out += [local_node(loc, "  ") for loc in ns.local_states if loc not in owner]
    for k, r in enumerate(ns.requests):
        out.append(f"  q{k} -> {node[r.local]} [style=dashed];")
    for k, a in enumerate(ns.responses):
        out.append(f"  a{k} [shape=plaintext, label={dot_string('answers ' + a.response)}];")
        out.append(f"  {node[a.local]} -> a{k} [style=dashed];")
    changes: dict[tuple[str, str], list[str]] = {}
    for t in ns.transitions:
        changes.setdefault((t.from_local, t.to_local), []).append(
            f"{glob_id(t.from_global)} → {glob_id(t.to_global)}")
    for (src, dst), labels in changes.items():
        out.append(f"  {node[src]} -> {node[dst]} [label={dot_string(chr(10).join(labels))}];")
    out.append(legend(f"{name}: states", ("global states", glob_id.rows()),
                      ("local states (locals, rest of the body)", loc_id.rows())))
    out.append("}")
    return "\n".join(out) + "\n"


def petri_to_dot(net: PetriNet, name: str = "model") -> str:
    """Places and transitions with short labels: global places `G<j>` in one cluster,
    and per request name a cluster with its local places `L<i>`, its response places and
    its transitions (`t<k>` as in the `.net` export). Initial tokens are drawn as `●`.
    A legend maps the ids back to the states; SVG output shows full names as tooltips."""
    marking = dict(net.initial)
    loc_id = _Names("L", [p.state for p in net.places if p.kind == "local"])
    marked = [net.places[i].state for i, _ in net.initial if net.places[i].kind == "global"]
    glob_id = _Names("G", [p.state for p in net.places if p.kind == "global"],
                     marked[0] if marked else None)
    out = [f"digraph {safe_identifier(name)} {{", "  rankdir=LR;", *_HEAD,
           f"  label={dot_string(f'interleaving Petri net of {name}')};"]

    def place_node(i: int, p: Place, indent: str) -> str:
        if p.kind == "global":
            text = glob_id(p.state)
        elif p.kind == "local":
            text = loc_id(p.state)
        else:
            text = f"{p.request}/{short(p.state, 20)}"
        tokens = marking.get(i, 0)
        if tokens:
            text += "\n" + ("●" if tokens == 1 else f"{tokens}●")
        shape = "doublecircle" if p.kind == "response" else "circle"
        return (f"{indent}p{i} [shape={shape}, fixedsize=false, width=0.5, "
                f"label={dot_string(text)}, tooltip={dot_string(place_label(p))}];")

    def transition_node(j: int, t: NetTransition) -> str:
        word = {"spawn": "arrive", "respond": "respond", "step": "step"}[t.kind]
        return (f"    t{j} [shape=box, height=0.25, fontsize=9, style=filled, "
                f"fillcolor=gray92, label={dot_string(f't{j} {word}')}, "
                f"tooltip={dot_string(transition_label(t))}];")

    out += ["  subgraph cluster_global {",
            "    label=\"global state\"; style=rounded; color=gray60;"]
    out += [place_node(i, p, "    ") for i, p in enumerate(net.places) if p.kind == "global"]
    out.append("  }")
    requests = sorted({t.request for t in net.transitions}
                      | {p.request for p in net.places if p.request is not None})
    for c, req in enumerate(requests):
        out += [f"  subgraph cluster_{c} {{",
                f"    label={dot_string(f'request {req}')}; style=rounded; color=gray60;"]
        out += [place_node(i, p, "    ") for i, p in enumerate(net.places)
                if p.kind != "global" and p.request == req]
        out += [transition_node(j, t) for j, t in enumerate(net.transitions) if t.request == req]
        out.append("  }")
    for j, t in enumerate(net.transitions):
        for arcs, forward in ((t.pre, False), (t.post, True)):
            for i, w in arcs:
                # Arcs of global places in gray: the requests' control flow stands out.
                attrs = ["color=gray60", "arrowsize=0.6"] if net.places[i].kind == "global" else []
                if w != 1:
                    attrs.append(f"label={dot_string(str(w))}")
                extra = f" [{', '.join(attrs)}]" if attrs else ""
                arc = f"t{j} -> p{i}" if forward else f"p{i} -> t{j}"
                out.append(f"  {arc}{extra};")
    out.append(legend(f"{name}: places", ("G<j>: global state", glob_id.rows()),
                      ("L<i>: a request in this local state (locals, rest of the body)",
                       loc_id.rows())))
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
