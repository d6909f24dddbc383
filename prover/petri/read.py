"""Readers (and writers) of raw place/transition nets: PNML and Tina `.net`.

* PNML: ISO/IEC 15909-2 P/T nets as the Model Checking Contest and TINA write them
  (`<text>` labels, several and nested pages, reference nodes, names apart from ids,
  `<toolspecific>` and `<graphics>` ignored), and the PIPE editor's dialect (labels as
  `<value>Default,N</value>`, an empty or absent value: marking 0, weight 1; capacity 0
  meaning no bound; timing and priority ignored when all transitions agree on them).
  The XML is parsed by expat with a document type declaration rejected outright: no DTD
  means no entity can be declared, so neither external entities nor entity expansion
  can occur.
* Tina `.net`: `net`, `pl`, `tr`, `lb` declarations, one per line, `#` comments, names
  plain or in braces, weights `*w`, test arcs `?w` (read as a self-loop of weight w),
  markings with the `K`/`M` suffixes.

Everything that is not a P/T net (inhibitor or reset arcs, priorities, capacities, time
intervals other than the trivial one, coloured nets and markings) is rejected with an
error naming the file and line (and, for PNML, the element path); bad input never raises
anything but `NetFormatError`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat
from xml.sax.saxutils import escape, quoteattr

from prover.errors import InputFileError, SerError, SourceLocation
from prover.frontend.files import MAX_NET_BYTES, read_model_bytes
from prover.petri.dynamic_slice import PTNet, Slice

MAX_TOKENS = 10**18  # markings and weights beyond this are certainly a mistake
MAX_DEPTH = 256  # element paths are kept per element; PNML needs a handful of levels


class NetFormatError(SerError):
    """A PNML or Tina `.net` file is malformed or is not a P/T net."""

    code = "E-NET-FORMAT"


@dataclass
class _Builder:
    """Collects places, transitions and arcs in file order; merges parallel arcs."""

    name: str = "net"
    place_ids: list[str] = field(default_factory=list)
    place_names: list[str] = field(default_factory=list)
    initial: list[int] = field(default_factory=list)
    transition_ids: list[str] = field(default_factory=list)
    transition_names: list[str] = field(default_factory=list)
    pre: list[dict[int, int]] = field(default_factory=list)
    post: list[dict[int, int]] = field(default_factory=list)
    pindex: dict[str, int] = field(default_factory=dict)
    tindex: dict[str, int] = field(default_factory=dict)

    def place(self, pid: str, name: str | None = None, marking: int = 0) -> int:
        i = self.pindex.get(pid)
        if i is None:
            i = len(self.place_ids)
            self.pindex[pid] = i
            self.place_ids.append(pid)
            self.place_names.append(pid if name is None else name)
            self.initial.append(marking)
        return i

    def transition(self, tid: str, name: str | None = None) -> int:
        j = self.tindex.get(tid)
        if j is None:
            j = len(self.transition_ids)
            self.tindex[tid] = j
            self.transition_ids.append(tid)
            self.transition_names.append(tid if name is None else name)
            self.pre.append({})
            self.post.append({})
        return j

    def arc(self, t: int, p: int, w: int, into_place: bool) -> None:
        side = self.post[t] if into_place else self.pre[t]
        side[p] = side.get(p, 0) + w

    def build(self) -> PTNet:
        return PTNet(
            name=self.name,
            place_ids=tuple(self.place_ids),
            place_names=tuple(self.place_names),
            transition_ids=tuple(self.transition_ids),
            transition_names=tuple(self.transition_names),
            pre=tuple(tuple(sorted(d.items())) for d in self.pre),
            post=tuple(tuple(sorted(d.items())) for d in self.post),
            initial=tuple(self.initial),
        )


# ---- PNML -------------------------------------------------------------------------------


@dataclass
class _Node:
    tag: str  # local name, namespace dropped
    attrs: dict[str, str]
    line: int
    column: int
    path: str
    children: list[_Node] = field(default_factory=list)
    text: list[str] = field(default_factory=list)

    def child(self, tag: str) -> _Node | None:
        for c in self.children:
            if c.tag == tag:
                return c
        return None

    def all_text(self) -> str:
        return "".join(self.text)


class _Reject(Exception):
    pass


def _parse_xml(data: bytes, path: str) -> _Node:
    parser = expat.ParserCreate(namespace_separator="}")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[_Node] = []
    root: list[_Node] = []
    counts: list[dict[str, int]] = [{}]

    def start(name: str, attrs: dict[str, str]) -> None:
        if len(stack) >= MAX_DEPTH:
            raise _Reject(f"elements nested deeper than {MAX_DEPTH}")
        tag = name.rsplit("}", 1)[-1]
        seen = counts[-1]
        seen[tag] = seen.get(tag, 0) + 1
        parent = stack[-1].path if stack else ""
        node = _Node(
            tag, {k.rsplit("}", 1)[-1]: v for k, v in attrs.items()},
            parser.CurrentLineNumber, parser.CurrentColumnNumber + 1,
            f"{parent}/{tag}[{seen[tag]}]",
        )
        if stack:
            stack[-1].children.append(node)
        else:
            root.append(node)
        stack.append(node)
        counts.append({})

    def end(name: str) -> None:
        stack.pop()
        counts.pop()

    def chars(text: str) -> None:
        if stack:
            stack[-1].text.append(text)

    def doctype(*_: object) -> None:
        raise _Reject("a document type declaration (DOCTYPE) is not allowed in PNML input")

    def entity(*_: object) -> None:
        raise _Reject("an entity declaration is not allowed in PNML input")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.ExternalEntityRefHandler = lambda *_: 0
    try:
        parser.Parse(data, True)
    except _Reject as exc:
        loc = SourceLocation(path, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        raise NetFormatError(str(exc), loc) from None
    except expat.ExpatError as exc:
        loc = SourceLocation(path, exc.lineno, exc.offset + 1)
        raise NetFormatError(f"not well-formed XML: {expat.ErrorString(exc.code)}", loc) from None
    if not root:
        raise NetFormatError(f"{path}: no XML element")
    return root[0]


def _err(path: str, node: _Node, message: str) -> NetFormatError:
    loc = SourceLocation(path, node.line, node.column)
    return NetFormatError(f"{message} (at {node.path})", loc)


def _label_text(node: _Node | None) -> str | None:
    """The text of a label: `<text>…</text>` (standard) or `<value>…</value>` (PIPE);
    "" for a label that has neither (PIPE writes a marking of only `<graphics>`)."""
    if node is None:
        return None
    for tag in ("text", "value"):
        c = node.child(tag)
        if c is not None:
            return c.all_text().strip()
    return ""


def _count(path: str, node: _Node, what: str, minimum: int) -> int:
    """A marking or a weight; an empty label is the least value (PIPE: marking 0,
    weight 1)."""
    raw = _label_text(node)
    assert raw is not None
    text = raw
    if "," in text:  # PIPE: "Default,N"; several colours are not a P/T marking
        parts = [s.strip() for s in text.split(",")]
        if len(parts) != 2:
            raise _err(path, node, f"{what} {raw!r} has several colours (not a P/T net)")
        text = parts[1]
    if not text:
        return minimum
    if not re.fullmatch(r"[0-9]{1,19}", text):
        raise _err(path, node, f"{what} {raw!r} is not a non-negative integer")
    value = int(text)
    if value < minimum or value > MAX_TOKENS:
        raise _err(path, node, f"{what} {raw!r} is out of range ({minimum}..{MAX_TOKENS})")
    return value


# Labels of high-level (coloured) nets: a file that has them is not a P/T net, even when
# its net type says so.
_COLOURED = ("hlinitialMarking", "hlinscription", "declaration", "type", "condition")


def _plain(path: str, el: _Node, kind: str) -> None:
    """Reject a node that carries coloured-net labels or a PIPE capacity bound."""
    for c in el.children:
        if c.tag in _COLOURED and not (kind == "arc" and c.tag == "type"):
            raise _err(path, c, f"<{c.tag}> of a coloured net: not a P/T net")
    cap = el.child("capacity") if kind == "place" else None
    if cap is not None and _count(path, cap, "capacity", 0) != 0:
        raise _err(path, cap, "a place capacity bounds the marking: not a P/T net "
                              "(PIPE writes 0 for no bound)")


def _stochastic(path: str, transitions: list[_Node]) -> None:
    """PIPE's generalised stochastic nets: immediate transitions take priority over timed
    ones, and higher priorities over lower; reachability is that of the P/T net only when
    every transition has the same kind and priority."""
    seen: dict[tuple[str, str], _Node] = {}
    for el in transitions:
        timed, prio = el.child("timed"), el.child("priority")
        key = ((_label_text(timed) or "false").lower(), _label_text(prio) or "1")
        seen.setdefault(key, el)
    if len(seen) > 1:
        (k1, _), (k2, el) = list(seen.items())[:2]
        raise _err(path, el, f"transitions differ in timing or priority ({k1} vs {k2}): "
                             "priorities change what is reachable (not a P/T net)")


_PT_TYPES = ("ptnet", "p/t net", "p/t")


def read_pnml(data: bytes, path: str) -> PTNet:
    root = _parse_xml(data, path)
    if root.tag != "pnml":
        raise _err(path, root, f"the root element is <{root.tag}>, expected <pnml>")
    nets = [c for c in root.children if c.tag == "net"]
    if len(nets) != 1:
        raise _err(path, root, f"expected exactly one <net>, found {len(nets)}")
    net = nets[0]
    ntype = net.attrs.get("type", "")
    if ntype and not any(ntype.lower().rstrip("/").endswith(t) for t in _PT_TYPES):
        raise _err(path, net, f"net type {ntype!r} is not a place/transition net")
    b = _Builder(name=net.attrs.get("id", "net"))
    name_text = _label_text(net.child("name"))
    if name_text:
        b.name = name_text
    nodes: dict[str, tuple[str, _Node]] = {}  # id -> (kind, element)
    refs: dict[str, tuple[str, _Node]] = {}
    arcs: list[_Node] = []
    ids: set[str] = set()

    # walk the pages with an explicit stack (a fixed order: a page's nodes, then its pages)
    stack = [net]
    while stack:
        container = stack.pop()
        _plain(path, container, container.tag)
        pages: list[_Node] = []
        for c in container.children:
            if c.tag in ("place", "transition", "referencePlace", "referenceTransition",
                         "arc", "page"):
                ident = c.attrs.get("id")
                if not ident:
                    raise _err(path, c, f"<{c.tag}> without an id")
                if ident in ids:
                    raise _err(path, c, f"duplicate id {ident!r}")
                ids.add(ident)
            if c.tag == "page":
                pages.append(c)
            elif c.tag in ("place", "transition"):
                nodes[c.attrs["id"]] = (c.tag, c)
            elif c.tag in ("referencePlace", "referenceTransition"):
                if not c.attrs.get("ref"):
                    raise _err(path, c, f"<{c.tag}> without a ref")
                refs[c.attrs["id"]] = (c.tag, c)
            elif c.tag == "arc":
                arcs.append(c)
        stack.extend(reversed(pages))
    for ident, (kind, el) in nodes.items():
        _plain(path, el, kind)
        label = _label_text(el.child("name"))
        if kind == "place":
            im = el.child("initialMarking")
            mark = 0 if im is None else _count(path, im, f"initial marking of {ident!r}", 0)
            b.place(ident, label or ident, mark)
        else:
            b.transition(ident, label or ident)

    def resolve(ident: str, at: _Node) -> tuple[str, str]:
        seen: set[str] = set()
        while ident in refs:
            if ident in seen:
                raise _err(path, at, f"reference cycle through {ident!r}")
            seen.add(ident)
            kind, el = refs[ident]
            ident = el.attrs["ref"]
            target = nodes.get(ident) or refs.get(ident)
            if target is None:
                raise _err(path, el, f"reference to unknown node {ident!r}")
            want = "place" if kind == "referencePlace" else "transition"
            if target[0] not in (want, kind):
                raise _err(path, el, f"<{kind}> refers to a {target[0]}")
        if ident not in nodes:
            raise _err(path, at, f"arc end {ident!r} is not a place or transition of the net")
        return nodes[ident][0], ident

    _stochastic(path, [el for kind, el in nodes.values() if kind == "transition"])
    for a in arcs:
        _plain(path, a, "arc")
        aid = a.attrs["id"]
        src, dst = a.attrs.get("source"), a.attrs.get("target")
        if not src or not dst:
            raise _err(path, a, f"arc {aid!r} needs both a source and a target")
        sk, s = resolve(src, a)
        dk, d = resolve(dst, a)
        if sk == dk:
            raise _err(path, a, f"arc {aid!r} joins two {sk}s")
        kind_el = a.child("type") or a.child("arctype")
        if kind_el is not None:
            kind = (kind_el.attrs.get("value") or _label_text(kind_el) or "")
            if kind.strip().lower() not in ("normal", ""):
                raise _err(path, a, f"arc {aid!r} is a {kind} arc (not a P/T net)")
        ins = a.child("inscription")
        w = 1 if ins is None else _count(path, ins, f"inscription of arc {aid!r}", 1)
        if sk == "place":
            b.arc(b.tindex[d], b.pindex[s], w, into_place=False)
        else:
            b.arc(b.tindex[s], b.pindex[d], w, into_place=True)
    return b.build()


# ---- Tina .net --------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<brace>\{(?:\\.|[^\\}])*\})
    | (?P<arrow>->)
    | (?P<punct>[:()\[\],*?!<>])
    | (?P<word>(?:[^\s:(){}\[\],*?!\#<>-]|-(?!>))+)
    | (?P<bad>\S)
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    column: int


def _strip_comment(line: str) -> str:
    depth = False
    i = 0
    while i < len(line):
        ch = line[i]
        if depth:
            if ch == "\\":
                i += 1
            elif ch == "}":
                depth = False
        elif ch == "{":
            depth = True
        elif ch == "#":
            return line[:i]
        i += 1
    return line


def _tokens(line: str, path: str, lineno: int) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    body = line.rstrip()
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        assert m is not None
        kind = m.lastgroup or "bad"
        text = m.group(kind)
        col = m.start(kind) + 1
        if kind == "bad":
            raise NetFormatError(
                f"unexpected character {text!r}", SourceLocation(path, lineno, col, line)
            )
        if kind == "brace":
            kind, text = "word", re.sub(r"\\(.)", r"\1", text[1:-1])
        out.append(_Tok(kind, text, col))
        pos = m.end()
    return out


_MARK = re.compile(r"([0-9]{1,19})([KM]?)")


class _Line:
    """Cursor over the tokens of one `.net` line."""

    def __init__(self, path: str, lineno: int, raw: str) -> None:
        self.path, self.lineno, self.raw = path, lineno, raw
        self.toks = _tokens(_strip_comment(raw), path, lineno)
        self.pos = 0

    def err(self, msg: str, at: int | None = None) -> NetFormatError:
        k = self.pos if at is None else at
        col = self.toks[min(k, len(self.toks) - 1)].column if k < len(self.toks) else (
            len(self.raw.rstrip()) + 1)
        return NetFormatError(msg, SourceLocation(self.path, self.lineno, col, self.raw))

    def more(self) -> bool:
        return self.pos < len(self.toks)

    def peek(self, kind: str, text: str | None = None) -> bool:
        if not self.more():
            return False
        t = self.toks[self.pos]
        return t.kind == kind and (text is None or t.text == text)

    def word(self, what: str) -> str:
        if not self.peek("word"):
            raise self.err(f"expected {what}")
        self.pos += 1
        return self.toks[self.pos - 1].text

    def number(self, what: str, minimum: int) -> int:
        m = _MARK.fullmatch(self.toks[self.pos].text) if self.peek("word") else None
        if m is None:
            raise self.err(f"expected {what} (a non-negative integer, K/M suffix allowed)")
        v = int(m.group(1)) * {"": 1, "K": 1000, "M": 1000_000}[m.group(2)]
        if v < minimum or v > MAX_TOKENS:
            raise self.err(f"{what} {m.group(0)} is out of range ({minimum}..{MAX_TOKENS})")
        self.pos += 1
        return v

    def label(self) -> str | None:
        if self.peek("punct", ":"):
            self.pos += 1
            return self.word("a label after ':'")
        return None

    def weight(self) -> tuple[int, bool]:
        """(weight, is a test arc) of the arc whose end was just read."""
        if self.peek("punct", "*"):
            self.pos += 1
            return self.number("an arc weight", 1), False
        if self.peek("punct", "?"):
            self.pos += 1
            if self.peek("word") and self.toks[self.pos].text.startswith("-"):
                raise self.err("inhibitor arcs (?-) are not supported: not a P/T net")
            return self.number("a test-arc weight", 1), True
        if self.peek("punct", "!"):
            raise self.err("reset/stopwatch arcs (!) are not supported: not a P/T net")
        return 1, False

    def interval(self) -> None:
        """Skip the trivial time interval [0,w[; reject any other."""
        if not (self.peek("punct", "[") or self.peek("punct", "]")):
            return
        start = self.pos
        self.pos += 1
        while self.more() and not (
            self.toks[self.pos].kind == "punct" and self.toks[self.pos].text in "[]"
        ):
            self.pos += 1
        if not self.more():
            raise self.err("unterminated time interval", start)
        self.pos += 1
        text = "".join(t.text for t in self.toks[start:self.pos])
        if text != "[0,w[":
            raise self.err(
                f"time interval {text} is not supported: this reads untimed P/T nets", start
            )


def _arc_list(line: _Line, b: _Builder, node: int, is_place: bool) -> None:
    """`a b*2 -> c`: the arcs of a `tr` line (ends are places) or of a `pl` line (ends
    are transitions; before the arrow they feed the place)."""
    before = True
    count = 0
    while line.more():
        if line.peek("arrow"):
            if not before:
                raise line.err("a second '->'")
            before = False
            line.pos += 1
            continue
        count += before
        end = line.word("a transition name" if is_place else "a place name")
        w, test = line.weight()
        t, p = (b.transition(end), node) if is_place else (node, b.place(end))
        if test:
            b.arc(t, p, w, into_place=False)
            b.arc(t, p, w, into_place=True)
        else:
            b.arc(t, p, w, into_place=before if is_place else not before)
    if before and count:
        raise line.err("expected '->' between the two sides")


# ser-prove's own export names each node in a comment after it: `# p3 = "L main (...)"`
_OWN_NAME = re.compile(r'#\s*([pt][0-9]+)\s*=\s*(".*")\s*$')


def read_tina(text: str, path: str) -> PTNet:
    b = _Builder()
    declared_p: set[str] = set()
    declared_t: set[str] = set()
    for lineno, raw in enumerate(text.splitlines(), start=1):
        own = _OWN_NAME.fullmatch(raw.strip())
        if own is not None:
            _own_name(b, own[1], own[2])
            continue
        line = _Line(path, lineno, raw)
        if not line.more():
            continue
        kw = line.toks[0]
        line.pos = 1
        if kw.kind != "word":
            raise line.err("expected a declaration (net, pl, tr, lb)", 0)
        if kw.text == "net":
            b.name = line.word("a net name")
        elif kw.text == "pl":
            pid = line.word("a place name")
            if pid in declared_p:
                raise line.err(f"place {pid!r} is declared twice", 1)
            declared_p.add(pid)
            lab = line.label()
            mark = 0
            if line.peek("punct", "("):
                line.pos += 1
                mark = line.number("a marking", 0)
                if not line.peek("punct", ")"):
                    raise line.err("expected ')' after the marking")
                line.pos += 1
            i = b.place(pid)
            b.initial[i] = mark
            if lab is not None:
                b.place_names[i] = lab
            _arc_list(line, b, i, is_place=True)
        elif kw.text == "tr":
            tid = line.word("a transition name")
            if tid in declared_t:
                raise line.err(f"transition {tid!r} is declared twice", 1)
            declared_t.add(tid)
            lab = line.label()
            j = b.transition(tid)
            if lab is not None:
                b.transition_names[j] = lab
            line.interval()
            _arc_list(line, b, j, is_place=False)
        elif kw.text == "lb":
            line.word("a node name")
            line.word("a label")
        elif kw.text in ("pr", "nt"):
            raise line.err(f"'{kw.text}' declarations are not supported (not a plain P/T net)", 0)
        else:
            raise line.err(f"unknown declaration {kw.text!r} (expected net, pl, tr, lb)", 0)
        if line.more():
            raise line.err(f"unexpected {line.toks[line.pos].text!r}")
    return b.build()


def _own_name(b: _Builder, node: str, quoted: str) -> None:
    """The canonical name ser-prove's export gives a node in the comment after it (the
    node's name when it has no label); anything else is an ordinary comment."""
    try:
        name = json.loads(quoted)
    except ValueError:
        return
    if not isinstance(name, str):
        return
    index, names = (b.pindex, b.place_names) if node[0] == "p" else \
        (b.tindex, b.transition_names)
    k = index.get(node)
    if k is not None and names[k] == node:
        names[k] = name


# ---- dispatch ---------------------------------------------------------------------------

RAW_SUFFIXES = (".pnml", ".xml", ".net")


def read_net_file(path: str | Path) -> PTNet:
    """Read a PNML (`.pnml`, `.xml`) or Tina (`.net`) file."""
    p = Path(path)
    name = str(path)
    suffix = p.suffix.lower()
    if suffix not in RAW_SUFFIXES:
        raise InputFileError(f"{name}: unknown net extension {suffix or '(none)'!r}")
    data = read_model_bytes(p, max_bytes=MAX_NET_BYTES, kind="net")
    if suffix == ".net":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NetFormatError(f"{name}: not UTF-8 text (byte {exc.start})") from None
        return read_tina(text.removeprefix("\ufeff"), name)
    return read_pnml(data, name)


# ---- writers ----------------------------------------------------------------------------

_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return escape(_XML_BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def _xml_attr(text: str) -> str:
    return quoteattr(_XML_BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def subnet(net: PTNet, sl: Slice) -> PTNet:
    """The slice as a net of its own: its places and transitions with the original
    identifiers, arcs between them, M0 restricted to its places."""
    keep = {p: k for k, p in enumerate(sl.places)}
    return PTNet(
        name=net.name,
        place_ids=tuple(net.place_ids[p] for p in sl.places),
        place_names=tuple(net.place_names[p] for p in sl.places),
        transition_ids=tuple(net.transition_ids[j] for j in sl.transitions),
        transition_names=tuple(net.transition_names[j] for j in sl.transitions),
        pre=tuple(tuple((keep[p], w) for p, w in net.pre[j] if p in keep) for j in sl.transitions),
        post=tuple(
            tuple((keep[p], w) for p, w in net.post[j] if p in keep) for j in sl.transitions
        ),
        initial=tuple(net.initial[p] for p in sl.places),
    )


def ptnet_to_pnml(net: PTNet) -> str:
    """ISO/IEC 15909-2 PNML (2009 grammar) with the net's own identifiers."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">',
        f'  <net id={_xml_attr(net.name or "net")} '
        'type="http://www.pnml.org/version-2009/grammar/ptnet">',
        f"    <name><text>{_xml_text(net.name)}</text></name>",
        '    <page id="page0">' if "page0" not in net.place_ids + net.transition_ids
        else '    <page id="page0_">',
    ]
    for i, pid in enumerate(net.place_ids):
        mark = net.initial[i]
        init = f"<initialMarking><text>{mark}</text></initialMarking>" if mark else ""
        out.append(f"      <place id={_xml_attr(pid)}><name><text>"
                   f"{_xml_text(net.place_names[i])}</text></name>{init}</place>")
    for j, tid in enumerate(net.transition_ids):
        out.append(f"      <transition id={_xml_attr(tid)}><name><text>"
                   f"{_xml_text(net.transition_names[j])}</text></name></transition>")
    used = set(net.place_ids) | set(net.transition_ids)
    k = 0
    for j, tid in enumerate(net.transition_ids):
        for arcs, forward in ((net.pre[j], False), (net.post[j], True)):
            for i, w in arcs:
                while f"a{k}" in used:
                    k += 1
                pid = net.place_ids[i]
                src, dst = (tid, pid) if forward else (pid, tid)
                ins = f"<inscription><text>{w}</text></inscription>" if w != 1 else ""
                out.append(f'      <arc id="a{k}" source={_xml_attr(src)} '
                           f"target={_xml_attr(dst)}>{ins}</arc>")
                k += 1
    out += ["    </page>", "  </net>", "</pnml>"]
    return "\n".join(out) + "\n"


def _tina_name(name: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_'.]+", name):
        return name
    return "{" + name.replace("\\", "\\\\").replace("}", "\\}").replace("\n", " ") + "}"


def ptnet_to_tina(net: PTNet) -> str:
    """Tina `.net` text with the net's own identifiers (names as labels)."""
    lines = [f"net {_tina_name(net.name or 'net')}"]
    for i, pid in enumerate(net.place_ids):
        lab = f" : {_tina_name(net.place_names[i])}" if net.place_names[i] != pid else ""
        lines.append(f"pl {_tina_name(pid)}{lab} ({net.initial[i]})")
    for j, tid in enumerate(net.transition_ids):
        lab = f" : {_tina_name(net.transition_names[j])}" if net.transition_names[j] != tid else ""

        def arcs(a: tuple[tuple[int, int], ...]) -> str:
            return " ".join(
                _tina_name(net.place_ids[i]) + ("" if w == 1 else f"*{w}") for i, w in a
            )

        lines.append(f"tr {_tina_name(tid)}{lab} {arcs(net.pre[j])} -> {arcs(net.post[j])}"
                     .replace("  ", " "))
    return "\n".join(lines) + "\n"
