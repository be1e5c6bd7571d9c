"""Nsight Compute on our `fast` and FlashAttention-4 in the same cells, side by side: what each kernel's GPU time
is spent on. GPU only (ncu on the PATH), from the repository root:

    python -m tools.ncu_pair --cells "bwd 4096 64 0" "fwd 4096 64 1" --out assets/benchmarks/ncu/FILE.json
    python -m tools.ncu_pair --table assets/benchmarks/ncu/FILE.json      # the comparison, no GPU needed

A cell is "MODE N D CAUSAL [WINDOW]" (MODE fwd or bwd; WINDOW: a causal forward's window of that many keys on the
left; B = 4, H = 32, fp16, flashviz.bench's inputs and calls: measure.make_inputs, measure.any_runner). For each
cell one ncu run profiles exactly one call of each impl: the call runs once to compile and warm up (the "bwd" runner
also runs its forward then), then once between cudaProfilerStart and cudaProfilerStop (ncu --profile-from-start
off), so every kernel that call launches is profiled (ours: the row pre-pass, the dQ buffer's zeros, the main
kernel, the cast; FA4: its pre- and post-processing too). Clocks are left alone (--clock-control none, as the device
notes ask). The file keeps, per kernel, ncu's details page (the sections in SECTIONS) and the warp-stall reasons
from its raw page (warps stalled per issued instruction, by reason), with the run's provenance and the exact ncu
command; --table prints the metrics whose values differ between the longest kernels of each cell.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SECTIONS = ("SpeedOfLight", "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis", "Occupancy", "LaunchStats",
            "WarpStateStats", "SchedulerStats", "InstructionStats")
STALL = ("smsp__average_warps_issue_stalled_", "_per_issue_active.ratio")   # raw metric name around the reason
# Warps a kernel launches that never issue past its start: Gluon's warp_specialize pads the producer's one warp to a
# warpgroup, and the padding parks at a CTA barrier until the kernel ends (its SASS: the partition switch's idle case,
# two BAR.SYNC 0x1), so ncu counts every cycle of theirs as a "barrier" stall. FA4's producer warpgroup exits its
# idle warps instead: they are not active (ncu's Achieved Active Warps Per SM says so), not stalled.
PARKED = {"ws_bwd": 3, "ws_fwd": 3}           # kernel name -> parked warps per CTA (one CTA per SM in both)


def inner(mode: str, n: int, d: int, causal: bool, impls: list[str], window: int = 0) -> None:
    """The profiled program: one warm call, then one call between cudaProfilerStart and Stop, per impl. window > 0
    (fwd, causal): a causal window of that many keys on the left (ours: attention's window=(window, 0); FA4: its
    variant runner, flashviz.bench.peers)."""
    import torch

    from flashviz.bench import measure, peers
    from flashviz.engine.variants import make_variant
    if window and (mode != "fwd" or not causal):
        raise ValueError("a window cell is a causal forward: fwd N D 1 WINDOW")
    cfg = dict(n=n, d=d, causal=causal, dtype="float16", batch=4, heads=32, mode=mode)
    x = measure.make_inputs(cfg, 0, "cuda")
    for impl in impls:
        if window and impl in measure.PEERS:
            fn = peers.fa4_variant_runner(dict(q=x["q"], k=x["k"], v=x["v"], scale=d ** -0.5,
                                               var=make_variant(causal=True, window=(window, 0))))
        else:
            fn = measure.any_runner(impl, x, cfg, dict(window=(window, 0)) if window else None)
        fn()
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        fn()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()


def read_csv(text: str) -> list[dict]:
    """ncu's --csv rows; lines before the header (ncu's ==PROF== notes, the program's output) are skipped."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise ValueError("no ncu CSV header (a line starting with \"ID\") in the input")
    return list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))


def kernels(details: list[dict], raw: list[dict]) -> list[dict]:
    """Per kernel (in launch order): name, details {section: {metric (unit): value}}, stalls {reason: ratio}."""
    out: dict[str, dict] = {}
    for r in details:
        k = out.setdefault(r["ID"], dict(name=r["Kernel Name"], details={}, stalls={}))
        name = f"{r['Metric Name']} ({r['Metric Unit']})" if r["Metric Unit"] else r["Metric Name"]
        k["details"].setdefault(r["Section Name"], {})[name] = r["Metric Value"]
    for r in raw[1:] if raw and not raw[0]["ID"].strip().isdigit() else raw:   # raw's second row holds units
        k = out.get(r["ID"])
        if k is None:
            continue
        for key, value in r.items():
            if key.startswith(STALL[0]) and key.endswith(STALL[1]):
                try:
                    k["stalls"][key[len(STALL[0]):-len(STALL[1])]] = float(value.replace(",", ""))
                except ValueError:
                    pass
    return list(out.values())


def profile(cells: list[str], impls: list[str], out: Path) -> dict:
    from flashviz.bench import evidence, provenance
    sections = [a for s in SECTIONS for a in ("--section", s)]
    base = ["ncu", "--profile-from-start", "off", "--clock-control", "none", "--target-processes", "all", *sections]
    record = dict(kind=evidence.NCU_KIND, impls=impls, sections=list(SECTIONS), cells={},
                  provenance=provenance.collect("cuda", "python -m tools.ncu_pair " + " ".join(sys.argv[1:]), "ncu"))
    with tempfile.TemporaryDirectory() as tmp:
        for cell in cells:
            rep = Path(tmp) / "rep"
            prog = [sys.executable, "-m", "tools.ncu_pair", "--inner", *cell.split(), "--impls", *impls]
            cmd = [*base, "-f", "-o", str(rep), *prog]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                raise RuntimeError(f"ncu failed on {cell!r}: {(run.stderr or run.stdout)[-800:]}")
            page = lambda p: subprocess.run(["ncu", "-i", f"{rep}.ncu-rep", "--page", p, "--csv"],  # noqa: E731
                                            capture_output=True, text=True, check=True).stdout
            record["cells"][cell] = dict(command=" ".join(base + ["-o", "REPORT", "python", *prog[1:]]),
                                         kernels=kernels(read_csv(page("details")), read_csv(page("raw"))))
            print(f"profiled {cell}: {len(record['cells'][cell]['kernels'])} kernels", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def _duration_us(k: dict) -> float:
    for name, value in k["details"].get("GPU Speed Of Light Throughput", {}).items():
        if name.startswith("Duration"):
            unit = name[name.rfind("(") + 1:-1]
            return float(value.replace(",", "")) * dict(ns=1e-3, us=1.0, ms=1e3).get(unit, 1.0)
    return 0.0


def barrier_unparked(k: dict) -> float | None:
    """k's barrier stalls per issued instruction without its parked warps' (PARKED): those stall every active cycle,
    a parked / active-warps share of all warp cycles, i.e. that share of ncu's warp cycles per issued instruction.
    As measured for a kernel with none; None without the metrics."""
    try:
        barrier = k["stalls"]["barrier"]
        active = float(k["details"]["Occupancy"]["Achieved Active Warps Per SM (warp)"].replace(",", ""))
        cycles = float(k["details"]["Warp State Statistics"]["Warp Cycles Per Issued Instruction (cycle)"])
    except (KeyError, ValueError):
        return None
    return barrier - PARKED.get(k["name"], 0) / active * cycles


def table(record: dict, top: int = 2, width: int = 26) -> str:
    """Per cell, its `top` longest kernels as columns; a line per metric (and stall reason) whose values differ."""
    out = []
    for cell, c in record["cells"].items():
        ks = sorted(c["kernels"], key=_duration_us, reverse=True)[:top]
        out.append(f"== {cell}")
        out.append("metric".ljust(58) + "".join(k["name"][:width - 2].ljust(width) for k in ks))
        rows = [(s, m) for k in ks for s, ms in k["details"].items() for m in ms]
        rows += [("stalls per issue", r) for k in ks for r in k["stalls"]]
        section = None
        for s, m in dict.fromkeys(rows):
            vals = [str(k["stalls"].get(m, "-") if s == "stalls per issue" else k["details"].get(s, {}).get(m, "-"))
                    for k in ks]
            if len(set(vals)) == 1:
                continue
            if s != section:
                out.append(f"[{s}]")
                section = s
            out.append(f"  {m}"[:56].ljust(58) + "".join(v[:width - 2].ljust(width) for v in vals))
        if any(k["name"] in PARKED for k in ks):
            vals = [barrier_unparked(k) for k in ks]
            out.append("  barrier less parked warps (PARKED)".ljust(58) +
                       "".join(("-" if v is None else f"{v:.3f}").ljust(width) for v in vals))
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", nargs="+", default=["bwd 4096 64 0", "fwd 4096 64 1"])
    ap.add_argument("--impls", nargs="+", default=["fast", "fa4"])
    ap.add_argument("--out", type=Path, help="where the record goes (JSON)")
    ap.add_argument("--table", type=Path, help="print the comparison of a record instead of profiling")
    ap.add_argument("--top", type=int, default=2)
    ap.add_argument("--inner", nargs="+", metavar="MODE N D CAUSAL [WINDOW]", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.inner:
        mode, n, d, causal, *w = a.inner
        inner(mode, int(n), int(d), bool(int(causal)), a.impls, int(w[0]) if w else 0)
    elif a.table:
        print(table(json.loads(a.table.read_text(encoding="utf-8")), a.top))
    elif a.out:
        print(table(profile(a.cells, a.impls, a.out), a.top))
    else:
        ap.error("give --out FILE.json (profile, GPU) or --table FILE.json")


if __name__ == "__main__":
    main()
