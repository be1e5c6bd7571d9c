"""Provenance for the load and CPU measurements' JSON files (assets/load/): the project's own provenance fields
(flashviz.bench.provenance.collect: versions, git commit, date, command) plus this machine's cores and load."""
from __future__ import annotations

import os
import sys


def _command() -> str:
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    return " ".join(["python -m " + spec.name if spec else sys.argv[0], *sys.argv[1:]])


COMMAND = _command()            # read at import: a script's later AppTest runs replace sys.modules["__main__"]


def provenance(timer: str) -> dict:
    from flashviz.bench.provenance import collect
    p = collect("cpu", COMMAND, timer)
    p.update(cpus=os.cpu_count() or 0, loadavg_at_end=list(os.getloadavg()))
    return p
