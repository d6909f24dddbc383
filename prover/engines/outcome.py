"""What a proof engine hands back: the certificate's `proof` member and how it was found.

Its own module so that the portfolio and the engines it runs (sliced.py) both import it
without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prover.smt.invariant import Invariant


@dataclass(frozen=True)
class ProofOutcome:
    """`proof` is the certificate's `proof` member (JSON-ready, deterministic)."""

    proof: dict[str, Any]
    engine: str
    stats: dict[str, Any]
    # The invariant behind `proof`, so that it can be conjoined with the coverability
    # invariant of a restricted NS (`_finish`); None for outcomes built elsewhere.
    invariant: Invariant | None = field(default=None, compare=False)
