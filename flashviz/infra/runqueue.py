"""A process-wide line for slow runs that many sessions may ask for (the stepper's kernel trace).

Every Streamlit session of a classroom runs in one server process. A kernel trace in Triton's interpreter takes
a second or more and launches are serialised anyway (flashviz_kernels.LAUNCH_LOCK), so:

- one worker thread runs the requests in the order they came (FIFO);
- a request for a key that is already waiting or running joins it: one run, one result for all;
- a waiting session can ask for its place in the line (`position`) and show it;
- results are kept, least recently used first out, within a byte budget; a failure is handed to every session
  that waited for that run and then forgotten, so the next request runs again (a fault is never remembered).

No Streamlit here: the page polls `position` while it waits on the Future.
"""
from __future__ import annotations

import collections
import threading
from concurrent.futures import Future
from typing import Any, Callable, Hashable

from .cache import nbytes


class RunQueue:
    """Run fn(*key) once per key at a time, in arrival order, on one worker thread; share the result."""

    def __init__(self, fn: Callable[..., Any], *, max_bytes: int = 64 << 20, name: str = "flashviz-runqueue"):
        self._fn = fn
        self._max_bytes = max_bytes
        self._name = name
        self._lock = threading.Condition()
        self._line: collections.OrderedDict[Hashable, Future] = collections.OrderedDict()   # first = running
        self._done: collections.OrderedDict[Hashable, tuple[Any, int]] = collections.OrderedDict()
        self._held = 0
        self._worker: threading.Thread | None = None
        self.runs = 0                                   # how many times fn really ran (tests, reports)

    # ------------------------------------------------------------------ asking

    def submit(self, key: tuple) -> Future:
        """A Future for fn(*key): done at once if kept, else joined to the run waiting or running for key."""
        with self._lock:
            if key in self._done:
                self._done.move_to_end(key)
                fut: Future = Future()
                fut.set_result(self._done[key][0])
                return fut
            fut = self._line.get(key)
            if fut is None:
                fut = self._line[key] = Future()
                if self._worker is None or not self._worker.is_alive():
                    self._worker = threading.Thread(target=self._loop, name=self._name, daemon=True)
                    self._worker.start()
                self._lock.notify_all()
            return fut

    def position(self, key: tuple) -> int | None:
        """0 when key's run is running now, k when k runs are ahead of it, None when it is not in the line."""
        with self._lock:
            for i, k in enumerate(self._line):
                if k == key:
                    return i
        return None

    def kept(self, key: tuple) -> bool:
        with self._lock:
            return key in self._done

    @property
    def held_bytes(self) -> int:
        with self._lock:
            return self._held

    def __len__(self) -> int:
        """Runs waiting or running."""
        with self._lock:
            return len(self._line)

    # ------------------------------------------------------------------ the worker

    def _loop(self) -> None:
        while True:
            with self._lock:
                while not self._line:
                    self._lock.wait()
                key, fut = next(iter(self._line.items()))
            try:
                value = self._fn(*key)
            except BaseException as e:                  # handed to the waiters, then forgotten
                with self._lock:
                    self.runs += 1
                    self._line.pop(key, None)
                fut.set_exception(e)
                continue
            with self._lock:
                self.runs += 1
                self._line.pop(key, None)
                self._keep(key, value)
            fut.set_result(value)

    def _keep(self, key: Hashable, value: Any) -> None:
        size = nbytes(value)
        if size > self._max_bytes:
            return                                      # too big to keep: handed out once, not stored
        self._done[key] = (value, size)
        self._held += size
        while self._held > self._max_bytes:
            _, (_, s) = self._done.popitem(last=False)
            self._held -= s
