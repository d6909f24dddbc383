"""One module per `ser-prove` command; see `prover/cli.py`."""
