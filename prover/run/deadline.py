"""Hard deadlines and bounded memory: each model runs in a forked child process.

Nothing inside one model's run (parsing, compiling, the serial set, z3, cvc5, the
checker) has to cooperate with the deadline: the parent waits for the child's answer
until the deadline plus `GRACE_S`, then kills it (SIGKILL) and reports "undecided". The
child also gets an address-space limit (`MEMORY_LIMIT_BYTES`, RLIMIT_AS), so an input
that makes the prover allocate without end ends in MemoryError in the child, never in
the parent or the machine.

The child never writes files: it returns its result (pickled, through a pipe) and the
parent writes the certificate. Killing the child therefore can never leave a partial
file behind.

Signals: `interruptible()` turns SIGTERM into `Interrupted(143)` and SIGINT (Ctrl-C)
into `Interrupted(130)` in the parent; children ignore SIGINT (the terminal sends it to
the whole process group) and are killed by the parent on the way out.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import resource
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal, TypeVar

GRACE_S = 0.5
"""How long after its deadline a child may still deliver its answer before it is killed:
the child stops by itself at the deadline; this covers handing back the result."""

MEMORY_LIMIT_BYTES = 1800 * 1024 * 1024
"""Address-space limit of a model's child process: 1,800 MiB, so a run stays under 2 GB."""

_READ_CHUNK = 1 << 16

OutcomeKind = Literal["ok", "raised", "bug", "memory", "timeout", "died", "lost"]
"""("lost": a cluster's workers died while running it, prover/run/cluster.py.)"""


@dataclass(frozen=True)
class ChildOutcome:
    """What a child produced. `value`: the return value ("ok") or the exception
    ("raised": an exception the caller asked to pass through, e.g. an input error).
    `detail`: the traceback ("bug"), or why the child ended ("died", "timeout")."""

    kind: OutcomeKind
    value: Any = None
    detail: str = ""
    seconds: float = 0.0


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived; `exit_code` is 130 or 143 (128 + signal number)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by signal {signum}")
        self.signum = signum
        self.exit_code = 128 + signum


def process_age() -> float:
    """Seconds since this process started (Linux /proc; 0.0 where unknown)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime
    except (OSError, ValueError, IndexError):
        return 0.0
    return max(0.0, uptime - started)


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """SIGINT and SIGTERM raise `Interrupted` inside the block (main thread only)."""
    if not _is_main_thread():  # signal handlers can only be set there
        yield
        return
    old_int = signal.signal(signal.SIGINT, _raise_interrupted)
    old_term = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


def _is_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _child_setup(timeout_s: float, memory_bytes: int | None) -> None:
    """In the child: ignore Ctrl-C (the parent handles it), default SIGTERM, limits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    gc.callbacks.clear()  # a host's hooks (a Dask worker's) are not ours to run, nor to time out
    if memory_bytes is not None:
        with contextlib.suppress(ValueError, OSError):
            _, hard = resource.getrlimit(resource.RLIMIT_AS)
            soft = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    # A safety net if the parent itself is killed without reaping us: CPU time never
    # exceeds wall time, so this never fires before the parent's deadline would.
    with contextlib.suppress(ValueError, OSError):
        cpu = int(timeout_s + GRACE_S) + 2
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if hard == resource.RLIM_INFINITY or cpu < hard:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, hard))
    _die_with_parent()


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the parent dies (prctl PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG


@dataclass
class _Running:
    index: int
    pid: int
    fd: int
    start: float
    kill_at: float
    chunks: list[bytes]


E = TypeVar("E", bound=BaseException)


def detached(exc: E) -> E:
    """The error alone, without its traceback and chain: once `distributed` is imported,
    tblib pickles every exception with its chain, and a parser's exception in the chain
    holds closures (unpicklable) or, for a long program, a structure too deep to pickle."""
    exc.__traceback__ = None
    exc.__cause__ = None
    exc.__context__ = None
    return exc


def _spawn(
    fn: Callable[[], Any],
    passthrough: tuple[type[BaseException], ...],
    timeout_s: float,
    memory_bytes: int | None,
) -> tuple[int, int]:
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_fd)
            _child_setup(timeout_s, memory_bytes)
            try:
                payload: tuple[str, Any] = ("ok", fn())
            except passthrough as exc:
                payload = ("raised", detached(exc))
            except MemoryError:
                payload = ("memory", "")
            except Exception:
                payload = ("bug", traceback.format_exc())
            try:
                data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
            except MemoryError:
                data = pickle.dumps(("memory", ""))
            except Exception:
                data = pickle.dumps(("bug", traceback.format_exc()))
            view = memoryview(data)
            while view:
                n = os.write(write_fd, view[:_READ_CHUNK])
                view = view[n:]
        except BaseException:
            code = 70
        finally:
            os._exit(code)
    os.close(write_fd)
    return pid, read_fd


def _reap(pid: int, *, kill: bool) -> int:
    """Wait for the child; kill it first if asked. Returns the raw wait status."""
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            return status
        except ChildProcessError:
            return 0
        except InterruptedError:  # pragma: no cover (PEP 475 retries)
            continue


def _decode(chunks: list[bytes], status: int, seconds: float) -> ChildOutcome:
    data = b"".join(chunks)
    if not data:
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            why = "the CPU-time limit" if sig == signal.SIGXCPU else f"signal {sig}"
            return ChildOutcome("died", detail=f"the prover process was ended by {why}",
                                seconds=seconds)
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
        return ChildOutcome("died", detail=f"the prover process exited with status {code} "
                            "without an answer", seconds=seconds)
    try:
        kind, value = pickle.loads(data)
    except Exception as exc:  # pragma: no cover (a truncated answer: a bug)
        return ChildOutcome("bug", detail=f"unreadable answer from the child: {exc}",
                            seconds=seconds)
    if kind == "ok":
        return ChildOutcome("ok", value=value, seconds=seconds)
    if kind == "raised":
        return ChildOutcome("raised", value=value, seconds=seconds)
    if kind == "memory":
        return ChildOutcome("memory", detail="memory limit reached", seconds=seconds)
    return ChildOutcome("bug", detail=str(value), seconds=seconds)


def run_isolated_many(
    tasks: Sequence[Callable[[], Any]],
    *,
    timeout_s: float,
    jobs: int = 1,
    memory_bytes: int | None = MEMORY_LIMIT_BYTES,
    passthrough: tuple[type[BaseException], ...] = (),
    on_done: Callable[[int, ChildOutcome], None] | None = None,
    spent_s: float = 0.0,
) -> list[ChildOutcome]:
    """Run every task in its own forked child, at most `jobs` at a time, each with its own
    deadline of `timeout_s` seconds from its start (killed at `timeout_s + GRACE_S`).

    Results come back in task order. `on_done(i, outcome)` is called as each finishes.
    `spent_s` (e.g. `process_age()`: interpreter start-up and imports) is taken off the
    deadlines of the first `jobs` tasks, which started with the process.
    On `Interrupted` or any other exception in the parent, every child is killed and
    reaped before the exception propagates.
    """
    outcomes: list[ChildOutcome | None] = [None] * len(tasks)
    running: dict[int, _Running] = {}
    todo = list(range(len(tasks)))
    todo.reverse()
    limit = max(0.0, timeout_s)
    try:
        while todo or running:
            while todo and len(running) < max(1, jobs):
                i = todo.pop()
                own = max(0.0, limit - spent_s) if i < max(1, jobs) else limit
                start = time.monotonic()
                pid, fd = _spawn(tasks[i], passthrough, own, memory_bytes)
                running[fd] = _Running(i, pid, fd, start, start + own + GRACE_S, [])
            now = time.monotonic()
            wait = max(0.0, min(r.kill_at for r in running.values()) - now)
            ready, _, _ = select.select(list(running), [], [], min(wait, 1.0))
            for fd in ready:
                r = running[fd]
                chunk = os.read(fd, _READ_CHUNK)
                if chunk:
                    r.chunks.append(chunk)
                    continue
                del running[fd]
                os.close(fd)
                status = _reap(r.pid, kill=False)
                out = _decode(r.chunks, status, time.monotonic() - r.start)
                outcomes[r.index] = out
                if on_done is not None:
                    on_done(r.index, out)
            now = time.monotonic()
            for fd, r in list(running.items()):
                if now >= r.kill_at:
                    del running[fd]
                    os.close(fd)
                    _reap(r.pid, kill=True)
                    out = ChildOutcome("timeout", detail=f"time limit of {limit:g} s reached",
                                       seconds=now - r.start)
                    outcomes[r.index] = out
                    if on_done is not None:
                        on_done(r.index, out)
    finally:
        for r in running.values():
            with contextlib.suppress(OSError):
                os.close(r.fd)
            _reap(r.pid, kill=True)
    return [o if o is not None else ChildOutcome("died") for o in outcomes]


def run_isolated(
    fn: Callable[[], Any],
    *,
    timeout_s: float,
    memory_bytes: int | None = MEMORY_LIMIT_BYTES,
    passthrough: tuple[type[BaseException], ...] = (),
) -> ChildOutcome:
    """`fn()` in a forked child under a hard deadline and a memory limit."""
    return run_isolated_many(
        [fn], timeout_s=timeout_s, jobs=1, memory_bytes=memory_bytes, passthrough=passthrough
    )[0]
