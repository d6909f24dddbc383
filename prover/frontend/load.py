"""Loading a model: a Ser program (`.ser`) or a network system in JSON (`.json`).

This is the front end's public API:

    load_model(path, *, ns=...)                 -> LoadedModel (dispatch on the extension)
    load_source(source, kind, path, *, ns=...)  -> LoadedModel (kind "ser" or "ns-json")

`ns="reachable"` (default) builds the restricted NS of DESIGN.md ("Restricted network
systems", prover/frontend/reachable.py; `ns.restriction` holds the pairs P and the
coverability ideals); `ns="closure"` the reference's Cartesian closure.

Every bad input raises a `prover.errors.SerError` subclass with one clear message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import Literal

from prover.errors import Diagnostic, InputFileError, UsageError
from prover.frontend.choices import DEFAULT_NS, DEFAULT_STATE_BOUND, NS_CHOICES, NsChoice
from prover.frontend.closure import compile_program
from prover.frontend.files import read_model_bytes
from prover.frontend.lint import lint
from prover.frontend.nsjson import load_ns_json
from prover.frontend.parser import parse
from prover.frontend.reachable import compile_reachable, restrict_ns
from prover.frontend.sniff import reject_certificate
from prover.frontend.steps import ProgramSteps
from prover.ns import NetworkSystem

__all__ = [
    "DEFAULT_NS", "DEFAULT_STATE_BOUND", "NS_CHOICES", "LoadedModel", "NsChoice", "load_model",
    "load_source",
]

# DEFAULT_NS: the restricted NS (DESIGN.md, "Restricted network systems"); `closure` is
# the reference's Cartesian construction, kept so that the paper's sizes stay comparable.

_KINDS: dict[str, Literal["ser", "ns-json"]] = {".ser": "ser", ".json": "ns-json"}
MODEL_SUFFIXES = tuple(_KINDS)


@dataclass(frozen=True)
class LoadedModel:
    """A model read and parsed. Its network system `ns` is built when first read (a Ser
    program: from its per-variable steps `steps`, which every engine that does not need
    the whole NS reads instead); building it may raise the compiler's errors."""

    path: str
    kind: Literal["ser", "ns-json"]
    source: str
    build: Callable[[], NetworkSystem] = field(repr=False, compare=False)
    # Non-fatal remarks about the input (prover/frontend/lint.py; NS JSON: unknown keys).
    warnings: tuple[Diagnostic, ...] = ()
    steps: ProgramSteps | None = field(default=None, repr=False, compare=False)
    # The constants a Ser program was written out with (`const K := 4;`, `-D K=8`).
    constants: tuple[tuple[str, int], ...] = ()

    @cached_property
    def ns(self) -> NetworkSystem:
        return self.build()

    @property
    def ns_built(self) -> bool:
        return "ns" in self.__dict__


def load_source(
    source: str,
    kind: str,
    path: str = "<string>",
    *,
    state_bound: int = DEFAULT_STATE_BOUND,
    ns: NsChoice = DEFAULT_NS,
    lazy: bool = False,
    defines: Mapping[str, int] | None = None,
) -> LoadedModel:
    """Read a model given as text. `kind` is "ser" or "ns-json"; `ns` is "reachable" (the
    restricted NS, default) or "closure"; `lazy`: build the NS only when first read;
    `defines`: values of the program's constants (`-D NAME=VALUE`), each one it declares."""
    if ns not in NS_CHOICES:
        raise InputFileError(f"unknown network-system construction {ns!r} (reachable, closure)")
    if not source.strip():
        raise InputFileError(f"{path}: the model is empty")
    if kind == "ser":
        program = parse(source, path, defines)
        compile_ns = compile_reachable if ns == "reachable" else compile_program
        steps = ProgramSteps(program, source=source, path=path, state_bound=state_bound)
        model = LoadedModel(path, "ser", source,
                            partial(compile_ns, program, source=source, path=path,
                                    state_bound=state_bound, steps=steps),
                            lint(program, path), steps, program.constants)  # fmt: skip
    elif kind == "ns-json":
        if defines:
            raise UsageError(f"{path}: -D gives constants of a Ser program; a network system "
                             "has none")
        reject_certificate(source, path)
        net_sys, warnings = load_ns_json(source, path)
        build = (partial(restrict_ns, net_sys, state_bound=state_bound) if ns == "reachable"
                 else partial(_given, net_sys))  # fmt: skip
        model = LoadedModel(path, "ns-json", source, build, warnings)
    else:
        raise InputFileError(f"{path}: unknown model kind {kind!r} (expected 'ser' or 'ns-json')")
    if not lazy:
        model.ns  # noqa: B018  (built now: its errors are the load's)
    return model


def _given(ns: NetworkSystem) -> NetworkSystem:
    return ns


def load_model(
    path: str | Path, *, state_bound: int = DEFAULT_STATE_BOUND, ns: NsChoice = DEFAULT_NS,
    data: bytes | None = None, lazy: bool = False, defines: Mapping[str, int] | None = None,
) -> LoadedModel:
    """Read and build a model file; `.ser` is a Ser program, `.json` a network system.

    Only regular files of at most `prover.frontend.files.MAX_MODEL_BYTES` are read. `data`: the
    file's bytes, already read that way (by a cluster's client); `path` then only names it."""
    p = Path(path)
    name = str(path)
    kind = _KINDS.get(p.suffix.lower())
    if kind is None:
        raise InputFileError(
            f"{name}: unknown model extension {p.suffix or '(none)'!r} (expected .ser or .json)"
        )
    if data is None:
        data = read_model_bytes(p)
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    if source.startswith("\ufeff"):  # a byte-order mark is not part of the model
        source = source[1:]
    return load_source(source, kind, name, state_bound=state_bound, ns=ns, lazy=lazy,
                       defines=defines)
