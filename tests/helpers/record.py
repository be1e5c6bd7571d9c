"""Provenance for the load and CPU measurements' JSON files (assets/load/): the project's own provenance fields
(flashviz.bench.provenance.collect: versions, git commit, date, command) plus this machine's cores and load."""
from __future__ import annotations

import os
import sys


def provenance(timer: str) -> dict:
    from flashviz.bench.provenance import collect
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    command = " ".join(["python -m " + spec.name if spec else sys.argv[0], *sys.argv[1:]])
    p = collect("cpu", command, timer)
    p.update(cpus=os.cpu_count() or 0, loadavg_at_end=list(os.getloadavg()))
    return p
