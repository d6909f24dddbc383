"""Temporal properties (LTL-X) of Ser programs: formulas and their exact meaning on
lassos (docs/ltl.md)."""
