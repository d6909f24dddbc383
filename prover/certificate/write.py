"""Writing `ser-certificate/1` certificates (docs/certificates.md).

The envelope (format, model, verdict, producer) is shared by every engine:
`make_certificate` builds it around one evidence member (`counterexample`, `proof`,
`reduction`, ...), `dump_certificate` serialises it deterministically. The same model and
evidence give the same bytes on every run: keys are written in the contract's order,
lists in the stated orders, and nothing run-dependent is included unless the caller asks
for it (`producer(..., wall_time_ms=...)` is optional and off by default for that reason;
it is an integer, since certificates hold integer literals only).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from typing import Any, Literal, Protocol

from prover import __version__
from prover.engines import Counterexample, Event
from prover.errors import CertificateError
from prover.serial.membership import Multiset

FORMAT = "ser-certificate/1"

Verdict = Literal["serializable", "not_serializable", "ltl_violated", "ltl_holds",
                  "assertion_violated"]
EvidenceName = Literal["counterexample", "proof", "reduction", "ltl", "always", "assertion"]
EVIDENCE: dict[str, tuple[str, ...]] = {
    "not_serializable": ("counterexample",), "serializable": ("proof", "reduction"),
    "ltl_violated": ("ltl",), "ltl_holds": ("always",), "assertion_violated": ("assertion",)}


class ModelLike(Protocol):
    """What the writer needs of a loaded model (e.g. `prover.frontend.load.LoadedModel`)."""

    @property
    def path(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def constants(self) -> tuple[tuple[str, int], ...]: ...


def sha256_text(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def model_section(kind: str, path: str | None, source: str,
                  constants: Any = ()) -> dict[str, Any]:
    """`{"kind", "path", "source", "sha256"}` and the `constants` the program was written
    out with, if it has any; `path` is reduced to its file name so that the bytes do not
    depend on the working directory."""
    if kind not in ("ser", "ns-json"):
        raise CertificateError(f"unknown model kind {kind!r}")
    out: dict[str, Any] = {"kind": kind}
    if path:
        out["path"] = os.path.basename(path)
    out["source"] = source
    out["sha256"] = sha256_text(source)
    if constants:
        out["constants"] = dict(constants)
    return out


def producer(
    engine: str,
    *,
    solver: str = "none",
    solver_version: str = "",
    wall_time_ms: int | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": "ser-prove", "version": __version__, "engine": engine}
    if wall_time_ms is not None:
        out["wall_time_ms"] = max(int(wall_time_ms), 0)
    out["solver"] = solver
    out["solver_version"] = solver_version
    return out


def make_certificate(
    model: ModelLike | Mapping[str, Any],
    verdict: Verdict,
    evidence_name: EvidenceName,
    evidence: Mapping[str, Any],
    producer_info: Mapping[str, Any],
) -> dict[str, Any]:
    """The full certificate. `model` is a loaded model or an already built model section."""
    expected = EVIDENCE[verdict]
    if evidence_name not in expected:
        raise CertificateError(f"verdict {verdict} needs evidence {' or '.join(expected)}")
    if isinstance(model, Mapping):
        section = model_section(model["kind"], model.get("path"), model["source"],
                                model.get("constants", ()))
    else:
        section = model_section(model.kind, model.path, model.source, model.constants)
    return {
        "format": FORMAT,
        "model": section,
        "verdict": verdict,
        "producer": dict(producer_info),
        evidence_name: dict(evidence),
    }


def parts_certificate(model: ModelLike, parts: list[dict[str, Any]]) -> dict[str, Any]:
    """A Ser program serializable in independent parts (prover/frontend/parts.py): each
    part a whole certificate of the program restricted to its request kinds."""
    return {"format": FORMAT, "model": model_section(model.kind, model.path, model.source,
                                                     model.constants),
            "verdict": "serializable", "producer": producer("parts"), "parts": parts}


def cases_certificate(model: ModelLike, inputs: list[dict[str, str]], split: dict[str, Any]
                      ) -> dict[str, Any]:  # fmt: skip
    """A Ser program serializable because the program whose requests `inputs` names are
    split into one request per value of their input is (prover/frontend/cases.py)."""
    return {"format": FORMAT, "model": model_section(model.kind, model.path, model.source,
                                                     model.constants),
            "verdict": "serializable", "producer": producer("cases"),
            "cases": {"requests": inputs, "split": split}}


def locking_certificate(model: ModelLike, claim: dict[str, Any]) -> dict[str, Any]:
    """A Ser program serializable by two-phase locking (prover/frontend/locking.py): its
    locks and the lock that guards each global written."""
    return {"format": FORMAT, "model": model_section(model.kind, model.path, model.source,
                                                     model.constants),
            "verdict": "serializable", "producer": producer("locking"), "locking": claim}


def versions_certificate(model: ModelLike, versions: list[dict[str, Any]],
                         abstract: dict[str, Any]) -> dict[str, Any]:
    """A Ser program serializable because its abstraction without versions that never wrap
    is (prover/frontend/versions.py): the versions, and the abstraction's certificate."""
    return {"format": FORMAT, "model": model_section(model.kind, model.path, model.source,
                                                     model.constants),
            "verdict": "serializable", "producer": producer("versions"),
            "versions": {"globals": versions, "abstract": abstract}}


def vector_json(multiset: Multiset) -> list[dict[str, Any]]:
    """A sparse (request, response, count) vector, sorted by request then response."""
    return [
        {"request": r, "response": v, "count": n}
        for (r, v), n in sorted(multiset)
        if n > 0
    ]


def event_json(ev: Event) -> dict[str, Any]:
    if ev.kind == "spawn":
        return {"event": "spawn", "instance": ev.instance, "request": ev.request,
                "local": ev.local}
    if ev.kind == "step":
        return {"event": "step", "instance": ev.instance,
                "from": [ev.local, ev.global_], "to": [ev.to_local, ev.to_global]}
    return {"event": "respond", "instance": ev.instance, "local": ev.local,
            "response": ev.response}


def counterexample_evidence(cex: Counterexample) -> dict[str, Any]:
    return {
        "events": [event_json(e) for e in cex.events],
        "completed": vector_json(cex.completed),
    }


def counterexample_certificate(model: ModelLike, cex: Counterexample) -> dict[str, Any]:
    return make_certificate(
        model, "not_serializable", "counterexample", counterexample_evidence(cex),
        producer(cex.engine, solver="z3" if cex.engine == "bmc" else "none"),
    )


LARGE_CERTIFICATE_BYTES = 1 << 20
"""Beyond this size (without whitespace) a certificate is written with every list item
from nesting level `LARGE_LINE_LEVEL` on as one line without spaces: the indentation of a large
serial set would otherwise take 70 % more bytes (counter-64: 27.7 MB indented, over the
checker's 16 MiB limit, against 16.5 MB compact)."""

LARGE_LINE_LEVEL = 4
"""Level of one line per list item in a large certificate: a serial-set component, a
top-level conjunct of an invariant, a counterexample event."""


def dump_certificate(cert: Mapping[str, Any]) -> str:
    """Deterministic text: two-space indentation, UTF-8 kept as is, final newline.

    Short lists of scalars (event `from`/`to` pairs, edges) stay on one line to keep
    certificates readable; a large certificate has one line per item from level
    `LARGE_LINE_LEVEL` on (a function of the content only)."""
    try:
        compact = len(_COMPACT.encode(cert))
    except TypeError as exc:
        raise CertificateError(f"cannot serialise a value in a certificate ({exc})") from None
    line_level = LARGE_LINE_LEVEL if compact > LARGE_CERTIFICATE_BYTES else None
    return _dump(cert, 0, line_level) + "\n"


_SCALAR = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
"""One encoder for the scalars and one-line containers (same text as `json.dumps` with
these options, without building an encoder per value)."""

_ONE_LINE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


_COMPACT = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _one_line(value: Any, encoder: json.JSONEncoder = _ONE_LINE) -> str:
    try:
        return encoder.encode(value)
    except TypeError as exc:  # a value of a type JSON has no literal for
        raise CertificateError(f"cannot serialise a value in a certificate ({exc})") from None


def _dump(value: Any, level: int, line_level: int | None = None) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, int | float | str):
        return _SCALAR.encode(value)
    pad = "  " * (level + 1)
    end = "  " * level
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        if level >= 2 and len(value) <= 4 and all(_flat(v) for v in value.values()):
            # one line: exactly `{"k": v, ...}` with flat values, in one encoder call
            return _one_line({str(k): v for k, v in value.items()})
        items = [
            f"{pad}{_SCALAR.encode(str(k))}: {_dump(v, level + 1, line_level)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        if all(not isinstance(v, Mapping | list | tuple) for v in value):
            return _one_line(value)
        if line_level is not None and level + 1 >= line_level:  # one line per item
            items = [f"{pad}{_one_line(v, _COMPACT)}" for v in value]
        else:
            items = [f"{pad}{_dump(v, level + 1, line_level)}" for v in value]
        return "[\n" + ",\n".join(items) + "\n" + end + "]"
    raise CertificateError(f"cannot serialise {type(value).__name__} in a certificate")


def _flat(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return all(not isinstance(v, Mapping | list | tuple) for v in value)
    return not isinstance(value, Mapping)


def write_certificate(cert: Mapping[str, Any], path: str) -> str:
    """Write the certificate atomically (temporary file + rename); returns the text."""
    text = dump_certificate(cert)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CertificateError(f"cannot write certificate {path}: {exc.strerror}") from exc
    return text
