"""The serial side: serial automaton, its Parikh image S, membership."""
