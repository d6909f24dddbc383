"""What every command that writes a file promises: it never replaces an input of the run
(a model, a net), never writes through a directory, a device or a FIFO, and writes
atomically (a temporary file in the same folder, then a rename), so a file is either
untouched or complete. A refusal is a usage error naming the file (exit 2)."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence

from prover.errors import CertificateError, UsageError

__all__ = ["check_destination", "check_folder", "write_atomically"]


def _same(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def check_destination(dest: str, inputs: Sequence[str], what: str = "certificate") -> None:
    """Refuse a destination that would destroy something: one of the inputs, a directory,
    or any existing non-regular file (a device such as /dev/full, a FIFO): the atomic
    rename would replace the node itself."""
    for m in inputs:
        if _same(m, dest):
            raise UsageError(f"refusing to write the {what} over the model {m}")
    try:
        st = os.stat(dest)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"cannot use {dest} as {what}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{dest} is a directory; give a file name for the {what}")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"refusing to replace {dest}: it exists and is not a regular file")
    if what == "certificate" and not _replaceable(dest):
        raise UsageError(f"refusing to replace {dest}: it exists and is not a certificate (a "
                         "model of another run, a file of yours?); remove it or give another "
                         "path")


def _replaceable(path: str) -> bool:
    """An earlier certificate, or an empty file: `ser-prove dcl.ser -o cas2.ser` once
    replaced the model cas2.ser with a certificate."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return False
    return not head.strip() or b'"ser-certificate/' in head


def check_folder(dest: str, inputs: Sequence[str], what: str = "certificates") -> None:
    """A folder to write files into: not an input, and a directory if it exists."""
    for m in inputs:
        if _same(m, dest):
            raise UsageError(f"refusing to use the model {m} as the folder for the {what}")
    if os.path.lexists(dest) and not os.path.isdir(dest):
        raise UsageError(f"{dest} exists and is not a folder; give a folder for the {what}")


def write_atomically(text: str, dest: str, what: str = "certificate") -> None:
    """Write `text` to `dest` through a fresh temporary file in the same folder and a
    rename: `dest` is either untouched or complete, also when a signal arrives here."""
    folder = os.path.dirname(os.path.abspath(dest))
    base = os.path.basename(dest)
    tmp = ""
    try:
        for n in range(100):
            tmp = os.path.join(folder, f".{base}.tmp{os.getpid()}-{n}")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                break
            except FileExistsError:
                continue
        else:
            raise CertificateError(f"cannot write {what} {dest}: no temporary name free")
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, dest)
        tmp = ""
    except OSError as exc:
        raise CertificateError(f"cannot write {what} {dest}: {exc.strerror or exc}") from None
    finally:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
