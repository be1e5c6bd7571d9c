"""Process-wide caches bounded by the bytes they hold, and handing out only read-only objects.

Every Streamlit session of a classroom runs in a thread of one server process, so a cache is shared by all of
them. Two rules follow, and this module is the one place that keeps them:

* Bounded by bytes, not entries. One engine result at N = 16, d = 4 is a few KiB; at N = 16384, d = 256 the
  stepper's trace alone holds ~100 MiB of arrays. A count of entries bounds neither the small nor the large
  case, so each cache has a byte budget; the least recently used entries go first. A value larger than its
  cache's whole budget is computed and returned but not kept.
* Read-only. What a cache hands out is the same object for every session, so the arrays inside it are made
  non-writeable on the way in (`freeze`): a consumer that tries to write into one gets a ValueError instead of
  silently changing every other student's page. A Plotly figure is kept as a FrozenFigure (`figure_memo`,
  `frozen_figure`): its JSON text, immutable, parsed into a new dict for each reader (st.plotly_chart); a
  caller that wants to restyle one asks it for a Figure of its own (`.figure()`).

    @memo("stepper.trace", 96 * MiB)
    def cached_trace(cfg: Config) -> Trace: ...

    cached_trace.cache.held_bytes        # what it holds now; held_bytes() sums every cache

Concurrent callers with the same key wait for one computation (a per-key lock) instead of repeating it;
different keys compute in parallel. A computation that raises is not cached.

One process, one budget: besides each cache's own, all caches together hold at most TOTAL_BUDGET bytes
(FLASHVIZ_CACHE_MIB, default 256 MiB): past it the least recently used entry of the fullest cache goes first.
After large evictions the C heap's free memory is handed back to the system (glibc malloc_trim), so a process
that once held a big configuration does not keep its pages for good (what tests/load/memory_curve.py measures).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import functools
import hashlib
import json
import os
import pickle
import sys
import threading
import time
from collections import OrderedDict
from types import MappingProxyType

import numpy as np

MiB = 1 << 20
TOTAL_BUDGET = int(float(os.environ.get("FLASHVIZ_CACHE_MIB", "256")) * MiB)   # every cache of the process
TRIM_AFTER = 16 * MiB           # evictions of this many bytes hand the heap's free pages back (malloc_trim)
_CACHES: dict[str, "ByteLRU"] = {}                     # by name: a page script re-run re-declares its caches
_CACHES_LOCK = threading.Lock()
_freed = {"bytes": 0, "at": 0.0}


# ----------------------------------------------------------------------------- sizes and freezing

def _children(obj):
    """The objects `obj` holds, for sizing and freezing: container items, dataclass fields, attributes."""
    if isinstance(obj, (dict, MappingProxyType)):
        return list(obj.keys()) + list(obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    d = getattr(obj, "__dict__", None)
    return list(d.values()) if isinstance(d, dict) else []


class Sealed:
    """A value that is read-only by construction and knows its own size (`sealed_nbytes`): nbytes() and freeze()
    take its word instead of walking it (a FrozenFigure)."""

    __slots__ = ()
    sealed_nbytes = 0


def nbytes(obj) -> int:
    """Bytes held by `obj`: numpy arrays by nbytes (a view counts its base once), torch tensors by their storage,
    pandas objects by memory_usage(deep=True), containers, dataclasses and plain objects by what they hold."""
    seen: set[int] = set()
    total, stack = 0, [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, np.ndarray):
            while isinstance(o.base, np.ndarray):
                o = o.base
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, np.ndarray):
            total += o.nbytes + (sum(map(nbytes, o.ravel())) if o.dtype == object else 0)
        elif isinstance(o, Sealed):
            total += o.sealed_nbytes
        elif type(o).__module__.startswith("torch") and hasattr(o, "untyped_storage"):
            total += o.untyped_storage().nbytes()
        elif type(o).__module__.startswith("pandas") and hasattr(o, "memory_usage"):
            usage = o.memory_usage(deep=True)
            total += int(usage.sum() if hasattr(usage, "sum") else usage)
        elif isinstance(o, (str, bytes, bytearray, int, float, complex, bool, type(None))):
            total += sys.getsizeof(o)
        else:
            total += sys.getsizeof(o)
            stack.extend(_children(o))
    return total


def freeze(obj):
    """Make every numpy array reachable from `obj` non-writeable (in place); returns `obj`."""
    seen: set[int] = set()
    stack = [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, (str, bytes, int, float, bool, type(None), Sealed)):
            continue
        seen.add(id(o))
        if isinstance(o, np.ndarray):
            o.flags.writeable = False
            if o.dtype == object:
                stack.extend(o.ravel())
        else:
            stack.extend(_children(o))
    return obj


# ----------------------------------------------------------------------------- the cache

class ByteLRU:
    """A thread-safe least-recently-used map from hashable keys to frozen values, within `budget` bytes."""

    def __init__(self, name: str, budget: int):
        if budget < 1:
            raise ValueError(f"cache {name!r}: the budget must be positive, got {budget}")
        self.name, self.budget = name, int(budget)
        self._lock = threading.Lock()
        self._items: OrderedDict = OrderedDict()        # key -> (value, bytes)
        self._computing: dict = {}                      # key -> lock held while one caller computes it
        self.held_bytes = 0
        self.hits = self.misses = self.evictions = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key) -> bool:
        return key in self._items

    def _lookup(self, key):
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
            self.hits += 1
        return item

    def get(self, key, compute):
        """The cached value for `key`, or compute() (once, however many callers ask at the same time)."""
        with self._lock:
            item = self._lookup(key)
            if item is not None:
                return item[0]
            key_lock = self._computing.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                item = self._lookup(key)                 # another caller computed it while we waited
            if item is not None:
                return item[0]
            try:
                value = freeze(compute())
                size = nbytes(value)
                with self._lock:
                    self.misses += 1
                    self._put(key, value, size)
            finally:
                with self._lock:
                    if self._computing.get(key) is key_lock:
                        del self._computing[key]
            _keep_total(self, key)
            return value

    def _put(self, key, value, size: int) -> None:
        if size > min(self.budget, TOTAL_BUDGET):        # would evict everything and still not fit
            return
        self._items[key] = (value, size)
        self.held_bytes += size
        while self.held_bytes > self.budget:
            self._evict_oldest()

    def _evict_oldest(self) -> int:
        """Drop the least recently used entry (the caller holds the lock); its size."""
        _, (_, old) = self._items.popitem(last=False)
        self.held_bytes -= old
        self.evictions += 1
        _freed["bytes"] += old
        return old

    def _evict_one(self, keep) -> bool:
        """Drop the least recently used entry other than `keep` (takes the lock); False when there is none."""
        with self._lock:
            for key in self._items:
                if key != keep:
                    _, old = self._items.pop(key)
                    self.held_bytes -= old
                    self.evictions += 1
                    _freed["bytes"] += old
                    return True
        return False

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.held_bytes = 0

    def stats(self) -> dict:
        with self._lock:
            return dict(name=self.name, entries=len(self._items), held_bytes=self.held_bytes, budget=self.budget,
                        hits=self.hits, misses=self.misses, evictions=self.evictions)


def _key(args: tuple, kwargs: dict):
    """Equal keys for equal arguments of equal types: the repr tells 16 from 16.0 and 1 from True, which compare
    (and hash) equal but are not the same input (16.0 must fail validation, not find 16's result)."""
    kw = tuple(sorted(kwargs.items()))
    return args, kw, repr((args, kw))


def fingerprint(*objs) -> str:
    """A digest of the objects' content (their pickle): a cache key for inputs that are not hashable, such as a
    recording's cells or an engine's result. Equal content, equal key; ~0.3 ms for a 50 KB recording."""
    return hashlib.blake2b(pickle.dumps(objs, protocol=5), digest_size=16).hexdigest()


def named(name: str, budget: int) -> ByteLRU:
    """The process's cache called `name`, made on first use. Streamlit executes a page file as a script on
    every run, so its module-level declarations run again: they must find the cache, not make a new one."""
    with _CACHES_LOCK:
        cache = _CACHES.get(name)
        if cache is None:
            cache = _CACHES[name] = ByteLRU(name, budget)
        return cache


def memo(name: str, budget: int):
    """Decorator: cache a function of hashable arguments in the ByteLRU `name` of `budget` bytes (`fn.cache`)."""
    def wrap(fn):
        cache = named(name, budget)

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            return cache.get(_key(args, kwargs), lambda: fn(*args, **kwargs))

        cached.cache = cache
        return cached
    return wrap


def figure_memo(name: str, budget: int):
    """Decorator for a Plotly figure builder: the figure is cached once per arguments as a FrozenFigure (its JSON
    text). `fn.frozen(*args)` is that shared figure, what a page hands st.plotly_chart; `fn(*args)` a new Figure
    of the caller's own, which it may restyle."""
    def wrap(fn):
        frozen = memo(name, budget)(lambda *args, **kwargs: frozen_figure(fn(*args, **kwargs)))

        @functools.wraps(fn)
        def fresh(*args, **kwargs):
            return frozen(*args, **kwargs).figure()

        fresh.frozen = frozen
        fresh.cache = frozen.cache
        return fresh
    return wrap


# ----------------------------------------------------------------------------- figures

@functools.lru_cache(maxsize=None)
def _frozen_figure_class():
    """FrozenFigure, defined on first use so that this module does not import Plotly."""
    from plotly.basedatatypes import BaseFigure

    class FrozenFigure(BaseFigure, Sealed):
        """A Plotly figure serialised once and shared by every session: its JSON text (immutable; a string holds
        no objects for the garbage collector to walk after every script run). st.plotly_chart takes it as a
        Figure (isinstance BaseFigure) and reads only to_dict(), which parses the text into a new dict of the
        caller's own (copy on read: ~0.1 ms for a 20 KB figure): a rerun that draws it neither validates nor
        deep-copies nor re-encodes typed arrays. figure() makes a new, mutable go.Figure from it (an export,
        presenter mode's larger text)."""

        def __init__(self, text: str):               # BaseFigure.__init__ is not run: nothing else is held
            self._text = text

        @property
        def sealed_nbytes(self) -> int:
            return sys.getsizeof(self._text)

        def to_dict(self) -> dict:
            return json.loads(self._text)

        to_plotly_json = to_dict

        def to_json(self, *args, **kwargs) -> str:
            return self._text

        def figure(self):
            import plotly.graph_objects as go
            return go.Figure(self.to_dict(), _validate=False)

        def __eq__(self, other) -> bool:
            return isinstance(other, FrozenFigure) and other._text == self._text

        __hash__ = None

        def __repr__(self) -> str:
            return f"FrozenFigure({len(self._text):,} characters of JSON)"

    return FrozenFigure


def frozen_figure(fig):                      # -> FrozenFigure (a class made on first use)
    """A FrozenFigure of a Plotly figure (or of a figure dict): its JSON as st.plotly_chart would make it (typed
    arrays, NaN as null), made once."""
    import plotly.io as pio
    return _frozen_figure_class()(pio.to_json(fig.to_dict() if hasattr(fig, "to_dict") else fig, validate=False))


def is_frozen_figure(obj) -> bool:
    return isinstance(obj, _frozen_figure_class())


def _keep_total(current: ByteLRU, keep) -> None:
    """All caches within TOTAL_BUDGET: evict from the fullest cache (never `keep` of `current`, just stored)."""
    while held_bytes() > TOTAL_BUDGET:
        for cache in sorted(caches(), key=lambda c: c.held_bytes, reverse=True):
            if cache._evict_one(keep if cache is current else object()):
                break
        else:
            break
    trim_heap()


_libc = None


def trim_heap(force: bool = False) -> bool:
    """Hand the C heap's free pages back to the system (glibc malloc_trim) once TRIM_AFTER bytes were evicted
    since the last time, at most every 2 s; True if it ran. A no-op where there is no glibc."""
    global _libc
    if not force and (_freed["bytes"] < TRIM_AFTER or time.monotonic() - _freed["at"] < 2.0):
        return False
    _freed.update(bytes=0, at=time.monotonic())
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _libc.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _libc = False
    if not _libc:
        return False
    import gc
    gc.collect()
    _libc.malloc_trim(0)
    return True


def caches() -> list[ByteLRU]:
    with _CACHES_LOCK:
        return list(_CACHES.values())


def held_bytes() -> int:
    """Bytes every cache of this module holds now."""
    return sum(c.held_bytes for c in caches())


def total_budget() -> int:
    return sum(c.budget for c in caches())


def clear_all() -> None:
    for c in caches():
        c.clear()
