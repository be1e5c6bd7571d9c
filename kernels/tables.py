"""The row types of the dispatch tables (kernels/forward_table.py, kernels/backward_table.py) and the lookups the
kernels share. A row is data: what it covers, what it decides, one line of why, and the claims its evidence file
must show (kernels/claims.py). Rows without evidence say so in their why ("untuned", "not recorded")."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

ANY = None                             # a row's causal that applies to both


@dataclass(frozen=True)
class Route:
    """Which kernel a family runs for (variant, d in [d_lo, d_hi], causal, N in [n_lo, n_hi]); n_hi None: no bound."""
    variant: str
    d: tuple[int, int]
    causal: bool | None
    n: tuple[int, int | None]
    kernel: str
    why: str
    evidence: tuple = ()

    def covers(self, variant: str, d: int, causal: bool, n: int) -> bool:
        return (self.variant == variant and self.d[0] <= d <= self.d[1]
                and (self.causal is ANY or self.causal == bool(causal))
                and self.n[0] <= n and (self.n[1] is None or n <= self.n[1]))


@dataclass(frozen=True)
class Launch:
    """How `kernel` launches for (variant, d in [d_lo, d_hi], causal, and an optional key such as the element
    size): `fields` (a variant's row sets only what it changes)."""
    kernel: str
    variant: str
    d: tuple[int, int]
    causal: bool | None
    fields: Mapping
    why: str
    evidence: tuple = ()
    key: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))
        object.__setattr__(self, "key", MappingProxyType(dict(self.key)))

    def covers(self, kernel: str, variant: str, d: int, causal: bool, **key) -> bool:
        return (self.kernel == kernel and self.variant == variant and self.d[0] <= d <= self.d[1]
                and (self.causal is ANY or self.causal == bool(causal))
                and all(key.get(k) == v for k, v in self.key.items()))

    def but(self, **fields) -> "Launch":
        """This row with some fields changed (tests and tools try other launches so)."""
        return replace(self, fields={**self.fields, **fields})


def dims(d: int) -> tuple[int, int]:
    return (d, d)


def route(rows, variant: str, d: int, causal: bool, n: int) -> Route | None:
    """The first row covering the call, or None."""
    return next((r for r in rows if r.covers(variant, d, causal, n)), None)


def launch(rows, kernel: str, variant: str, d: int, causal: bool, **key) -> Launch | None:
    return next((r for r in rows if r.covers(kernel, variant, d, causal, **key)), None)


class Memo:
    """fn(*args) remembered while the tables it reads are the objects they were: `sources` is ((module, name), ...),
    and a module attribute rebound to another object (a test or tool patching a table) starts a fresh cache, so
    answers always follow the live tables. For the host side of a launch: each lookup scans rows, and a short call's
    enqueue is host-bound (tools/launch_overhead.py). fn's results are shared between callers: return immutable
    values (tuples, frozen rows, MappingProxyType) and copy what a caller may change. At most `size` argument
    tuples are kept (then the cache starts over)."""

    def __init__(self, fn, sources, size: int = 4096):
        self.fn, self.sources, self.size = fn, tuple(sources), size
        self._state = ((), {})                        # (the source objects, {args: result}), swapped whole

    def __call__(self, *args):
        now = tuple(getattr(m, n) for m, n in self.sources)
        src, cache = self._state
        if len(src) != len(now) or any(a is not b for a, b in zip(src, now)):
            cache = {}
            self._state = (now, cache)
        try:
            return cache[args]
        except KeyError:
            pass
        out = self.fn(*args)
        if len(cache) >= self.size:
            cache.clear()
        cache[args] = out
        return out

    def clear(self) -> None:
        self._state = ((), {})


class View(Mapping):
    """A read-only mapping computed from a table each time it is read (so it follows a patched table):
    keys() from `keys`, each value from `value(key)`."""

    def __init__(self, keys, value):
        self._keys, self._value = keys, value

    def __getitem__(self, key):
        if key not in self._keys():
            raise KeyError(key)
        return self._value(key)

    def __iter__(self):
        return iter(self._keys())

    def __len__(self):
        return len(self._keys())

    def __repr__(self):
        return repr(dict(self))
