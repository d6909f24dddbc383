"""A Ser file: core Ser as parsed, or written out by checker/sizes.py (imported only then)."""

from checker.model import Env, Expr, parse_source


def parse_program(text: str, constants: dict[str, int] | None = None
                  ) -> tuple[Env, list[tuple[str, Expr]]]:
    """The initial globals and (request, body) list of a file, its constants at `constants`."""
    kind, first, blocks = parse_source(text)
    if kind == "core" and not constants:
        return first, blocks
    from checker.sizes import expand  # a core program given constants: E-CONSTANTS there

    return expand(first if kind == "sizes" else [], blocks, constants or {})
