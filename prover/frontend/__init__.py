"""Front end: Ser parser and compiler, NS JSON loader. Public API: `prover.frontend.load`."""
