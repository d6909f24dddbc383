"""One set of limits: what the prover accepts is what the trusted checker accepts.

The prover must never spend its budget on a model and then write a certificate that the
checker rejects for a limit the prover could have known. So:

* model files are read only if they are regular files of at most `MAX_MODEL_BYTES`
  (prover/frontend/files.py);
* the embedded model source must fit the checker's certificate size limit;
* after the prover's own front end accepted a model, the checker's own front end
  (`checker.model.load_model`: its parser, its compiler, its state and pair bounds, its
  NS JSON rules such as "no repeated keys") must accept it too; otherwise the model is
  refused with exit code 2 and the checker's reason (`CheckerLimitError`);
* a certificate that exceeds the checker's certificate limits (bytes, counterexample
  events) is not offered to it: the run is "undecided" with the limit named.

The checker's figures are read from the checker itself (`checker.certificate.Limits`),
so a change there is followed here without a second copy of the numbers.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prover.errors import CheckerLimitError

_CERT_ENVELOPE_BYTES = 64 * 1024
"""Room kept in the certificate for everything but the embedded source."""


@dataclass(frozen=True)
class CheckerLimits:
    max_bytes: int
    max_events: int
    max_depth: int


def checker_limits() -> CheckerLimits:
    """The checker's certificate limits (its defaults, as `ser-prove` calls it)."""
    try:
        from checker.certificate import Limits
    except ImportError:  # no checker: nothing will be checked, nothing to fit
        return CheckerLimits(1 << 62, 1 << 62, 256)
    lim = Limits()
    return CheckerLimits(int(lim.max_bytes), int(lim.max_events), int(lim.max_depth))


def check_source_fits(source: str, path: str) -> None:
    """The certificate embeds the source JSON-escaped; it must fit the checker's limit."""
    limit = checker_limits().max_bytes
    escaped = len(json.dumps(source, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if escaped + _CERT_ENVELOPE_BYTES > limit:
        raise CheckerLimitError(
            f"{path}: the model source takes {escaped} bytes in a certificate, more than "
            f"the certificate checker's limit of {limit} bytes per certificate allows"
        )


def preflight(kind: str, source: str, path: str,
              constants: tuple[tuple[str, int], ...] = ()) -> None:
    """Refuse a model the checker's own front end would refuse to read
    (`CheckerLimitError`): its size, and the checker's parser (or NS JSON loader)."""
    check_source_fits(source, path)
    _as_checker(path, lambda semantics, explore: semantics(kind, source, dict(constants)))


def preflight_ns(
    kind: str, source: str, path: str, pairs: frozenset[tuple[str, str]] | None = None,
    bound: int | None = None, constants: tuple[tuple[str, int], ...] = (),
) -> None:
    """Refuse a network system the checker could not explore (`CheckerLimitError`): the
    checker's exploration of the NS a proof certificate will name, the closure or the
    restricted NS of `pairs` (cheap next to the engines: 0.04 s for all 47 paper models
    together). Reduction proofs and counterexamples need no NS."""
    def work(semantics: Any, explore: Any) -> object:
        sem = semantics(kind, source, dict(constants))
        return explore(sem, pairs) if bound is None else explore(sem, pairs, bound)

    _as_checker(path, work)


def _as_checker(path: str, work: Callable[[Any, Any], object]) -> None:
    """Run `work(semantics, explore)` with the checker's front end; its refusal is ours.
    Without the checker installed nothing is checked later either: nothing is refused."""
    try:
        from checker.errors import CheckerError
        from checker.semantics import explore, semantics
    except ImportError:
        return
    # The checker reads with its recursion limit raised by its own rule (checker/api.py:
    # 40 frames per level of its JSON depth limit): the same here, so that a program the
    # prover accepts is one the checker reads, and the other way round.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 40 * checker_limits().max_depth + 1000))
    try:
        work(semantics, explore)
    except CheckerError as exc:
        raise CheckerLimitError(
            f"{path}: the certificate checker would reject this model: {exc.message}"
        ) from None
    except (RecursionError, MemoryError) as exc:  # the checker guards these itself
        raise CheckerLimitError(
            f"{path}: the certificate checker would reject this model "
            f"({type(exc).__name__})"
        ) from None
    finally:
        sys.setrecursionlimit(limit)


def certificate_over_limits(text: str, events: int | None) -> str | None:
    """Why the checker would refuse this certificate for its size, or None."""
    lim = checker_limits()
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > lim.max_bytes:
        return (f"the certificate would take {size} bytes, more than the checker's limit "
                f"of {lim.max_bytes}")
    if events is not None and events > lim.max_events:
        return (f"the counterexample has {events} events, more than the checker's limit "
                f"of {lim.max_events}")
    return None
