"""A fork server: one long-lived process that holds every import and parser, and runs each
`ser-prove` command line it is handed in a fresh fork of itself.

The forked worker gets the client's standard streams (passed over the Unix socket), its
working directory and environment, and runs exactly what `ser-prove ARGS` runs locally:
the same per-model children with the same deadline and memory cap, so verdicts and
certificates are the same bytes. The server answers only its own user (SO_PEERCRED) on a
socket in a directory only that user can write. It stops by itself after `idle_s` without
work, and at the first request after its own code changed on disk, which the client then
runs locally.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import struct
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from prover.run.relay import code_identity, frame, private, read_frame, reply, socket_path

_STOP_GRACE_S = 2.0  # SIGTERM first (no partial certificate), SIGKILL after this
_MAX_REQUEST = 16 << 20
_PENDING_S = 2.0  # a connection's time to send its request, then its go-ahead


def watched_roots() -> tuple[Path, ...]:
    """The code a worker runs: the prover and checker packages and the schemas."""
    import checker
    import prover
    import schemas

    return tuple(Path(m.__file__).parent for m in (prover, checker, schemas) if m.__file__)


def fingerprint(roots: tuple[Path, ...]) -> tuple[tuple[str, int, int], ...]:
    out: list[tuple[str, int, int]] = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                st = os.stat(os.path.join(dirpath, name))
                out.append((os.path.join(dirpath, name), st.st_mtime_ns, st.st_size))
    return tuple(out)


def preload() -> None:
    """Everything a command would import or build, done once here instead of per run."""
    import importlib

    from prover.cli import COMMANDS, _parser_for
    from prover.run.warm import warm

    warm(batch=True)
    for name, (module, _) in COMMANDS.items():
        importlib.import_module(module)
        _parser_for(name)
    import checker.cli  # noqa: F401


@dataclass(frozen=True)
class RunRequest:
    """A client's command line and the process state it runs in."""

    argv: tuple[str, ...]
    cwd: str
    env: tuple[tuple[str, str], ...]
    started: float | None
    encoding: str
    errors: str

    @staticmethod
    def of(body: dict[str, object]) -> RunRequest:
        argv, cwd, env, started = body.get("argv"), body.get("cwd"), body.get("env"), \
            body.get("started")
        if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)
                and isinstance(cwd, str) and isinstance(env, dict)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
            raise ValueError("malformed request")
        return RunRequest(
            tuple(argv), cwd, tuple(sorted(env.items())),
            float(started) if isinstance(started, (int, float)) else None,
            str(body.get("encoding") or "utf-8"), str(body.get("errors") or "strict"),
        )


@dataclass
class _Run:
    conn: socket.socket
    stop_at: float | None = None  # when SIGKILL follows the SIGTERM of an abandoned run


@dataclass
class Server:
    path: str
    idle_s: float
    roots: tuple[Path, ...]
    listener: socket.socket
    known: tuple[tuple[str, int, int], ...]
    runs: dict[int, _Run] = field(default_factory=dict)
    pending: dict[socket.socket, _Pending] = field(default_factory=dict)
    served: int = 0
    started: float = field(default_factory=time.time)
    last_work: float = field(default_factory=time.monotonic)
    stopping: bool = False
    bound: os.stat_result = field(init=False)
    code: str = field(init=False)  # relay.code_identity(): whose requests it serves

    def __post_init__(self) -> None:
        self.bound = os.stat(self.path)
        self.code = code_identity()


def _recv_request(conn: socket.socket) -> tuple[dict[str, object], list[int]]:
    conn.settimeout(1.0)  # it is readable: what is left of the frame follows at once
    data, fds, _flags, _addr = socket.recv_fds(conn, 65536, 3)
    try:
        body = read_frame(conn, data, _MAX_REQUEST)
    except ValueError:
        for fd in fds:
            os.close(fd)
        raise
    conn.settimeout(None)
    return body, list(fds)


def _peer_is_us(conn: socket.socket) -> bool:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid == os.getuid()


def _worker(server: Server, conn: socket.socket, request: RunRequest, fds: list[int]) -> None:
    """In the forked worker: become the client's `ser-prove` and exit with its code."""
    code = 4
    try:
        os.setpgid(0, 0)  # the server stops a run by its process group (and its children)
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        server.listener.close()
        for run in server.runs.values():
            run.conn.close()
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request.cwd)
        os.environ.clear()
        os.environ.update(dict(request.env))
        enc, errors = request.encoding, request.errors
        sys.stdin = open(0, encoding=enc, errors=errors, closefd=False)
        sys.stdout = open(1, "w", encoding=enc, errors=errors, closefd=False,
                          buffering=1 if os.isatty(1) else -1)
        sys.stderr = open(2, "w", encoding=enc, errors="backslashreplace", closefd=False,
                          buffering=1)
        from prover.cli import main

        code = main(list(request.argv), started=request.started)
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - a worker must never return into the server loop
        try:
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


@dataclass
class _Pending:
    """A connection the server waits on without blocking: for its request, then for its
    client's go-ahead (after the server said it takes the run). Past `until`, dropped."""

    until: float
    run: RunRequest | None = None
    fds: list[int] = field(default_factory=list)


def _accept(server: Server, selector: selectors.BaseSelector) -> None:
    conn, _ = server.listener.accept()
    if not _peer_is_us(conn):
        conn.close()
        return
    server.pending[conn] = _Pending(time.monotonic() + _PENDING_S)
    selector.register(conn, selectors.EVENT_READ, conn)


def _drop(server: Server, selector: selectors.BaseSelector, conn: socket.socket) -> None:
    selector.unregister(conn)
    for fd in server.pending.pop(conn).fds:
        os.close(fd)
    conn.close()


def _expire(server: Server, selector: selectors.BaseSelector) -> None:
    """Connections that sent nothing in time hold nobody: they are closed."""
    now = time.monotonic()
    for conn in [c for c, p in server.pending.items() if p.until <= now]:
        _drop(server, selector, conn)


def _readable(server: Server, selector: selectors.BaseSelector, conn: socket.socket) -> None:
    pending = server.pending[conn]
    try:
        if pending.run is None:
            _request(server, selector, conn, pending)
            return
        go = conn.recv(1)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        print(f"ser-prove server: a request was dropped: {exc!r}", file=sys.stderr, flush=True)
        _drop(server, selector, conn)
        return
    if go != b"G":  # the client stopped waiting and runs it itself
        _drop(server, selector, conn)
        return
    selector.unregister(conn)
    del server.pending[conn]
    _fork(server, selector, conn, pending.run, pending.fds)


def _request(server: Server, selector: selectors.BaseSelector, conn: socket.socket,
             pending: _Pending) -> None:  # fmt: skip
    """The request has arrived: a control command is answered, a stale client told to run
    here, a run taken (A) and kept pending for the client's go-ahead."""
    request, pending.fds = _recv_request(conn)
    control = request.get("control")
    if control is not None:
        _control(server, conn, str(control))
        _drop(server, selector, conn)
        return
    run = RunRequest.of(request)
    if len(pending.fds) != 3:
        raise ValueError("a run needs the client's three standard streams")
    if request.get("code") != server.code or fingerprint(server.roots) != server.known:
        # another installation or version, or our code changed: run it there
        server.stopping = server.stopping or request.get("code") == server.code
        conn.sendall(reply(b"S", 0))
        _drop(server, selector, conn)
        return
    conn.sendall(reply(b"A", 0))
    pending.run, pending.until = run, time.monotonic() + _PENDING_S


def _fork(server: Server, selector: selectors.BaseSelector, conn: socket.socket,
          run: RunRequest, fds: list[int]) -> None:  # fmt: skip
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _worker(server, conn, run, fds)
        server.runs[pid] = _Run(conn)
        selector.register(conn, selectors.EVENT_READ, pid)
        server.served += 1
    except OSError as exc:
        print(f"ser-prove server: a request was dropped: {exc}", file=sys.stderr, flush=True)
        conn.close()
    finally:
        for fd in fds:
            os.close(fd)


def _control(server: Server, conn: socket.socket, control: str) -> None:
    if control == "stop":
        server.stopping = True
    status = {"up": True, "pid": os.getpid(), "socket": server.path,
              "served": server.served, "runs_in_progress": len(server.runs),
              "up_s": round(time.time() - server.started, 1), "idle_timeout_s": server.idle_s,
              "code": server.code}
    conn.sendall(frame(status))


def _abandoned(server: Server, pid: int) -> None:
    """The client went away (Ctrl-C, killed): stop its run as a signal would."""
    run = server.runs[pid]
    if run.stop_at is None:
        run.stop_at = time.monotonic() + _STOP_GRACE_S
        _signal_group(pid, signal.SIGTERM)


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(server: Server, selector: selectors.BaseSelector) -> None:
    for pid in list(server.runs):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            run = server.runs[pid]
            if run.stop_at is not None and time.monotonic() >= run.stop_at:
                _signal_group(pid, signal.SIGKILL)
            continue
        _signal_group(pid, signal.SIGKILL)  # what the worker left behind, if anything
        run = server.runs.pop(pid)
        selector.unregister(run.conn)
        try:
            code = os.waitstatus_to_exitcode(status)
            run.conn.sendall(reply(b"X", 128 - code if code < 0 else code))
        except OSError:
            pass
        run.conn.close()
        server.last_work = time.monotonic()


def _events(selector: selectors.BaseSelector, timeout: float) -> Iterator[object]:
    try:
        for key, _ in selector.select(timeout):
            yield key.data
    except InterruptedError:
        return


def serve(server: Server) -> None:
    """The server's loop, until stopped, idle for `idle_s`, or its code changed."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: setattr(server, "stopping", True))
    signal.signal(signal.SIGINT, lambda *_: setattr(server, "stopping", True))
    selector = selectors.DefaultSelector()
    selector.register(server.listener, selectors.EVENT_READ, "accept")
    selector.register(wake_r, selectors.EVENT_READ, "wake")
    try:
        while not (server.stopping and not server.runs):
            if server.stopping:
                for pid in list(server.runs):
                    _abandoned(server, pid)
            elif not server.runs and time.monotonic() - server.last_work > server.idle_s:
                break
            for what in _events(selector, 0.5 if server.runs or server.pending else 5.0):
                if what == "accept":
                    _accept(server, selector)
                elif what == "wake":
                    os.read(wake_r, 4096)
                elif isinstance(what, socket.socket) and what in server.pending:
                    _readable(server, selector, what)
                elif isinstance(what, int) and what in server.runs:
                    _abandoned(server, what)
            _expire(server, selector)
            _reap(server, selector)
    finally:
        _remove(server)


def _remove(server: Server) -> None:
    try:
        if os.path.samestat(os.stat(server.path), server.bound):  # not a newer server's
            os.unlink(server.path)
    except OSError:
        pass
    server.listener.close()


def _private_dir(path: str) -> str:
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if not private(directory):
        raise OSError(f"{directory} is not a directory only this user can write")
    return directory


def listen(path: str) -> socket.socket:
    """Bind the server's socket in a directory only we can write."""
    _private_dir(path)
    try:
        os.unlink(path)  # a socket nobody answers on (the caller checked)
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o077)
    try:
        listener.bind(path)
    finally:
        os.umask(old)
    listener.listen(64)
    return listener


def request_control(control: str, path: str | None = None) -> dict[str, object] | None:
    """Ask our server for its status (or to stop); None when none answers."""
    from prover.run.relay import connect, send_request

    sock = connect(path)
    if sock is None:
        return None
    with sock:
        try:
            sock.settimeout(5.0)
            send_request(sock, {"control": control}, [])
            return read_frame(sock)
        except (OSError, ValueError):
            return None


def start(idle_s: float, path: str | None = None) -> dict[str, object]:
    """Start a detached server (or find the running one) and return its status."""
    path = path or socket_path()
    running = request_control("status", path)
    if running is not None:
        return running
    ready_r, ready_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        _daemon(path, idle_s, ready_w)
    os.close(ready_w)
    with os.fdopen(ready_r, "rb") as ready:
        message = ready.read().decode(errors="replace")
    os.waitpid(pid, 0)
    if message != "ok":
        raise OSError(message or "the server did not start")
    status = request_control("status", path)
    if status is None:
        raise OSError("the server started but does not answer")
    return status


def _daemon(path: str, idle_s: float, ready_w: int) -> None:
    """In the first child: detach, preload, listen, say so, serve; never returns."""
    code = 0
    try:
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        os.chdir("/")
        try:
            directory = _private_dir(path)
        except OSError as exc:
            os.write(ready_w, str(exc).encode())
            raise
        null = os.open(os.devnull, os.O_RDWR)
        log = os.open(os.path.join(directory, "server.log"),
                      os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        for fd, target in ((null, 0), (null, 1), (log, 2)):
            os.dup2(fd, target)
        try:
            preload()
            roots = watched_roots()
            listener = listen(path)
        except Exception as exc:  # noqa: BLE001 - reported to the starting command
            os.write(ready_w, str(exc).encode() or b"start failed")
            raise
        server = Server(path, idle_s, roots, listener, fingerprint(roots))
        os.write(ready_w, b"ok")
        os.close(ready_w)
        serve(server)
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        os._exit(code)
