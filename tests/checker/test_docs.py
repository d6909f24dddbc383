"""The complete examples of docs/certificates.md are valid certificates."""

from __future__ import annotations

import hashlib
import json
import re

from checker.api import check_certificate
from tests.checker.helpers import ROOT


def test_doc_examples_are_valid() -> None:
    text = (ROOT / "docs" / "certificates.md").read_text()
    blocks = [b for b in re.findall(r"```json\n(.*?)```", text, re.S) if '"format"' in b]
    examples = [json.loads(b) for b in blocks if "<sha256 of source>" in b]
    assert len(examples) == 2
    for cert in examples:
        cert["model"]["sha256"] = hashlib.sha256(cert["model"]["source"].encode()).hexdigest()
        r = check_certificate(cert)
        assert r.status == "valid", r.message
    assert {c["verdict"] for c in examples} == {"serializable", "not_serializable"}
