"""Where inside one kernel its warps wait: Nsight Compute's warp-state samples per SASS instruction, for our `fast`
(or a peer: --impl fa4 --kernel <its name>) in one cell, under whatever triton is first on the path. GPU only (ncu
on the PATH), from the repository root:

    python -m tools.ncu_source --cell "fwd 4096 64 0" --kernel ws_fwd --out assets/benchmarks/ncu/FILE.json
    python -m tools.ncu_source --table FILE.json [FILE2.json]     # per file: samples by opcode, the top lines

Same profiled program as tools/ncu_pair.py (one warm call, then one call between cudaProfilerStart and Stop), but
only kernels whose name matches --kernel, with the SourceCounters section (its warp sampling is what fills the
source page). The record (kind ncu-pair, so flashviz.bench.evidence reads it) keeps, per kernel, ncu's details and
stall ratios as ncu_pair does, each sampled SASS line (offset from the kernel's start, instruction, samples, and
samples per stall reason), and per main loop (one per consumer warpgroup; tools/sass_loops.py finds them) its share
of the samples and its reasons. Two builds of one kernel (triton 3.6 and 3.8, or a switch's two sides) cannot be
matched line by line; the table compares them by loop, opcode and reason, and lists each one's heaviest lines.
"""
from __future__ import annotations

import argparse
import collections
import csv
import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tools import ncu_pair

SECTIONS = ("SourceCounters", "WarpStateStats", "LaunchStats", "Occupancy", "SpeedOfLight")
ALL = "Warp Stall Sampling (All Samples)"       # the source page's total samples column (its name in ncu 2025)
STALL = "stall_"                                # its per-reason columns (stall_wait, ...; "... (Not Issued)" too)


def read_source(text: str) -> list[dict]:
    """ncu's `--page source --csv` rows, keyed "Address" and "Source" (whatever ncu calls those two columns: the
    header is the first line with a field naming an address and one naming the source) and its other columns."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        fields = next(csv.reader([line]), [])
        addr = next((f for f in fields if "address" in f.lower()), None)
        src = next((f for f in fields if f.strip().lower() in ("source", "sass")), None)
        if addr and src:
            rows = csv.DictReader(io.StringIO("\n".join(lines[i:])))
            return [dict(r, Address=r[addr], Source=r[src]) for r in rows if r.get(addr)]
    raise ValueError("no ncu source-page header (a line naming an address and a source column) in the input")


def _num(value: str) -> float:
    try:
        return float(value.replace(",", ""))
    except (AttributeError, ValueError):
        return 0.0


def program(rows: list[dict]) -> list[dict]:
    """Every SASS line of the page as {offset (bytes from the kernel's first line), sass (branch targets as offsets
    too), samples (ncu's all-samples count), stalls {reason: samples}, non-zero reasons only}."""
    base = int(rows[0]["Address"], 16)

    def rel(text: str) -> str:
        return re.sub(r"0x[0-9a-f]{9,}", lambda m: hex(int(m.group(0), 16) - base), text.strip())
    return [dict(offset=int(r["Address"], 16) - base, sass=rel(r["Source"]), samples=_num(r.get(ALL, "")),
                 stalls={k[len(STALL):]: _num(v) for k, v in r.items()
                         if k and k.startswith(STALL) and "Not Issued" not in k and _num(v)})
            for r in rows]


def loop_shares(lines: list[dict]) -> list[dict]:
    """Per innermost loop holding HGMMA (tools/sass_loops.py: one per consumer warpgroup in the ws forward): its
    first and last offsets, its share of all samples, and its stall reasons' shares of its own samples."""
    from tools import sass_loops
    ins = [(x["offset"], x["sass"]) for x in lines]
    total = sum(x["samples"] for x in lines) or 1.0
    out = []
    for s, e in sass_loops.loops(ins):
        body = lines[s:e + 1]
        n = sum(x["samples"] for x in body) or 1.0
        why = collections.Counter()
        for x in body:
            why.update(x["stalls"])
        out.append(dict(first=body[0]["offset"], last=body[-1]["offset"], lines=len(body),
                        share=round(n / total, 4), stalls={k: round(v / n, 4) for k, v in why.most_common()}))
    return out


def samples(line: dict) -> float:
    return line["samples"]


def opcode(sass: str) -> str:
    """`@!P0 HGMMA.64x128x16.F32 ...` -> HGMMA (predicate and modifiers dropped)."""
    words = sass.split()
    word = words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else "?")
    return word.split(".")[0]


def loop_opcodes(lines: list[dict], first: int, last: int, n: int = 6) -> list[tuple]:
    """The n opcodes with most samples among the sampled lines at offsets first..last (one loop), as (opcode, share
    of the loop's samples, [(reason, share of the loop's samples), ...] heaviest first)."""
    body = [x for x in lines if first <= x["offset"] <= last]
    total = sum(samples(x) for x in body) or 1.0
    by_op, why = collections.Counter(), collections.defaultdict(collections.Counter)
    for x in body:
        by_op[opcode(x["sass"])] += samples(x)
        why[opcode(x["sass"])].update(x["stalls"])
    return [(op, v / total, [(r, w / total) for r, w in why[op].most_common()]) for op, v in by_op.most_common(n)]


def profile(cell: str, kernel: str, out: Path, raw_dir: Path | None = None, impl: str = "fast") -> dict:
    from flashviz.bench import evidence, provenance
    mode, n, d, causal, *window = cell.split()              # "fwd 16384 128 1 1024": a causal window of 1024
    sections = [a for s in SECTIONS for a in ("--section", s)]
    base = ["ncu", "--profile-from-start", "off", "--clock-control", "none", "--target-processes", "all",
            "-k", f"regex:{kernel}", "--import-source", "no", *sections]
    prog = [sys.executable, "-m", "tools.ncu_pair", "--inner", mode, n, d, causal, *window, "--impls", impl]
    record = dict(kind=evidence.NCU_KIND, impls=[impl],
                  sections=list(SECTIONS), cells={},
                  provenance=provenance.collect("cuda", "python -m tools.ncu_source " + " ".join(sys.argv[1:]),
                                                "ncu"))
    with tempfile.TemporaryDirectory() as tmp:
        rep = Path(tmp) / "rep"
        run = subprocess.run([*base, "-f", "-o", str(rep), *prog], capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"ncu failed on {cell!r}: {(run.stderr or run.stdout)[-800:]}")

        def page(*args: str) -> str:
            return subprocess.run(["ncu", "-i", f"{rep}.ncu-rep", "--csv", *args], capture_output=True, text=True,
                                  check=True).stdout
        try:
            src = page("--page", "source", "--print-source", "sass")
        except subprocess.CalledProcessError:            # an ncu without --print-source prints SASS by default
            src = page("--page", "source")
        if raw_dir is not None:
            raw_dir.mkdir(parents=True, exist_ok=True)
            (raw_dir / (out.stem + ".source.csv")).write_text(src, encoding="utf-8")
        ks = ncu_pair.kernels(ncu_pair.read_csv(page("--page", "details")), ncu_pair.read_csv(page("--page", "raw")))
        if len(ks) != 1:                   # the source page would hold each one's lines after the other
            raise RuntimeError(f"--kernel {kernel!r} matched {len(ks)} kernels in {cell!r}: "
                               f"{[k['name'] for k in ks]}; give a regex that matches one")
        lines = program(read_source(src))
        for k in ks:                       # the one kernel --kernel matched: the page is its page
            k["loops"] = loop_shares(lines)
            k["sass"] = [x for x in lines if x["samples"]]
        record["cells"][cell] = dict(command=" ".join(base + ["-o", "REPORT", "python", *prog[1:]]), kernels=ks)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="utf-8")   # ~0.3 MB a kernel
    return record


def table(record: dict, top: int = 20) -> str:
    out = []
    prov = record.get("provenance", {})
    for cell, c in record["cells"].items():
        for k in c["kernels"]:
            lines = k.get("sass", [])
            total = sum(samples(x) for x in lines) or 1.0
            out.append(f"== {cell} {k['name']} (triton {prov.get('triton')}, {prov.get('device_name')}): {total:.0f} "
                       f"samples on {len(lines)} lines")
            by_op = collections.Counter()
            why = collections.Counter()
            for x in lines:
                by_op[opcode(x["sass"])] += samples(x)
                why.update(x["stalls"])
            out.append("  by opcode: " + ", ".join(f"{op} {v / total:.1%}" for op, v in by_op.most_common(10)))
            out.append("  by reason: " + ", ".join(f"{r} {v / total:.1%}" for r, v in why.most_common(10)))
            for lp in k.get("loops", []):
                out.append(f"  loop {lp['first']:#x}-{lp['last']:#x} ({lp['lines']} lines): {lp['share']:.1%} of "
                           "samples; " + ", ".join(f"{r} {v:.0%}" for r, v in list(lp["stalls"].items())[:6]))
                out.append("    its opcodes (share of its samples; top reasons): " + ", ".join(
                    f"{op} {v:.1%} ({', '.join(f'{r} {w:.1%}' for r, w in rs[:2])})"
                    for op, v, rs in loop_opcodes(lines, lp["first"], lp["last"], 10)))
            for x in sorted(lines, key=samples, reverse=True)[:top]:
                reasons = ", ".join(f"{r} {v:.0f}" for r, v in sorted(x["stalls"].items(), key=lambda i: -i[1])[:2])
                out.append(f"  {x['offset']:#07x} {samples(x) / total:6.1%}  {x['sass'][:60]:60s} {reasons}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cell", default="fwd 4096 64 0", help='"MODE N D CAUSAL [WINDOW]"')
    ap.add_argument("--kernel", default="ws_fwd", help="ncu's kernel-name regex (the kernel to sample)")
    ap.add_argument("--impl", default="fast", help="whose call runs (flashviz.bench's impl names: fast, fa4, ...)")
    ap.add_argument("--out", type=Path, help="where the record goes (JSON)")
    ap.add_argument("--raw-dir", type=Path, help="also keep ncu's source-page CSV there")
    ap.add_argument("--table", type=Path, nargs="+", help="print records instead of profiling")
    ap.add_argument("--top", type=int, default=20)
    a = ap.parse_args(argv)
    if a.table:
        print("\n".join(table(json.loads(p.read_text(encoding="utf-8")), a.top) for p in a.table))
    elif a.out:
        print(table(profile(a.cell, a.kernel, a.out, a.raw_dir, a.impl), a.top))
    else:
        ap.error("give --out FILE.json (profile, GPU) or --table FILE.json")


if __name__ == "__main__":
    main()
