"""Where inside one kernel its warps wait: Nsight Compute's warp-state samples per SASS instruction, for our `fast`
in one cell, under whatever triton is first on the path. GPU only (ncu on the PATH), from the repository root:

    python -m tools.ncu_source --cell "fwd 4096 64 0" --kernel ws_fwd --out assets/benchmarks/ncu/FILE.json
    python -m tools.ncu_source --table FILE.json [FILE2.json]     # per file: samples by opcode, the top lines

Same profiled program as tools/ncu_pair.py (one warm call, then one call between cudaProfilerStart and Stop), but
only kernels whose name matches --kernel, with the SourceCounters section (its warp sampling is what fills the
source page). The record (kind ncu-pair, so flashviz.bench.evidence reads it) keeps, per kernel, the SASS lines that
were sampled: address, instruction and every non-zero numeric column of ncu's source page (the sample counts, all and
not-issued, and the per-reason counts where ncu prints them). Two builds of one kernel (triton 3.6 and 3.8, say)
cannot be matched line by line; the table compares them by opcode and by their heaviest lines.
"""
from __future__ import annotations

import argparse
import collections
import csv
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tools import ncu_pair

SECTIONS = ("SourceCounters", "WarpStateStats", "LaunchStats", "Occupancy", "SpeedOfLight")
ALL = "Warp Stall Sampling (All Samples)"       # the source page's total samples column (its name in ncu 2025)


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


def _num(value: str) -> float | None:
    try:
        return float(value.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def sampled(rows: list[dict]) -> list[dict]:
    """The rows with samples, each as {address, sass, and its non-zero numeric columns}."""
    out = []
    for r in rows:
        nums = {k: v for k, v in ((k, _num(v)) for k, v in r.items() if k not in ("Address", "Source")) if v}
        if any("Sampl" in k for k in nums):
            out.append(dict(address=r["Address"], sass=r["Source"].strip(), **nums))
    return out


def samples(line: dict) -> float:
    return line.get(ALL) or max((v for k, v in line.items() if "Sampl" in k and isinstance(v, float)), default=0.0)


def opcode(sass: str) -> str:
    """`@!P0 HGMMA.64x128x16.F32 ...` -> HGMMA (predicate and modifiers dropped)."""
    words = sass.split()
    word = words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else "?")
    return word.split(".")[0]


def profile(cell: str, kernel: str, out: Path, raw_dir: Path | None = None) -> dict:
    from flashviz.bench import evidence, provenance
    mode, n, d, causal = cell.split()
    sections = [a for s in SECTIONS for a in ("--section", s)]
    base = ["ncu", "--profile-from-start", "off", "--clock-control", "none", "--target-processes", "all",
            "-k", f"regex:{kernel}", "--import-source", "no", *sections]
    prog = [sys.executable, "-m", "tools.ncu_pair", "--inner", mode, n, d, causal, "--impls", "fast"]
    record = dict(kind=evidence.NCU_KIND, impls=["fast"],
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
        lines = sampled(read_source(src))
        for k in ks:                       # one kernel matches --kernel in these cells; its source page is the page
            k["sass"] = lines
        record["cells"][cell] = dict(command=" ".join(base + ["-o", "REPORT", "python", *prog[1:]]), kernels=ks)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def table(record: dict, top: int = 20) -> str:
    out = []
    prov = record.get("provenance", {})
    for cell, c in record["cells"].items():
        for k in c["kernels"]:
            lines = k.get("sass", [])
            total = sum(samples(x) for x in lines) or 1.0
            out.append(f"== {cell} {k['name']} (triton {prov.get('triton')}): {total:.0f} samples, "
                       f"{len(lines)} sampled lines")
            by_op = collections.Counter()
            for x in lines:
                by_op[opcode(x["sass"])] += samples(x)
            out.append("  by opcode: " + ", ".join(f"{op} {v / total:.1%}" for op, v in by_op.most_common(12)))
            for x in sorted(lines, key=samples, reverse=True)[:top]:
                out.append(f"  {x['address']:>8} {samples(x) / total:6.1%}  {x['sass'][:90]}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cell", default="fwd 4096 64 0", help='"MODE N D CAUSAL"')
    ap.add_argument("--kernel", default="ws_fwd", help="ncu's kernel-name regex (the kernel to sample)")
    ap.add_argument("--out", type=Path, help="where the record goes (JSON)")
    ap.add_argument("--raw-dir", type=Path, help="also keep ncu's source-page CSV there")
    ap.add_argument("--table", type=Path, nargs="+", help="print records instead of profiling")
    ap.add_argument("--top", type=int, default=20)
    a = ap.parse_args(argv)
    if a.table:
        print("\n".join(table(json.loads(p.read_text(encoding="utf-8")), a.top) for p in a.table))
    elif a.out:
        print(table(profile(a.cell, a.kernel, a.out, a.raw_dir), a.top))
    else:
        ap.error("give --out FILE.json (profile, GPU) or --table FILE.json")


if __name__ == "__main__":
    main()
