"""`ser-prove export MODEL --what pdnet --requests K --format net|pnml`: the PDNet as a
safe P/T net that reads back (prover/petri/read.py) with the PDNet's own markings."""

from __future__ import annotations

from pathlib import Path

import pytest

from prover.cli import main
from prover.frontend.load import load_model
from prover.ltl.pdnet import PDNet
from prover.petri.dynamic_slice import PTNet
from prover.petri.read import read_net_file
from tests.ltl.test_unfold import pdnet_markings

ROOT = Path(__file__).resolve().parents[2]


def _markings(net: PTNet) -> int:
    start = net.initial
    seen, todo = {start}, [start]
    while todo:
        m = todo.pop()
        assert max(m) <= 1, "not safe"
        for pre, post in zip(net.pre, net.post, strict=True):
            if all(m[p] >= w for p, w in pre):
                nxt = list(m)
                for p, w in pre:
                    nxt[p] -= w
                for p, w in post:
                    nxt[p] += w
                key = tuple(nxt)
                if key not in seen:
                    seen.add(key)
                    todo.append(key)
    return len(seen)


@pytest.mark.parametrize("fmt", ["net", "pnml"])
@pytest.mark.parametrize("name", ["intro-lock.ser", "bank-overdraft.ser", "semaphore-try.ser"])
def test_the_exported_pdnet_has_the_pdnets_markings(tmp_path: Path, fmt: str,
                                                    name: str) -> None:
    out = tmp_path / f"m.{fmt}"
    model = ROOT / "examples" / name
    assert main(["export", str(model), "--what", "pdnet", "--requests", "2", "--format", fmt,
                 "-o", str(out)]) == 0
    read = read_net_file(out)
    assert _markings(read) == len(pdnet_markings(PDNet(load_model(model).ns, 2)))


@pytest.mark.parametrize("args", [["--what", "pdnet", "--format", "net"],
                                  ["--what", "pdnet", "--requests", "2", "--format", "dot"],
                                  ["--what", "pdnet", "--requests", "0", "--format", "net"]])
def test_what_the_export_refuses(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(ROOT / "examples" / "intro-lock.ser"), *args]) == 2
    assert "pdnet" in capsys.readouterr().err
