"""ws.status()'s schedule lines: which ws launches run PERSISTENT, with how many consumer warpgroups, and which
run OVERLAP by default here, each saying whether the forward table (CONFIGS) or an environment switch decided it.
The bench records them in every dataset's provenance (flashviz/bench/provenance.py ws_fields)."""
from __future__ import annotations

import os

from . import forward_table, ws
from .errors import KernelInputError


def schedule_lines() -> dict:
    """{"persistent": ..., "consumers": ..., "overlap": ...} for ws.status()."""
    return dict(persistent=_persistent_status(), consumers=_consumers_status(), overlap=_overlap_status())


def switch_line(env: str, describe) -> str:
    """One status line: describe() (the launches a switch applies to by default) and whether env decided it."""
    try:
        text = describe()
    except KernelInputError as e:
        return str(e)
    return f"{text} ({f'{env}={os.environ[env]}' if os.environ.get(env) else 'CONFIGS'})"


def _band_dims() -> list[int]:
    return sorted({r.d[0] for r in forward_table.WS_LAUNCHES if r.variant == "window"})


def _consumers_status() -> str:
    """Consumer warpgroups per (d, causal) launch that does not pass block_m (and per causal window)."""
    return switch_line(ws.CONSUMERS_ENV, lambda: ", ".join(
        [f"d={d} causal={c}: {ws.consumers_default(d, c)}" for d, c in sorted(ws.CONFIGS)]
        + [f"d={d} window: {ws.consumers_default(d, True, window=True)}" for d in _band_dims()]))


def _overlap_status() -> str:
    """Which (d, causal) launches run OVERLAP by default here (and the ALiBi launches that do not)."""
    def describe():
        on = [f"d={d} causal={c}" for d, c in sorted(ws.CONFIGS) if ws.overlap_default(d, c)]
        alibi = sorted({r.d[0] for r in forward_table.WS_LAUNCHES if r.variant == "alibi"})
        off = [f"d={d} ALiBi" for d in alibi
               if ws.overlap_default(d, True) and not ws.overlap_default(d, True, alibi=True)]
        text = "every (d, causal)" if len(on) == len(ws.CONFIGS) else ", ".join(on) or "none"
        return f"{text}{' but ' + ', '.join(off) if off else ''}"
    return switch_line(ws.OVERLAP_ENV, describe)


def _persistent_status() -> str:
    """Which (d, causal) launches (and causal windows) run PERSISTENT by default here."""
    return switch_line(ws.PERSISTENT_ENV, lambda: ", ".join(
        [f"d={d} causal={c}" for d, c in sorted(ws.CONFIGS) if ws.persistent_default(d, c)]
        + [f"d={d} window" for d in _band_dims() if ws.persistent_default(d, True, window=True)]) or "none")
