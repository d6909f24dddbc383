"""The independent certificate checker. Never imports `prover`, never uses z3."""

__version__ = "0.1.0"
