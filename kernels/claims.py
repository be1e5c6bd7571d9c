"""What a dispatch row says its evidence file shows, as plain data (no I/O here).

Every row of kernels/forward_table.py, kernels/backward_table.py and kernels/gates.py names one or more claims; the
measurement room checks each against its file (flashviz.bench.evidence.check; tests/kernels/test_dispatch_evidence.py runs
them all, and `python -m flashviz.bench.report --benchmarks` prints each with the figures it read). A file is a path
under the repository's assets/; a selector is a dict of a record's fields (a str with "*" matches by fnmatch, a
tuple or list matches any of its values). Records are the file's timed entries (flashviz.bench.evidence.records
says what each file kind gives: name, n, d, causal, variant, ms, graph_ms, and the tune runs' schedule fields).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType


def _frozen(x) -> MappingProxyType:
    return MappingProxyType(dict(x or {}))


@dataclass(frozen=True)
class Faster:
    """In every cell (one (n, d, causal, variant) of the records matching `where`) the records matching `a` took
    less `metric` than the least of those matching `b`: a < within * b in each cell (and, when within > 1, less in
    geometric mean over the cells). geomean=True: only the geometric mean of a / b over the cells is below within."""
    file: str
    a: dict
    b: dict
    where: dict = field(default_factory=dict)
    metric: str = "ms"
    within: float = 1.0
    geomean: bool = False

    def __post_init__(self):
        for name in ("a", "b", "where"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))


@dataclass(frozen=True)
class Fastest:
    """`a` against every other record matching `among` (each a distinct candidate: its name and schedule fields): a
    < within * the candidate in every cell (geomean=True: in geometric mean over the cells, as the tune runs pick
    their winners); within > 1 reads "at most that much slower than the fastest"."""
    file: str
    a: dict
    among: dict
    where: dict = field(default_factory=dict)
    metric: str = "ms"
    within: float = 1.0
    geomean: bool = False

    def __post_init__(self):
        for name in ("a", "among", "where"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))


@dataclass(frozen=True)
class NotFaster:
    """In at least one cell the records matching `a` took at least as long as the least of those matching `b`:
    why a row keeps the other kernel."""
    file: str
    a: dict
    b: dict
    where: dict = field(default_factory=dict)
    metric: str = "ms"

    def __post_init__(self):
        for name in ("a", "b", "where"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))


@dataclass(frozen=True)
class Ran:
    """The recording was made with this triton on a GPU of this compute capability (its provenance), and every
    record matching `a` ran and, where the file checks results, was correct (a tune run's maxerr against its
    reference at most max_err)."""
    file: str
    a: dict
    where: dict = field(default_factory=dict)
    max_err: float = 0.05

    def __post_init__(self):
        for name in ("a", "where"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))


@dataclass(frozen=True)
class Suite:
    """A GPU-suite log summary (assets/verified/<gpu>-triton-<version>.json, written by `python -m
    tools.suite_summary`; schema: flashviz.bench.evidence.SUITE_FIELDS): the suite ran with this triton on a GPU of
    this compute capability. Without `files`: the whole run completed, passed at least one test and failed none.
    With `files` (test files as the run named them): each of those files ran every test it collected, passed at
    least one and failed none, whatever happened elsewhere in the run (an interrupted run, another path's
    failure). env: environment switches the run must have had set (the summary's "switches", e.g. the ws forward's
    FLASHVIZ_WS_HALF=1 forcing HALF into every launch)."""
    file: str
    files: tuple = ()
    env: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "env", _frozen(self.env))


CLAIMS = (Faster, Fastest, NotFaster, Ran, Suite)


def files(claims) -> list[str]:
    """The evidence files of a row's claims, in order, each once."""
    return list(dict.fromkeys(c.file for c in claims))
