"""The net's sizes, counted without building it (the pipeline reports them so, and builds
the net only for the engines that read it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prover.errors import StateBoundError
from prover.frontend.load import load_model
from prover.petri.build import build_interleaving_net, interleaving_net_sizes

ROOT = Path(__file__).resolve().parents[2]
MODELS = sorted(p for p in (ROOT / "examples").iterdir()
                if p.suffix in (".ser", ".json") and not p.name.endswith(".cert.json")
                and p.name != "expected.json")
# Its closure pairs the release `S := S + 1` with every value of S seen, S = 2 included,
# and grows S without end (the example says so itself); bank-array's pairs a credit with
# balances no reachable state has, and grows them without end too.
NO_FINITE_CLOSURE = {"semaphore-plain.ser", "bank-array.ser"}


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
@pytest.mark.parametrize("ns", ["reachable", "closure"])
def test_counted_sizes_are_the_built_nets(path: Path, ns: str) -> None:
    if ns == "closure" and path.name in NO_FINITE_CLOSURE:
        with pytest.raises(StateBoundError):
            load_model(path, ns="closure")
        return
    model = load_model(path, ns="closure" if ns == "closure" else "reachable")
    assert interleaving_net_sizes(model.ns) == build_interleaving_net(model.ns).sizes()
