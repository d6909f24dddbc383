"""A model's certificate as `ser-prove` makes it (every engine, its own check), and the
trusted checker's answer on a certificate: what the forgery tests start from and ask."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from checker.api import check_certificate
from prover.run.decide import decide

Json = Any


def proved(folder: Path, source: str, verdict: str = "serializable",
           defines: tuple[tuple[str, int], ...] = (), locking: bool = False) -> Json:
    """The certificate of `source` (written into `folder`), which must have `verdict`;
    `defines`: values of its constants (`-D`). Without the two-phase locking claim unless
    asked (`--no-locking`): these tests read the engines' proofs of lock-based programs."""
    (folder / "m.ser").write_text(source)
    got = decide(str(folder / "m.ser"), str(folder / "c.json"), timeout_s=60,
                 check_timeout_s=60, progress=None, use_proofs=True, defines=defines,
                 locking=locking)
    assert got.result.status == verdict, got.result.reason
    assert got.text is not None
    cert: Json = json.loads(got.text)
    return cert


def status(cert: Json) -> tuple[str, str | None]:
    r = check_certificate(cert, timeout_s=120)
    return r.status, r.code
