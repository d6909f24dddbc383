"""ser-prove: decide serializability of network systems and Ser programs."""

__version__ = "0.1.0"
