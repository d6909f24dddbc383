"""The independent certificate checker. Never imports `prover`, never uses z3."""

__version__ = "0.1.0"
# Which distribution this `checker` package is: ser-prove trusts no other (the name is
# generic; PyPI has another `checker`), and refuses a verdict it would have to check.
__distribution__ = "ser-prove"
