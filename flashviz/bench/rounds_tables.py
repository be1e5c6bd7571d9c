"""Issue 32's yardsticks as markdown, from the tune recordings that judge them (docs/BENCHMARKS.md, "Level with
FlashAttention-4"): ours against FlashAttention-4 and cuDNN in interleaved rounds (tools.fa4_rounds), the SM clock
each ran at (fa4_rounds --clocks), and a sliding window's speed-up over dense causal against its key-tile bound,
FA4's beside ours (tools.window_fit).

A ratio is peer ms / ours ms of the same round (above 1: ours faster); a cell prints the median over rounds and
their range. No torch: the recordings are JSON.
"""
from __future__ import annotations

import statistics

REASONS = {0x1: "idle", 0x2: "applications clocks", 0x4: "power cap", 0x8: "hardware slowdown",
           0x10: "sync boost", 0x20: "software thermal", 0x40: "hardware thermal", 0x80: "power brake",
           0x100: "display clock"}     # nvml.h's nvmlClocksEventReason* bits (tools.gpu_clocks records them)


def ratios(row: dict, peer: str, ours: str = "fast") -> tuple[float, float, float] | None:
    """(median, min, max) over rounds of peer ms / ours ms in the same round; None where either did not run."""
    a, b = row["impls"].get(ours, {}), row["impls"].get(peer, {})
    if "ms_all" not in a or "ms_all" not in b:
        return None
    rs = [p / o for o, p in zip(a["ms_all"], b["ms_all"])]
    return statistics.median(rs), min(rs), max(rs)


def _ratio(row: dict, peer: str) -> str:
    r = ratios(row, peer)
    return "—" if r is None else f"{r[0]:.3f} ({r[1]:.3f}–{r[2]:.3f})"


def _ms(row: dict, impl: str) -> str:
    x = row["impls"].get(impl, {})
    if "ms" in x:
        return f"{x['ms']:.3f}"
    err = x.get("error", "—")                       # an error's text, cut at a word within 40 characters
    return err if len(err) <= 40 else err[:40].rsplit(" ", 1)[0] + "…"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]


def rounds_table(rec: dict) -> list[str]:
    """One line per cell of a tools.fa4_rounds recording: each impl's median ms and ours against FA4 and cuDNN."""
    head = ["mode", "N", "d", "causal", "ours ms", "FA4 ms", "cuDNN ms", "FA4 / ours", "cuDNN / ours"]
    return _table(head, [[r["mode"], str(r["n"]), str(r["d"]), "yes" if r["causal"] else "no", _ms(r, "fast"),
                          _ms(r, "fa4"), _ms(r, "sdpa-cudnn"), _ratio(r, "fa4"), _ratio(r, "sdpa-cudnn")]
                         for r in rec["rows"]])


def reason_names(bits: int | None) -> list[str]:
    """REASONS' names of the bits set (a bit it lacks as hex); [] for 0 or None: the GPU ran at its full clock."""
    return [] if not bits else [name for bit, name in REASONS.items() if bits & bit] or [hex(bits)]


def _median(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def cycle_ratio(row: dict, peer: str, ours: str = "fast") -> float | None:
    """Median over rounds of (peer ms x peer SM MHz) / (ours ms x ours MHz): the time ratio with each round's clock
    taken out (above 1: ours took fewer SM cycles); None where either lacks a time or a clock in every round."""
    a, b = row["impls"].get(ours, {}), row["impls"].get(peer, {})
    ca, cb = a.get("clocks", {}).get("sm_mhz", []), b.get("clocks", {}).get("sm_mhz", [])
    rs = [(tp * fp) / (to * fo) for to, fo, tp, fp in zip(a.get("ms_all", []), ca, b.get("ms_all", []), cb)
          if fo is not None and fp is not None]
    return statistics.median(rs) if rs else None


def clocks_table(rec: dict) -> list[str]:
    """One line per cell and impl of a fa4_rounds --clocks recording: median ms, SM MHz, board W over rounds, the
    clock event reasons seen, and the peers' time in SM cycles over ours (cycle_ratio)."""
    head = ["mode", "N", "d", "causal", "impl", "ms", "SM MHz", "W", "clock held by", "cycles / ours' cycles"]
    rows = []
    for r in rec["rows"]:
        for impl, x in r["impls"].items():
            c = x.get("clocks", {})
            mhz, watts = _median(c.get("sm_mhz", [])), _median(c.get("power_w", []))
            seen = 0
            for bits in c.get("reasons", []):
                seen |= int(bits or 0)
            why = ", ".join(reason_names(seen)) or "—"
            cyc = None if impl == "fast" else cycle_ratio(r, impl)
            rows.append([r["mode"], str(r["n"]), str(r["d"]), "yes" if r["causal"] else "no", impl, _ms(r, impl),
                         "—" if mhz is None else f"{mhz:.0f}", "—" if watts is None else f"{watts:.0f}", why,
                         "—" if cyc is None else f"{cyc:.3f}"])
    return _table(head, rows)


def window_shares(rec: dict, d: int) -> list[dict]:
    """Per window of a tools.window_fit recording at head dim d: dense causal ms / window ms for ours (and FA4
    where it ran), the key-tile bound (our tiles: dense causal's key tiles / the window's), each share of it."""
    rows = [r for r in rec["rows"] if r["d"] == d]
    dense = next(r for r in rows if r["window"] is None)
    out = []
    for w in sorted((r for r in rows if r["window"] is not None), key=lambda r: r["window"]):
        bound = dense["tiles"] / w["tiles"]
        row = dict(window=w["window"], ms=w["ms"], speedup=dense["ms"] / w["ms"], bound=bound)
        row["share"] = row["speedup"] / bound
        if "fa4_ms" in w and "fa4_ms" in dense:
            row.update(fa4_ms=w["fa4_ms"], fa4_speedup=dense["fa4_ms"] / w["fa4_ms"])
            row.update(fa4_share=row["fa4_speedup"] / bound, fa4_over_ours=w["fa4_ms"] / w["ms"])
        out.append(row)
    return out


def window_table(rec: dict) -> list[str]:
    """window_shares for each head dim of the recording, FA4's columns "—" where it did not run."""
    head = ["d", "window", "ours ms", "dense causal / window", "key-tile bound", "share of bound", "FA4 ms",
            "FA4: dense causal / window", "FA4 share", "FA4 ms / ours"]
    rows = []
    for d in sorted({r["d"] for r in rec["rows"]}):
        for s in window_shares(rec, d):
            fa4 = ([f"{s['fa4_ms']:.3f}", f"{s['fa4_speedup']:.2f}", f"{s['fa4_share']:.3f}",
                    f"{s['fa4_over_ours']:.3f}"] if "fa4_ms" in s else ["—"] * 4)
            rows.append([str(d), str(s["window"]), f"{s['ms']:.3f}", f"{s['speedup']:.2f}", f"{s['bound']:.2f}",
                         f"{s['share']:.3f}", *fa4])
    return _table(head, rows)


def provenance(rec: dict) -> str:
    """A tune recording's provenance in one line (device, torch, triton, commit, date, switches, command)."""
    sw = ", ".join(f"{k}={v}" for k, v in rec.get("switches", {}).items()) or "none"
    return (f"{rec['device']}, torch {rec['torch']}, triton {rec['triton']}, commit {rec['git_commit'][:7]}, "
            f"{rec['date']}, switches set: {sw}; `{rec['command'].split(' --out')[0]}`")
