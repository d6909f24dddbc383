"""One root exception; each rejection has a stable code (docs/certificates.md), never reused."""

from __future__ import annotations


class CheckerError(Exception):
    """Root of all checker errors. `status` decides the exit code, `code` is stable."""

    status = "unusable"
    code = "E-INPUT"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message, self.code = message, code or self.code


class JsonError(CheckerError):
    code = "E-JSON"


class LimitError(CheckerError):
    code = "E-LIMIT"


class SchemaError(CheckerError):
    code = "E-SCHEMA"


class ModelError(CheckerError):
    code = "E-MODEL"


class Invalid(CheckerError):
    """The certificate does not prove its verdict. Codes: E-HASH, E-NAME, E-REPLAY, ..."""

    status = "invalid"
    code = "E-INVALID"


def invalid(code: str, message: str) -> Invalid:
    return Invalid(message, code=code)


class Undecided(CheckerError):
    """The solver answered unknown or ran out of time, or a search limit was hit."""

    status = "undecided"
    code = "E-UNDECIDED"
