"""Proton intra-kernel chrome traces -> what the "Inside the kernel" page shows. Pure functions, no torch, no GPU.

A trace (`proton.start(..., data="trace", backend="instrumentation")`, warp granularity) is JSON:
    {"traceEvents": [{"ph": "X", "name": <scope>, "pid": "<kernel> Core<sm> CTA<id>", "tid": "warp <k> (line 0)",
                      "ts": <µs>, "dur": <µs>, "args": {"Frequency (MHz)": 1000.0, ...}}, ...]}
Proton measures a scope in the SM's clock cycles and writes ts/dur as if the clock ran at "Frequency (MHz)"
(1000: one cycle = 1 ns), so cycles = dur * frequency exactly; only the CTA's start is placed on a global ns
clock. So here every time is in cycles, relative to the CTA's first recorded event; converting to seconds needs
the SM clock of the run (the measurement records it). When a CTA's buffer fills, proton keeps the latest events
(a circular buffer): comparing the count with what the loop's trip count predicts says whether any were dropped.

summarize(trace, tiles=...) -> one dict per (configuration, implementation) for the dataset
(flashviz/bench/timeline_dataset.py describes the fields).
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

PID_RE = re.compile(r"^(?P<kernel>.+) Core(?P<core>\d+) CTA(?P<cta>\d+)$")
TID_RE = re.compile(r"^warp (?P<warp>\d+)(?: \(line \d+\))?$")
PRODUCER_PREFIXES = ("tma", "producer")      # a warp whose every scope starts so is the producer (warp specialised)
WARPGROUP = 4                                # warps per Hopper warpgroup
REPRESENTATIVE = "median"                    # which CTA's events are kept: the median CTA span (lower median)


class TraceError(ValueError):
    """The trace is not a proton intra-kernel trace this parser understands (the message says why)."""


@dataclass(frozen=True)
class Event:
    cta: int
    core: int
    warp: int
    scope: str
    start: int          # cycles on the CTA's own clock (only differences within one CTA mean anything)
    dur: int            # cycles


def _cycles(x, freq: float, where: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or x != x or x < 0 or x > 1e12:
        raise TraceError(f"{where} must be a non-negative number, got {x!r}")
    return int(round(x * freq))


def read_events(trace, kernel: str | None = None) -> tuple[str, list[Event]]:
    """(kernel name, events) of one kernel's complete ("X") events; `kernel` picks one when several are there."""
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise TraceError("a chrome trace is an object with a 'traceEvents' list")
    found: dict[str, list[Event]] = {}
    for i, e in enumerate(trace["traceEvents"]):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        pid, tid, name = e.get("pid"), e.get("tid"), e.get("name")
        mp = PID_RE.match(pid) if isinstance(pid, str) else None
        mt = TID_RE.match(tid) if isinstance(tid, str) else None
        if not mp or not mt:
            raise TraceError(f"traceEvents[{i}]: pid {str(pid)[:60]!r} / tid {str(tid)[:40]!r} is not "
                             "'<kernel> Core<n> CTA<n>' / 'warp <n>' (warp granularity)")
        if not isinstance(name, str) or not name:
            raise TraceError(f"traceEvents[{i}]: the scope name is missing")
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        freq = args.get("Frequency (MHz)", 1000.0)
        if isinstance(freq, bool) or not isinstance(freq, (int, float)) or not 0 < freq < 1e5:
            raise TraceError(f"traceEvents[{i}]: 'Frequency (MHz)' must be a positive number")
        ev = Event(int(mp["cta"]), int(mp["core"]), int(mt["warp"]), name,
                   _cycles(e.get("ts"), freq, f"traceEvents[{i}].ts"), _cycles(e.get("dur"), freq, f"traceEvents[{i}].dur"))
        found.setdefault(mp["kernel"], []).append(ev)
    if not found:
        raise TraceError("the trace has no scope events: the kernel recorded none (no scopes, or not instrumented)")
    if kernel is None:
        if len(found) > 1:
            raise TraceError(f"the trace holds several kernels ({', '.join(sorted(found))}); name one")
        kernel = next(iter(found))
    if kernel not in found:
        raise TraceError(f"kernel {kernel!r} is not in the trace (it has {', '.join(sorted(found))})")
    return kernel, found[kernel]


def by_cta(events: list[Event]) -> dict[int, list[Event]]:
    out: dict[int, list[Event]] = {}
    for e in events:
        out.setdefault(e.cta, []).append(e)
    return dict(sorted(out.items()))


def span(events: list[Event]) -> int:
    """Cycles from the CTA's first recorded scope start to its last scope end."""
    return max(e.start + e.dur for e in events) - min(e.start for e in events)


def warp_scopes(events: list[Event]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for e in events:
        out.setdefault(e.warp, set()).add(e.scope)
    return dict(sorted(out.items()))


def role(warp: int, scopes: set[str]) -> str:
    """'producer' for a warp that only records load scopes (tma*/producer*), else its warpgroup 'warpgroup <k>'."""
    if scopes and all(s.startswith(PRODUCER_PREFIXES) for s in scopes):
        return "producer"
    return f"warpgroup {warp // WARPGROUP}"


def representative(ctas: dict[int, list[Event]]) -> tuple[int, int]:
    """(CTA id, its rank from 0) of the CTA with the median span, ties by id; the lower median for an even count."""
    order = sorted(ctas, key=lambda c: (span(ctas[c]), c))
    rank = (len(order) - 1) // 2
    return order[rank], rank


def scope_order(events: list[Event]) -> list[str]:
    """Scope names by their first start in these events (program order of one CTA), ties by name."""
    first: dict[str, int] = {}
    for e in events:
        first[e.scope] = min(first.get(e.scope, e.start), e.start)
    return sorted(first, key=lambda s: (first[s], s))


def shares(ctas: dict[int, list[Event]], roles: dict[int, str], scopes: list[str]) -> list[dict]:
    """Per role and scope: the share of the CTA's span its warps spent inside the scope (mean over the role's warps
    in a CTA, then over CTAs), the mean cycles of one occurrence, and the occurrences counted (all CTAs)."""
    acc = {(r, s): [0.0, 0, 0] for r in dict.fromkeys(roles.values()) for s in scopes}   # share sum, cycles, count
    for evs in ctas.values():
        sp = span(evs)
        warps: dict[str, set[int]] = {}
        for e in evs:
            warps.setdefault(roles[e.warp], set()).add(e.warp)
        for e in evs:
            a = acc[(roles[e.warp], e.scope)]
            a[0] += e.dur / sp / len(warps[roles[e.warp]]) if sp else 0.0
            a[1] += e.dur
            a[2] += 1
    n = len(ctas)
    return [dict(role=r, scope=s, share=a[0] / n, mean_cycles=a[1] / a[2] if a[2] else 0.0, count=a[2])
            for (r, s), a in acc.items() if a[2]]


def summarize(trace, *, tiles: list[int] | None = None, kernel: str | None = None) -> dict:
    """One parsed trace -> the dataset's per-run fields. `tiles`: key tiles each program (CTA) loops over, one entry
    per program, when known: every warp is expected to enter each of its scopes once per tile, so
    events_expected = sum over warps of their distinct scopes x sum(tiles); fewer recorded means dropped events."""
    kernel, events = read_events(trace, kernel)
    ctas = by_cta(events)
    per_warp = warp_scopes(events)
    roles = {w: role(w, s) for w, s in per_warp.items()}
    rep, rank = representative(ctas)
    rep_events = ctas[rep]
    scopes = scope_order(rep_events)
    scopes += sorted({e.scope for e in events} - set(scopes))
    t0 = min(e.start for e in rep_events)
    index = {s: i for i, s in enumerate(scopes)}
    timeline = sorted([e.warp, index[e.scope], e.start - t0, e.dur] for e in rep_events)
    spans = sorted(span(v) for v in ctas.values())
    counts = [len(v) for v in ctas.values()]
    expected = None
    if tiles is not None:
        expected = sum(len(s) for s in per_warp.values()) * sum(int(x) for x in tiles)
    warps = list(per_warp)
    return dict(
        kernel=kernel, ctas=len(ctas), ctas_expected=None if tiles is None else len(tiles), events=len(events),
        events_expected=expected, events_per_cta_min=min(counts), events_per_cta_max=max(counts),
        cta=dict(id=rep, core=rep_events[0].core, span_cycles=span(rep_events), rank=rank, rule=REPRESENTATIVE),
        span_cycles=dict(min=spans[0], median=float(statistics.median(spans)), max=spans[-1],
                         mean=float(statistics.fmean(spans))),
        scopes=scopes, warps=warps, roles=[roles[w] for w in warps], timeline=timeline,
        shares=shares(ctas, roles, scopes))


def tiles_per_program(n_q: int, n_k: int, block_m: int, block_n: int, causal: bool, batch_heads: int) -> list[int]:
    """Key tiles each program loops over, as the kernels' tile range (flashviz_kernels.variants) gives them: every key tile
    when not causal; with bottom-right causal masking, the tiles up to the last key the block's last row sees."""
    out = []
    for start_q in range(0, n_q, block_m):
        hi = min(max(start_q + block_m + n_k - n_q, 0), n_k) if causal else n_k
        out.append(-(-hi // block_n))
    return out * batch_heads
