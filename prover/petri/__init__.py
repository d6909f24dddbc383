"""Petri nets: the interleaving net of a network system, slicing."""
