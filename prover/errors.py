"""The prover's exception hierarchy.

Every error the prover raises on bad input derives from `SerError`, carries a stable
machine-readable `code` and, where it is known, a source location. The CLI turns
these into one clear message and exit code 2; anything else escaping is a bug.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    """A position in a model file (1-based line and column)."""

    path: str
    line: int
    column: int
    line_text: str = ""

    def render(self) -> str:
        """`path:line:col`, then the offending line with a caret under the column."""
        head = f"{self.path}:{self.line}:{self.column}"
        if not self.line_text:
            return head
        caret = " " * (self.column - 1) + "^"
        return f"{head}\n  {self.line_text}\n  {caret}"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """A warning: valid input that is likely not what the modeller meant (a request that
    can never answer, unreached code, a misspelt local). `code` is stable (W-...,
    docs/cli.md); `line` and `column` are 0 when the warning has no position."""

    code: str
    message: str
    path: str = ""
    line: int = 0
    column: int = 0

    def render(self) -> str:
        where = self.path if not self.line else f"{self.path}:{self.line}:{self.column}"
        return f"{where}: warning[{self.code}]: {self.message}" if where else \
            f"warning[{self.code}]: {self.message}"

    def json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "line": self.line,
                "column": self.column}


class SerError(Exception):
    """Root of all prover errors. `code` is stable and documented."""

    code = "E-SER"

    def __init__(self, message: str, location: SourceLocation | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __reduce__(self) -> tuple[object, ...]:
        # Errors cross the pipe from a model's child process (prover/run/deadline.py); the
        # default pickling would call `cls(message)` and drop the location.
        return (self.__class__, (self.message, self.location))

    def render(self) -> str:
        if self.location is None:
            return f"error[{self.code}]: {self.message}"
        return f"{self.location.render().splitlines()[0]}: error[{self.code}]: {self.message}" + (
            "\n" + "\n".join(self.location.render().splitlines()[1:])
            if self.location.line_text
            else ""
        )


class InputFileError(SerError):
    """The model file cannot be read, is empty, has an unknown extension, is not a
    regular file or is larger than prover.frontend.files.MAX_MODEL_BYTES."""

    code = "E-INPUT"


class SerSyntaxError(SerError):
    """Lexical or syntax error in a Ser program."""

    code = "E-SYNTAX"


class FormulaError(SerError):
    """A temporal formula that cannot be read, names what the program lacks, or uses X."""

    code = "E-FORMULA"


class CompileError(SerError):
    """The Ser program cannot be compiled to a network system."""

    code = "E-COMPILE"


class ExitReachedError(CompileError):
    """`exit` is reachable; the language leaves its meaning undefined, so we reject it."""

    code = "E-EXIT"


class IndexRangeError(ExitReachedError):
    """An index outside its array, where an execution reaches it (`A[e]`, e not in 0..K-1)."""

    code = "E-INDEX"


class AssertionFailedError(ExitReachedError):
    """`assert(e)` with `e` zero, where an execution reaches it."""

    code = "E-ASSERT"


class StateBoundError(CompileError):
    """Compilation produced more states than the configured bound."""

    code = "E-STATE-BOUND"


class IntegerRangeError(CompileError):
    """An integer literal or computed value leaves the signed 64-bit range."""

    code = "E-INT-RANGE"


class DivisionByZeroError(CompileError):
    """`/` or `%` by zero, in constant folding or at run time of the model."""

    code = "E-DIV-ZERO"


RUNTIME_FAULTS: tuple[type[CompileError], ...] = (
    DivisionByZeroError, IntegerRangeError, ExitReachedError, IndexRangeError)
"""Errors an execution runs into in a state it reaches (not the text's): which one wins
next to a counterexample is docs/cli.md's rule, "Errors next to a counterexample"."""


class NetworkSystemFormatError(SerError):
    """A network-system JSON file is malformed or violates its schema."""

    code = "E-NS-FORMAT"


class CheckerLimitError(SerError):
    """The model is beyond a limit of the certificate checker (prover/run/limits.py): no
    certificate for it could be checked, so it is refused before any engine runs."""

    code = "E-CHECKER-LIMIT"


class UsageError(SerError):
    """Bad command-line usage."""

    code = "E-USAGE"


class BudgetExceeded(SerError):
    """An engine ran out of its time or size budget (not an input error)."""

    code = "E-BUDGET"


class CertificateError(SerError):
    """A certificate could not be produced or written."""

    code = "E-CERT"


class FetchError(SerError):
    """`ser-prove benchmarks` could not get a benchmark model: the download or the local
    source failed, or a file is not the one pinned (its SHA-256 differs)."""

    code = "E-FETCH"
