"""JSON Schemas of the project's file formats, installed as package data.

Read them with `importlib.resources.files("schemas") / NAME` so that they are found in
an installed wheel as well as in a source checkout:

* `certificate.schema.json`: the certificate format (`ser-certificate/1`), read by the
  checker;
* `network-system.schema.json`: the NS JSON input format, read by the prover;
* `prove-result.schema.json`: one line of `ser-prove --json` (JSON Lines);
* `simulate-run.schema.json`: one line of `ser-prove simulate --json` (one run).

This package holds data only: no code of the prover or the checker lives here.
"""

__distribution__ = "ser-prove"  # see checker/__init__.py: another `schemas` exists on PyPI
