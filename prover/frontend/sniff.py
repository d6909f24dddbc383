"""Recognising a file that is not a model although it has a model's extension.

The common case: a certificate (`MODEL.cert.json`, written beside the model by default)
given back to `ser-prove` as a model, e.g. by a `*.json` glob. It would fail the NS schema
with a list of violations that hide the real cause; say what the file is instead.
"""

from __future__ import annotations

import json

from prover.errors import InputFileError

CERTIFICATE_FORMAT = "ser-certificate/1"


def reject_certificate(source: str, path: str) -> None:
    """Raise `InputFileError` if `source` (a `.json` model's text) is a certificate."""
    if '"format"' not in source:  # cheap: an NS file never has this key
        return
    try:
        data = json.loads(source)
    except ValueError:
        return  # not JSON at all: the NS reader reports where
    if isinstance(data, dict) and data.get("format") == CERTIFICATE_FORMAT:
        model = data.get("model")
        of = model.get("path") if isinstance(model, dict) else None
        what = f" (of {of})" if isinstance(of, str) else ""
        raise InputFileError(
            f"{path}: this is a certificate{what}, not a model; check it with "
            f"`ser-check-cert {path}`, or give the model file itself"
        )
