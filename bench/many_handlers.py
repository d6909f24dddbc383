"""Programs with many handlers, for the scaling of the counterexample search (issue 40).

Usage: .venv/bin/python bench/many_handlers.py FAMILY SIZE   (prints the program)

Each function returns the text of a Ser program; bench/bench_scaling.py and the tests
import them. Verdicts by construction:

- `independent_lost_updates(n)`: n handlers, each a lost update on its own global
  (read, yield, write back + 1, answer the value read). Not serializable: two instances
  of one handler can both answer 0. No two handlers share a global.
- `one_global(n)`: the same n handlers over one global X. Not serializable (two
  instances of any handler, or two different handlers, can both answer 0).
- `one_global_distinct(n)`: the same over one global, handler hI adding I + 1: no two
  handlers are twins, so all n interact (not serializable, as `one_global`).
- `cache_unlocked_get(keys)`: per key, a value V, a cache entry E with a valid flag F
  and a lock L; `incr` and `add` take the key's lock, read through the cache, yield,
  write the new value to V and E; `get` answers a valid entry, else reads V, yields and
  fills the entry *without the lock*. Not serializable, with 3 requests: get reads V,
  incr updates V and E, get's fill overwrites E with the stale value, and the next incr
  reads the stale entry (get 0, incr 1, incr 1). Every 2-request execution is serial.
  Keys share no global.
- `cache_locked(keys)`: the same cache whose `get` takes the key's lock. Serializable:
  every handler runs its accesses under the key's lock.

Values are kept modulo 4 in the cache families, so their globals stay bounded.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def independent_lost_updates(n: int) -> str:
    head = f"// {n} independent lost updates: handler hI reads XI, yields, writes it back + 1\n"
    return head + "".join(
        f"request h{i} {{ x := X{i}; yield; X{i} := x + 1; x }}\n" for i in range(n))


def one_global(n: int) -> str:
    head = f"// {n} lost-update handlers over one global X\n"
    return head + "".join(
        f"request h{i} {{ x := X; yield; X := x + 1; x }}\n" for i in range(n))


def one_global_distinct(n: int) -> str:
    head = f"// {n} lost-update handlers over one global X, handler hI adds I + 1\n"
    return head + "".join(
        f"request h{i} {{ x := X; yield; X := x + {i + 1}; x }}\n" for i in range(n))


def _acquire(k: int) -> str:
    return f"while (L{k} == 1) {{ yield }}; L{k} := 1;"


def _bump(name: str, k: int, by: int) -> str:
    return f"""request {name}{k} {{
  {_acquire(k)}
  if (F{k} == 1) {{ v := E{k} }} else {{ v := V{k} }}; yield;
  v := (v + {by}) % 4; V{k} := v; E{k} := v; F{k} := 1; L{k} := 0;
  v
}}
"""


def _cache(keys: int, get: Callable[[int], str], what: str) -> str:
    out = [f"// a cache over {keys} keys: {what}\n"]
    for k in range(keys):
        out += [get(k), _bump("incr", k, 1), _bump("add", k, 2)]
    return "".join(out)


def _unlocked_get(k: int) -> str:
    return f"""request get{k} {{
  if (F{k} == 1) {{ E{k} }} else {{ e := V{k}; yield; E{k} := e; F{k} := 1; e }}
}}
"""


def _locked_get(k: int) -> str:
    return f"""request get{k} {{
  {_acquire(k)}
  if (F{k} == 1) {{ r := E{k} }} else {{ r := V{k}; yield; E{k} := r; F{k} := 1 }};
  L{k} := 0;
  r
}}
"""


def cache_unlocked_get(keys: int) -> str:
    return _cache(keys, _unlocked_get, "get fills an entry without the key's lock")


def cache_locked(keys: int) -> str:
    return _cache(keys, _locked_get, "every handler takes the key's lock")


FAMILIES: dict[str, tuple[Callable[[int], str], str]] = {
    "independent_lost_updates": (independent_lost_updates, "not_serializable"),
    "one_global": (one_global, "not_serializable"),
    "one_global_distinct": (one_global_distinct, "not_serializable"),
    "cache_unlocked_get": (cache_unlocked_get, "not_serializable"),
    "cache_locked": (cache_locked, "serializable"),
}
"""Family name → (generator, verdict by construction)."""


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in FAMILIES or not argv[1].isdigit():
        print(f"usage: many_handlers.py {{{','.join(FAMILIES)}}} SIZE", file=sys.stderr)
        return 2
    sys.stdout.write(FAMILIES[argv[0]][0](int(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
