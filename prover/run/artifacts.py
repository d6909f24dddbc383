"""`ser-prove --artifacts DIR`: every intermediate stage of one run, for inspection.

Written into `DIR/<model stem>/` (created if missing). Only the files named below are
written or overwritten; nothing is ever deleted, so a user's own files in DIR survive
(the reference deletes and recreates its output folder).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prover.ns import NetworkSystem
from prover.petri import export
from prover.petri.build import build_interleaving_net
from prover.serial.automaton import build_serial_automaton

if TYPE_CHECKING:
    from prover.run.pipeline import ProveResult


def ns_to_json(ns: NetworkSystem) -> dict[str, Any]:
    """The NS in the NS JSON input format (schemas/network-system.schema.json)."""
    return {
        "initial_global": ns.initial_global,
        "requests": [[r.request, r.local] for r in ns.requests],
        "responses": [[r.local, r.response] for r in ns.responses],
        "transitions": [[t.from_local, t.from_global, t.to_local, t.to_global]
                        for t in ns.transitions],
    }


def _dump(data: Any) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_artifacts(model_path: str, result: ProveResult, root: str) -> list[Path]:
    """Write the stages of `model_path`'s run; returns the written files, sorted."""
    from prover.frontend.load import load_model
    from prover.petri.export_mcc import write_mcc
    from prover.serial.parikh import compute_serial_set, serial_set_to_json

    model = load_model(model_path)
    stem = Path(model_path).stem
    out = Path(root) / stem
    out.mkdir(parents=True, exist_ok=True)
    net = build_interleaving_net(model.ns)
    automaton = build_serial_automaton(model.ns)
    files = {
        "ns.json": _dump(ns_to_json(model.ns)),
        "petri.net": export.petri_to_tina(net, stem),
        "petri.pnml": export.petri_to_pnml(net, stem),
        "ns.dot": export.ns_to_dot(model.ns, stem),
        "petri.dot": export.petri_to_dot(net, stem),
        "serial.dot": export.serial_to_dot(automaton.reachable(), stem),
        "serial-set.json": _dump(serial_set_to_json(compute_serial_set(automaton))),
        "engine-log.json": _dump({
            "model": model_path,
            "verdict": result.status,
            "engine": result.engine,
            "reason": result.reason,
            "certificate": result.certificate_path,
            "checker": {"status": result.check_status, "message": result.check_message},
            "times_s": {k: round(v, 4) for k, v in result.times.items()},
            "stats": result.stats,
            "sizes": {"network_system": model.ns.sizes(), "petri_net": net.sizes()},
        }),
    }
    written = []
    for name, text in files.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    written += write_mcc(model, out / "target")
    return sorted(written)
