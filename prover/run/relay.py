"""The `ser-prove` entry point: hand the command line to a running `ser-prove server` when
there is one of ours, else run it here.

A server already holds the imports (Python start-up, lark, jsonschema, z3 and the parsers
cost about 0.25 s before a small model's first step), so a small run costs what its work
costs. This module is read on every start: it imports only what a socket client needs,
and anything unexpected (no server, a stale one, a refused connection) falls back to a
local run, which is always what would have happened without a server.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import struct
import sys
import time
from collections.abc import Sequence

from prover.run.deadline import Interrupted, interruptible, process_age

ENV_OFF = "SER_PROVE_NO_SERVER"  # set (to anything but "" or "0"): never use a server
_HEADER = struct.Struct("!I")
_REPLY = struct.Struct("!ci")  # kind (b"A" taken, b"X" exit code, b"S" stale: run here)


def code_identity() -> str:
    """Which installation and code this is: its packages' folder, and a hash of every
    file's name, size and modification time in the prover, checker and schemas packages
    (siblings in the repository and in site-packages). A server serves only clients whose
    identity is its own; a second checkout, venv or version runs its own code here."""
    import hashlib

    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(here)
    digest = hashlib.sha256(top.encode())
    for package in ("prover", "checker", "schemas"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(top, package)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                st = os.stat(os.path.join(dirpath, name))
                digest.update(f"{dirpath}/{name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return f"{top}:{digest.hexdigest()}"


def server_dir() -> str:
    """Where the socket lives: the per-user runtime directory, else /tmp/ser-prove-UID."""
    base = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    name = "ser-prove" if os.environ.get("XDG_RUNTIME_DIR") else f"ser-prove-{os.getuid()}"
    return os.path.join(base, name)


def socket_path() -> str:
    return os.path.join(server_dir(), "server.sock")


def private(path: str) -> bool:
    """Whether `path` is ours and nobody else's to write: the server answers for us, so a
    socket another user could have put there must never be believed."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return st.st_uid == os.getuid() and not st.st_mode & 0o022 and (
        stat.S_ISDIR(st.st_mode) or stat.S_ISSOCK(st.st_mode))


ACK_S = 2.0  # how long a client waits for the server to take its run


def connect(path: str | None = None) -> socket.socket | None:
    """A connection to our server, or None when there is none we may trust."""
    path = path or socket_path()
    if not (private(os.path.dirname(path)) and private(path)):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(ACK_S)  # a server whose backlog is full does not hold us
    try:
        sock.connect(path)
        sock.settimeout(None)
    except OSError:
        sock.close()
        return None
    return sock


def frame(message: dict[str, object]) -> bytes:
    """A JSON object as the server and its clients send it: length, then the text."""
    body = json.dumps(message).encode()
    return _HEADER.pack(len(body)) + body


def read_frame(sock: socket.socket, data: bytes = b"",
               limit: int = 16 << 20) -> dict[str, object]:
    """One framed JSON object from `sock` (`data`: what was already read of it);
    ValueError when it is cut short, larger than `limit` or not an object."""
    while len(data) < _HEADER.size or len(data) < _HEADER.size + _HEADER.unpack(
            data[:_HEADER.size])[0]:
        if len(data) > limit:
            raise ValueError("message too large")
        chunk = sock.recv(65536)
        if not chunk:
            raise ValueError("message cut short")
        data += chunk
    body = json.loads(data[_HEADER.size:].decode())
    if not isinstance(body, dict):
        raise ValueError("message is not an object")
    return body


def send_request(sock: socket.socket, request: dict[str, object], fds: Sequence[int]) -> None:
    data = frame(request)
    sent = socket.send_fds(sock, [data[:4096]], list(fds))
    if sent < len(data):
        sock.sendall(data[sent:])


def read_reply(sock: socket.socket) -> tuple[bytes, int] | None:
    data = b""
    while len(data) < _REPLY.size:
        chunk = sock.recv(_REPLY.size - len(data))
        if not chunk:
            return None
        data += chunk
    kind, value = _REPLY.unpack(data)
    return kind, value


def reply(kind: bytes, value: int) -> bytes:
    return _REPLY.pack(kind, value)


def relayed(argv: list[str], started: float) -> int | None:
    """The exit code of `argv` run by our server, or None to run it here."""
    if os.environ.get(ENV_OFF, "") not in ("", "0") or argv[:1] == ["server"]:
        return None
    sock = connect()
    if sock is None:
        return None
    with sock:
        try:
            send_request(sock, {
                "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "started": started,
                "encoding": sys.stdout.encoding, "errors": sys.stdout.errors,
                "code": code_identity(),
            }, [0, 1, 2])
            # The server answers at once that it took the run (A), or to run it here (S);
            # past ACK_S we run it here, and the worker it may fork later, never told to
            # go (G), exits without running it.
            sock.settimeout(ACK_S)
            first = read_reply(sock)
            if first is None or first[0] != b"A":
                return None
            sock.sendall(b"G")
            sock.settimeout(None)
        except OSError:
            return None
        try:  # as the local run does, even when started with SIGINT ignored (`cmd &`)
            with interruptible():
                answer = read_reply(sock)
        except Interrupted as exc:  # closing the socket makes the server stop the run
            print("ser-prove: interrupted", file=sys.stderr)
            return exc.exit_code
    if answer is None or answer[0] != b"X":  # gone, or serving other code: run here
        return None
    return answer[1]


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point. The interpreter's start-up counts against the first model's
    deadline, here or on the server (called with arguments, as tests do, it does not)."""
    if argv is not None:
        from prover.cli import main as local_main

        return local_main(argv)
    started = time.monotonic() - process_age()
    code = relayed(sys.argv[1:], started)
    if code is not None:
        return code
    from prover.cli import main as local_main

    return local_main(None, started=started)


if __name__ == "__main__":
    raise SystemExit(main())
