"""One task per model on a Dask distributed cluster (`--scheduler ADDRESS`, docs/cluster.md).

Imported only when a scheduler is given: without one nothing here runs and Dask is never
imported. The optional dependency is the `cluster` extra (`pip install 'ser-prove[cluster]'`).

A task is the very callable a local run forks: on its worker it runs in its own forked
child (prover/run/deadline.py) under the same deadline and memory cap, and only the child's
outcome travels back. The client settles each outcome as it arrives (writing certificates
atomically, on the client's disk), in the order the models finish, as a local run does.

A worker that dies takes its task with it: the scheduler then reruns the task on another
worker up to its `distributed.scheduler.allowed-failures` (docs/cluster.md sets 1, so: one
retry); after that the model alone is reported lost, every other model is unaffected.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from prover.errors import UsageError
from prover.run.deadline import ChildOutcome, run_isolated

CONNECT_TIMEOUT_S = 20.0
"""How long the client waits for the scheduler to answer before the run is refused."""


def client_for(address: str) -> Any:
    """A connected `distributed.Client`, or a UsageError that says what is missing."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--scheduler needs Dask: pip install 'ser-prove[cluster]' "
                         "(dask and distributed)") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def on_worker(task: Callable[[], Any], timeout_s: float, memory_bytes: int | None,
              passthrough: tuple[type[BaseException], ...]) -> ChildOutcome:
    """Runs on a worker: the task in its own child, as a local run would."""
    from prover.run.warm import warm

    warm(batch=True)  # once per worker process: later forks inherit the imports
    return run_isolated(task, timeout_s=timeout_s, memory_bytes=memory_bytes,
                        passthrough=passthrough)


def completed(address: str, calls: Sequence[tuple[Callable[..., Any], tuple[Any, ...]]],
              prefix: str) -> Iterator[tuple[int, Any, str | None]]:
    """Each `fn(*args)` of `calls` as one Dask task; (index, result, None) as each
    completes, or (index, None, why) for that task alone when its workers died (after the
    scheduler's retries) or it could not run at all (e.g. its code does not import there)."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    client = client_for(address)
    run_id = uuid.uuid4().hex[:12]
    try:
        futures = {client.submit(fn, *args, key=f"{prefix}-{run_id}-{i}", pure=False): i
                   for i, (fn, args) in enumerate(calls)}
        for fut in as_completed(futures, loop=client.loop):
            try:
                yield futures[fut], fut.result(), None
            except KilledWorker:
                yield futures[fut], None, LOST
            except Exception as exc:
                yield futures[fut], None, f"Dask task failed: {type(exc).__name__}: {exc}"
    finally:
        client.close()


LOST = "the Dask workers running it died (it was retried on another worker)"


def run_on_cluster(
    tasks: Sequence[Callable[[], Any]],
    *,
    address: str,
    timeout_s: float,
    memory_bytes: int | None,
    passthrough: tuple[type[BaseException], ...] = (),
    on_done: Callable[[int, ChildOutcome], None] | None = None,
) -> list[ChildOutcome]:
    """Every task as one Dask task; `on_done(i, outcome)` as each completes."""
    outcomes: list[ChildOutcome | None] = [None] * len(tasks)
    bar = _Bar(len(tasks))
    calls = [(on_worker, (task, timeout_s, memory_bytes, passthrough)) for task in tasks]
    try:
        for i, got, why in completed(address, calls, "ser-prove"):
            out = got if why is None else ChildOutcome("lost" if why == LOST else "bug",
                                                       detail=why)
            outcomes[i] = out
            bar.tick()
            if on_done is not None:
                on_done(i, out)
    finally:
        bar.close()
    return [o if o is not None else ChildOutcome("lost") for o in outcomes]


class _Bar:
    """`[done/total] seconds` on stderr, only when stderr is a terminal."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.enabled = sys.stderr.isatty()

    def tick(self) -> None:
        self.done += 1
        if self.enabled:
            print(f"\r[{self.done}/{self.total}] {time.monotonic() - self.start:6.1f} s "
                  "(cluster)", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled and self.done:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
