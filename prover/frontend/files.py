"""Reading an input file (a model, or a raw net to slice): regular files only, and at most
`MAX_MODEL_BYTES` (`MAX_NET_BYTES`), checked before anything is read (one of the limits
of prover/run/limits.py, kept here because the front end reads the files)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from prover.errors import InputFileError

MAX_MODEL_BYTES = 4 * 1024 * 1024
"""Largest model file read (4 MiB): far above any real model (the paper's largest is
under 4 KiB), and with JSON escaping still well inside the checker's 16 MiB certificate."""


MAX_NET_BYTES = 256 * 1024 * 1024
"""Largest raw net file read (256 MiB): the Model Checking Contest's largest PNML files
fit; a device or a runaway file does not."""


def read_model_bytes(path: str | Path, *, max_bytes: int = MAX_MODEL_BYTES,
                     kind: str = "model") -> bytes:
    """The bytes of a model file (or another `kind` of input file: "net"): regular files
    only, at most `max_bytes`.

    Opened non-blocking (a FIFO must not hang the open), then fstat: devices such as
    /dev/zero, FIFOs, sockets and directories are refused before anything is read; a file
    that grows while being read is cut off at `max_bytes` + 1 bytes and refused."""
    name = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise InputFileError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{name}: is a directory, not a {kind} file") from None
    except OSError as exc:
        raise InputFileError(f"{name}: cannot read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputFileError(f"{name}: is a directory, not a {kind} file")
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(
                f"{name}: not a regular file ({_file_kind(st.st_mode)}); {kind}s are read "
                "from regular files only"
            )
        if st.st_size > max_bytes:
            raise InputFileError(_too_large(name, kind, st.st_size, max_bytes))
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise InputFileError(_too_large(name, kind, total, max_bytes, at_least=True))
        return b"".join(chunks)
    except OSError as exc:
        raise InputFileError(f"{name}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _too_large(name: str, kind: str, size: int, limit: int, *, at_least: bool = False) -> str:
    what = f"more than {limit} bytes" if at_least else f"{size} bytes"
    return (f"{name}: the {kind} is {what}; the limit is {limit} bytes "
            f"({limit // (1024 * 1024)} MiB, prover.frontend.files.MAX_{kind.upper()}_BYTES)")


def _file_kind(mode: int) -> str:
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"
