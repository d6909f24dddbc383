"""z3, loaded on its first use. A reduction proof whose invariant needs no query (the
paper's a1, a3, a7, e5: their invariant is `true` once the runs refute the candidates)
never touches z3, and loading it costs about as much as starting the interpreter.

Modules that may not need z3 write

    if TYPE_CHECKING:
        import z3
    else:
        from prover.smt.z3_on_use import z3

and use `z3.` as before: the first attribute read imports z3 and copies its names here,
so later reads are plain module lookups, as fast as z3's own."""

from __future__ import annotations

import importlib
import types
from typing import Any


class _OnUse(types.ModuleType):
    def __getattr__(self, name: str) -> Any:  # only for names not yet copied here
        real = importlib.import_module("z3")
        self.__dict__.update(real.__dict__)
        return getattr(real, name)


z3 = _OnUse("z3")
