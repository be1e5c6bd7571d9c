"""Ours against FlashAttention-4 and cuDNN as GPU time, in interleaved rounds (GPU, flash-attn-4 installed):

    python -m tools.fa4_rounds [--mode fwd bwd] [--n 4096 16384] [--d 64 128] [--causal 0 1] [--rounds 5]
                               [--out assets/benchmarks/tune/FILE.json]
    python -m tools.fa4_rounds --ab OFF.json ON.json [OFF2.json ON2.json ...]    # a switch's A/B (no GPU)
    python -m tools.fa4_rounds --switch FLASHVIZ_WS_LPT ...    # ours with the switch at 0 and at 1, in each round
    python -m tools.fa4_rounds --switch FLASHVIZ_WS_CONSUMERS=3,2 ...    # ... at two other values: OFF,ON
    python -m tools.fa4_rounds --clocks ...    # and each impl's SM clock, power and temperature per round
    python -m tools.fa4_rounds --timer calls ...    # one call at a time, L2 cleared (the bench's own per-call timer)

`python -m flashviz.bench --preset h200-fa4` times each impl once per cell, one after the other; between two of its
recordings (fa4-2026-12-03b and 03c) an impl's time in one cell moved by more than the gaps between the impls it
compares. Here each cell's calls (the bench's own: measure.any_runner; B = 4, H = 32, fp16) are replayed from
CUDA graphs (graph_timing.replay_times: GPU time, no host launch cost, L2 not cleared between calls), each impl
once per round, the order rotated every round (tune_record.time_rounds). A ratio is peer / ours of the same round
(above 1: ours faster); the line gives the median over rounds and their range. One output of each call is compared
with cuDNN's first (max |difference| over the output and, for bwd, the three gradients), so a wrong call cannot
pass for a fast one. --switch ENV times ours twice a round, as "fast" with ENV=0 and as "fast ENV=1" (set around
each call, so a graph captures that launch; ENV=OFF,ON: those two values): a switch read at launch time (not at a
module's import) compared in one process, round by round, instead of in alternating processes (--ab). --clocks
samples nvidia-smi while each impl is timed (tools.gpu_clocks): its median SM clock, power draw and temperature per
round, and the clock event reasons seen, so a slower impl that ran at a lower clock (a power cap) shows as such.
--timer calls times each call alone as the bench's recordings do (measure.time_calls: triton's do_bench, L2 cleared
before each call, CUDA events) instead of graph replays, and keeps each round's 10th / 50th / 90th percentile: the
bench's per-call medians of ours at N = 16384 were bimodal where its graph replays were not, and rounds of this timer
say whether that is the call or the machine. (The machine: in the first such run, assets/benchmarks/tune/
nvidia-h100-fa4-rounds-calls-clocks-fwd16k-triton38-2026-12-06.json, FA4's and cuDNN's calls spread within a round
too, and every impl ran held at the power cap.) The per-call and backward clock runs of that day (assets/
benchmarks/tune/*clocks*-2026-12-06.json, each round's power_w and sm_mhz) also showed each cell's first round start
on a board that idled while the cell compiled: the impl timed first drew less power at a higher SM clock than in
its later rounds, and so ran faster. --warm-rounds (1 by default) times that many rounds first and drops them,
their clocks and percentiles too.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
from pathlib import Path

from flashviz.bench.rounds_tables import ratios   # median and range of peer / ours over rounds (tests use it here)

IMPLS = ("fast", "fa4", "sdpa-cudnn")


def _flat(result):
    return result if isinstance(result, (tuple, list)) else (result,)


def with_env(fn, name: str | None, value: str | None):
    """fn with the environment variable name set to value during each call (restored after); fn.saved (a bwd
    runner's forward state, graph_timing.replay_times) is the same object. name None: fn itself."""
    if name is None:
        return fn

    def run():
        old = os.environ.get(name)
        os.environ[name] = value
        try:
            return fn()
        finally:
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old
    if hasattr(fn, "saved"):
        run.saved = fn.saved
    return run


def parse_switch(spec: str) -> tuple[str, str, str]:
    """--switch's ENV or ENV=OFF,ON -> (ENV, OFF, ON); ENV alone is a 0 / 1 switch."""
    name, _, values = spec.partition("=")
    off, _, on = values.partition(",") if values else ("0", "", "1")
    if not name.startswith("FLASHVIZ_") or not off or not on or off == on or "," in on:
        raise ValueError(f"--switch takes FLASHVIZ_NAME or FLASHVIZ_NAME=OFF,ON (two values), not {spec!r}")
    return name, off, on


CALL_QS = (0.1, 0.5, 0.9)   # --timer calls: the per-call percentiles kept per round


def call_bench(fn, rep_ms: float, quantiles: list) -> float:
    """--timer calls: one round's median ms of fn timed call by call (measure.time_calls, L2 cleared before each);
    CALL_QS's percentiles of that round are appended to quantiles."""
    from flashviz.bench import measure
    # est_ms 0: do_bench sizes its warm-up and repeats from its own first calls, within 25 ms and rep_ms
    times = measure.time_calls(fn, "cuda", warmup_ms=25.0, rep_ms=rep_ms, min_reps=1, est_ms=0.0)
    quantiles.append([measure.quantile(times, q) for q in CALL_QS])
    return measure.quantile(times, 0.5)


def drop_warm(times: dict, quantiles: dict, clocks: dict, warm: int) -> None:
    """Drop the first `warm` rounds in place: each run's round times (a run that raised keeps its error text), its
    call percentiles, and each list of its clock summary."""
    for name, t in times.items():
        if not isinstance(t, str):
            times[name] = t[warm:]
    for name in quantiles:
        quantiles[name] = quantiles[name][warm:]
    for c in clocks.values():
        for key in c:
            c[key] = c[key][warm:]


def cell(mode: str, n: int, d: int, causal: bool, rounds: int, rep_ms: float, switch: str | None = None,
         sampler=None, timer: str = "graph", warm: int = 1) -> dict:
    import torch

    from flashviz.bench import graph_timing, measure
    from tools.tune_record import error_text, time_rounds
    cfg = dict(n=n, d=d, causal=causal, dtype="float16", batch=4, heads=32, mode=mode)
    x = measure.make_inputs(cfg, 0, "cuda")
    runs, row = {}, dict(mode=mode, n=n, d=d, causal=causal, impls={})
    if switch:
        name, off, on = parse_switch(switch)
        row["switch"] = dict(name=name, off=off, on=on)
    for impl in impls(switch):
        try:
            if switch and impl.startswith("fast"):
                runs[impl] = with_env(measure.any_runner("fast", x, cfg), name, on if impl != "fast" else off)
            else:
                runs[impl] = measure.any_runner(impl, x, cfg)
            row["impls"][impl] = dict(out=[t.detach().float() for t in _flat(runs[impl]())])
        except Exception as e:                       # noqa: BLE001 -- recorded, the others go on
            runs.pop(impl, None)
            row["impls"][impl] = dict(error=error_text(e))
    torch.cuda.synchronize()
    ref = row["impls"].get("sdpa-cudnn", {}).pop("out", None)
    for impl, r in row["impls"].items():
        out = r.pop("out", None)
        if out is not None and ref is not None:
            r["maxerr"] = max(float((a - b).abs().max()) for a, b in zip(out, ref))
    names = {id(fn): impl for impl, fn in runs.items()}
    quantiles = {impl: [] for impl in runs}

    def bench(fn):
        with sampler.window(names[id(fn)]) if sampler is not None else contextlib.nullcontext():
            if timer == "calls":
                return call_bench(fn, rep_ms, quantiles[names[id(fn)]])
            return statistics.median(graph_timing.replay_times(fn, rep_ms))
    times = time_rounds(runs, warm + rounds, bench)
    clocks = sampler.summary() if sampler is not None else {}
    drop_warm(times, quantiles, clocks, warm)
    if sampler is not None:
        for impl, c in clocks.items():
            row["impls"][impl]["clocks"] = c
        sampler.windows.clear()                     # the next cell's summary reads its own windows only
    for impl, t in times.items():
        if isinstance(t, str):                      # the first call ran (maxerr kept); the timing did not
            row["impls"][impl]["error"] = t
        else:
            row["impls"][impl].update(ms=statistics.median(t), ms_all=t)
            if quantiles[impl]:
                row["impls"][impl]["call_q"] = quantiles[impl]     # per round: CALL_QS's percentiles, ms
    return row


def impls(switch: str | None = None) -> tuple:
    """The runs of a cell: IMPLS, with --switch ours a second time as "fast ENV=ON" right after "fast" (ENV=OFF)."""
    if not switch:
        return IMPLS
    name, _, on = parse_switch(switch)
    return ("fast", f"fast {name}={on}") + IMPLS[1:]


def line(row: dict) -> str:
    ms = "  ".join(f"{i} {row['impls'][i]['ms']:.3f}" if "ms" in row["impls"].get(i, {}) else f"{i} -"
                   for i in row["impls"])
    parts = []
    on = next((i for i in row["impls"] if i.startswith("fast ")), None)    # --switch: ours with ENV=1
    for peer in ((on,) if on else ()) + ("fa4", "sdpa-cudnn"):
        r = ratios(row, "fast", on) if peer == on else ratios(row, peer)    # the switch: off ms / on ms
        label = f"speed-up of {on[5:]} over {row.get('switch', {}).get('off', '0')}" if peer == on else f"vs {peer}"
        parts.append(f"{label} " + ("-" if r is None else f"{r[0]:.3f} ({r[1]:.3f}-{r[2]:.3f})"))
    clocks = [f"{i} {statistics.median(v):.0f}" for i, r in row["impls"].items()
              if (v := [x for x in r.get("clocks", {}).get("sm_mhz", []) if x is not None])]
    if clocks:
        parts.append("SM MHz " + " ".join(clocks))
    return f"{row['mode']} N={row['n']} d={row['d']} causal={int(row['causal'])}: {ms} ms | " + " | ".join(parts)


def ab(off: dict, on: dict, peer: str) -> list[tuple[str, float]]:
    """A switch's effect in one pair of recordings made in alternating processes (off, then on): per cell both ran,
    (ours off / peer off) / (ours on / peer on), the speed-up of ours with the switch on measured against a peer
    timed in the same process (above 1: on is faster), so a machine that drifts between the two processes moves
    ours and the peer together. Medians over rounds, as line() prints them."""
    def by_cell(rec):
        return {(r["mode"], r["n"], r["d"], bool(r["causal"])): r["impls"] for r in rec["rows"]}
    a, b = by_cell(off), by_cell(on)
    out = []
    for key, ia in a.items():
        ib = b.get(key, {})
        if all("ms" in x.get(i, {}) for x in (ia, ib) for i in ("fast", peer)):
            mode, n, d, causal = key
            out.append((f"{mode} N={n} d={d} causal={int(causal)}",
                        (ia["fast"]["ms"] / ia[peer]["ms"]) / (ib["fast"]["ms"] / ib[peer]["ms"])))
    return out


def ab_text(pairs: list[tuple[dict, dict]]) -> str:
    """ab() of each pair against each peer both sides timed, cell by cell, and its geometric mean; a pair whose
    two recordings ran the same FLASHVIZ_ switches (their `switches`) gets a warning line instead: files given in
    the wrong order (OFF OFF ON ON) compare a setting with itself."""
    lines = []
    for k, (off, on) in enumerate(pairs, 1):
        if "switches" in off and off["switches"] == on.get("switches"):
            lines.append(f"pair {k}: both recordings ran the same switches {off['switches']}: not an A/B "
                         "(give the files as OFF ON [OFF ON ...])")
            continue
        for peer in ("sdpa-cudnn", "fa4"):
            got = ab(off, on, peer)
            if got:
                gm = statistics.geometric_mean([r for _, r in got])
                lines.append(f"pair {k} against {peer}: geomean {gm:.4f}; " + ", ".join(f"{c} {r:.3f}" for c, r in got))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", nargs="+", choices=["fwd", "bwd"], default=["fwd", "bwd"])
    ap.add_argument("--n", type=int, nargs="+", default=[4096, 16384])
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--causal", type=int, nargs="+", choices=[0, 1], default=[0, 1])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rep-ms", type=float, default=100.0, help="replay time per impl per round")
    ap.add_argument("--warm-rounds", type=int, default=1, help="rounds timed first and dropped (the board heats)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--ab", type=Path, nargs="+", help="print a switch's A/B from recordings: OFF ON [OFF ON ...]")
    ap.add_argument("--switch", metavar="ENV[=OFF,ON]",
                    help="time ours with ENV=0 and ENV=1 (or OFF and ON) in each round (FLASHVIZ_*)")
    ap.add_argument("--clocks", action="store_true", help="sample each impl's SM clock and power (nvidia-smi)")
    ap.add_argument("--timer", choices=["graph", "calls"], default="graph",
                    help="graph replays (default) or one call at a time with L2 cleared, as the bench records")
    a = ap.parse_args()
    if a.warm_rounds < 0 or a.rounds < 1:
        ap.error("--rounds takes 1 or more and --warm-rounds 0 or more")
    if a.switch:
        try:
            parse_switch(a.switch)
        except ValueError as e:
            ap.error(str(e))
    if a.ab:
        if len(a.ab) % 2:
            ap.error("--ab takes files in pairs: OFF ON [OFF ON ...]")
        recs = [json.loads(p.read_text(encoding="utf-8")) for p in a.ab]
        print(ab_text(list(zip(recs[::2], recs[1::2]))))
        return
    from tools.tune_record import record_header
    rec = record_header("fa4_rounds", sys.argv[1:], rounds=a.rounds, rep_ms=a.rep_ms, warm_rounds=a.warm_rounds)
    rec["timer"] = ("CUDA-graph replays (graph_timing.replay_times)" if a.timer == "graph" else
                    f"calls one at a time, L2 cleared (measure.time_calls); call_q: percentiles {list(CALL_QS)}"
                    ) + f", median per round, rounds interleaved after {a.warm_rounds} dropped"
    from tools.gpu_clocks import Sampler
    with Sampler() if a.clocks else contextlib.nullcontext() as sampler:
        if sampler is not None:
            rec["clocks"] = dict(command=" ".join(sampler.cmd), error=sampler.error)
        for mode in a.mode:
            for d in a.d:
                for n in a.n:
                    for causal in a.causal:
                        row = cell(mode, n, d, bool(causal), a.rounds, a.rep_ms, a.switch, sampler, a.timer,
                                   a.warm_rounds)
                        rec["rows"].append(row)
                        print(line(row), flush=True)
                        if sampler is not None:
                            rec["clocks"]["error"] = sampler.error
                        if a.out:
                            a.out.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
