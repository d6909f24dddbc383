"""Test suite. This file makes `tests/checker` import as `tests.checker`, so that it never
shadows the real `checker` package (pytest would otherwise put `tests/` first on sys.path)."""
