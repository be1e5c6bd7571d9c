"""Measured HBM bytes: run flashviz.bench.hbm_probe under Nsight Compute and record DRAM bytes per call.

    python -m flashviz.bench --preset h200-hbm [--out assets/hbm/nvidia-h200-hbm.json]
    python -m flashviz.bench.hbm [--n 1024 4096] [--d 64 128] [--impls naive teaching fast] [--heads 16] ...

What runs: one child process, `ncu --target-processes all --nvtx --nvtx-include "flashviz-measured/"
--metrics dram__bytes_read.sum,dram__bytes_write.sum --cache-control none --clock-control none --csv
--print-units base --log-file <csv> python -m flashviz.bench.hbm_probe ... --manifest <json>`; then
`parse_ncu_csv` reads the per-kernel rows, `split_cells` cuts them at the probe's flush kernels and pairs
them with the manifest, and `build_dataset` adds provenance (flashviz/bench/provenance.py) and ncu's version.
The dataset schema and its loader live in flashviz/bench/hbm_dataset.py. No streamlit, no plotly.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flashviz.infra.errors import DatasetError

from .hbm_dataset import DATASET_KIND, DEFAULT_DIR, SCHEMA_VERSION, validate_hbm_dataset
from .hbm_probe import CLEAN_KERNEL, FLUSH_KERNEL, RANGE

METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
UNIT_SCALE = {"byte": 1, "kbyte": 10**3, "mbyte": 10**6, "gbyte": 10**9, "tbyte": 10**12,
              "kibyte": 2**10, "mibyte": 2**20, "gibyte": 2**30}
PRESETS = {   # name -> probe arguments; h200-hbm: 24 calls, about a minute under ncu on the H200
    "h200-hbm": dict(impls=("naive", "teaching", "fast"), n=(1024, 4096), d=(64, 128), causal="both",
                     batch=1, heads=16),
    "hbm-small": dict(impls=("naive", "fast"), n=(1024,), d=(64,), causal="off", batch=1, heads=4),
}


class NcuError(DatasetError):
    """ncu's output could not be turned into measurements (missing columns, rows, flush markers)."""


def ncu_command(ncu: str, probe_args: list[str], csv_path: str, python: str = sys.executable) -> list[str]:
    """The full command line: ncu watching the probe, only kernels inside the NVTX range RANGE."""
    return [ncu, "--target-processes", "all", "--nvtx", "--nvtx-include", f"{RANGE}/",
            "--metrics", ",".join(METRICS), "--cache-control", "none", "--clock-control", "none",
            "--csv", "--print-units", "base", "--log-file", csv_path,
            python, "-m", "flashviz.bench.hbm_probe", *probe_args]


def _to_bytes(value: str, unit: str, where: str) -> int:
    text = value.strip().replace(",", "")
    scale = UNIT_SCALE.get(unit.strip().lower())
    if scale is None:
        raise NcuError(f"{where}: unknown unit {unit!r} (expected byte, Kbyte, Mbyte, ...)")
    try:
        x = float(text)
    except ValueError:
        raise NcuError(f"{where}: metric value {value!r} is not a number") from None
    if not x >= 0 or x == float("inf"):
        raise NcuError(f"{where}: metric value {value!r} is not a finite non-negative number")
    return int(round(x * scale))


def parse_ncu_csv(text: str) -> list[dict]:
    """ncu --csv output -> [{"id", "name", "read_bytes", "write_bytes"}] per profiled kernel, in launch order.

    Lines that are not CSV rows (==PROF== notes, the program's own prints) are skipped; the header is the
    first row that names "ID", "Kernel Name", "Metric Name", "Metric Unit" and "Metric Value"."""
    rows = [ln for ln in text.splitlines() if ln.startswith('"')]
    if not rows:
        raise NcuError("ncu printed no CSV rows (did any kernel run inside the NVTX range?)")
    reader = csv.reader(io.StringIO("\n".join(rows)))
    header, kernels = None, {}
    need = ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")
    for lineno, row in enumerate(reader, 1):
        if header is None:
            if all(c in row for c in need):
                header = {c: row.index(c) for c in need}
            continue
        if len(row) < len(header) or row == list(need):
            continue
        get = lambda c: row[header[c]]                               # noqa: E731
        metric = get("Metric Name")
        if metric not in METRICS:
            continue
        try:
            kid = int(get("ID"))
        except ValueError:
            raise NcuError(f"CSV row {lineno}: kernel ID {get('ID')!r} is not an integer") from None
        k = kernels.setdefault(kid, {"id": kid, "name": get("Kernel Name"), "read_bytes": None, "write_bytes": None})
        field = "read_bytes" if metric == METRICS[0] else "write_bytes"
        k[field] = _to_bytes(get("Metric Value"), get("Metric Unit"), f"CSV row {lineno} ({metric})")
    if header is None:
        raise NcuError("ncu's CSV has no header with ID, Kernel Name, Metric Name, Metric Unit, Metric Value")
    out = [kernels[k] for k in sorted(kernels)]
    for k in out:
        for field in ("read_bytes", "write_bytes"):
            if k[field] is None:
                raise NcuError(f"kernel {k['id']} ({k['name'][:60]}) has no {field.replace('_', ' ')} metric")
    return out


def split_cells(kernels: list[dict], manifest: dict) -> list[dict]:
    """Pair the profiled kernels with the manifest's cells: each cell ends with one flush kernel.

    -> one dict per cell: the manifest's fields + kernels (attention kernels only), read_bytes and
    write_bytes (their sums), flush_write_bytes (dirty lines written back during the flush), flush_read_bytes."""
    if any(CLEAN_KERNEL in k["name"] for k in kernels):
        raise NcuError(f"ncu profiled the clean-sweep kernel {CLEAN_KERNEL}, which runs outside the NVTX range: "
                       "the --nvtx-include filter did not apply, so the kernels cannot be attributed")
    cells = manifest["cells"]
    groups, current = [], []
    for k in kernels:
        current.append(k)
        if FLUSH_KERNEL in k["name"]:
            groups.append(current)
            current = []
    if current:
        raise NcuError(f"{len(current)} profiled kernels after the last flush kernel: the output is cut short")
    if len(groups) != len(cells):
        raise NcuError(f"ncu saw {len(groups)} measured calls but the probe ran {len(cells)}")
    out = []
    for cell, group in zip(cells, groups):
        flush, attn = group[-1], group[:-1]
        if not attn:
            raise NcuError(f"no attention kernel was profiled for {cell['impl']} N={cell['n']} d={cell['d']}")
        out.append({**cell,
                    "kernels": [{"name": k["name"][:200], "read_bytes": k["read_bytes"],
                                 "write_bytes": k["write_bytes"]} for k in attn],
                    "read_bytes": sum(k["read_bytes"] for k in attn),
                    "write_bytes": sum(k["write_bytes"] for k in attn),
                    "flush_write_bytes": flush["write_bytes"], "flush_read_bytes": flush["read_bytes"]})
    return out


def ncu_version(ncu: str) -> str | None:
    try:
        r = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
    return lines[-1][:200] if lines else None


def build_dataset(cells: list[dict], manifest: dict, *, provenance: dict, command: str, elapsed_s: float,
                  ncu: str | None, ncu_cmd: list[str]) -> dict:
    """The dataset dict (flashviz/bench/hbm_dataset.py schema), validated."""
    for c in cells:
        c.pop("finite", None)
    data = {"schema_version": SCHEMA_VERSION, "kind": DATASET_KIND, "complete": True,
            "elapsed_s": float(elapsed_s),
            "provenance": {**provenance, "command": command, "timer": "none (Nsight Compute DRAM counters)",
                           "ncu_version": ncu},
            "method": {"metrics": list(METRICS), "nvtx_range": RANGE, "cache_control": "none",
                       "clock_control": "none", "l2_bytes": int(manifest["l2_bytes"]),
                       "flush_read_bytes": int(manifest["flush_read_bytes"]),
                       "flush_programs": int(manifest["flush_programs"]),
                       "ncu_command": " ".join(ncu_cmd)[:1000]},
            "cells": cells}
    return validate_hbm_dataset(data)


def _probe_args(spec: dict, manifest: str) -> list[str]:
    return ["--impl", *spec["impls"], "--n", *map(str, spec["n"]), "--d", *map(str, spec["d"]),
            "--causal", spec["causal"], "--batch", str(spec["batch"]), "--heads", str(spec["heads"]),
            "--manifest", manifest]


def record(spec: dict, out: Path, command: str, ncu: str = "ncu", timeout_s: float = 900,
           keep_csv: str | None = None) -> dict:
    """Run the probe under ncu, parse, write `out` (JSON). Raises NcuError / SystemExit with the reason.
    keep_csv: also copy ncu's raw CSV there (for an audit of the parse)."""
    from . import provenance as prov
    exe = shutil.which(ncu) or (ncu if os.path.isfile(ncu) else None)
    if exe is None:
        raise SystemExit(f"'{ncu}' (Nsight Compute) is not on PATH: it is needed to read DRAM counters")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="flashviz-hbm-") as tmp:
        csv_path, man_path = os.path.join(tmp, "ncu.csv"), os.path.join(tmp, "manifest.json")
        cmd = ncu_command(exe, _probe_args(spec, man_path), csv_path)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(prov.REPO), os.environ.get("PYTHONPATH", "")])}
        print("flashviz.bench.hbm: " + " ".join(cmd), file=sys.stderr, flush=True)
        r = subprocess.run(cmd, cwd=prov.REPO, env=env, capture_output=True, text=True, timeout=timeout_s)
        if r.returncode != 0 or not os.path.isfile(man_path):
            tail = (r.stderr or r.stdout)[-3000:]
            raise SystemExit(f"ncu or the probe failed (exit {r.returncode}):\n{tail}")
        text = Path(csv_path).read_text(encoding="utf-8", errors="replace") if os.path.isfile(csv_path) else ""
        if '"Metric Value"' not in text:
            text = r.stdout                                   # an ncu that ignored --log-file
        manifest = json.loads(Path(man_path).read_text(encoding="utf-8"))
        if keep_csv:
            Path(keep_csv).write_text(text, encoding="utf-8")
    cells = split_cells(parse_ncu_csv(text), manifest)
    import torch
    p = prov.collect("cuda" if torch.cuda.is_available() else "cpu", command, "ncu")
    data = build_dataset(cells, manifest, provenance=p, command=command, elapsed_s=time.perf_counter() - t0,
                         ncu=ncu_version(exe), ncu_cmd=cmd)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = out.with_name(out.name + ".tmp")
    tmp_out.write_text(json.dumps(data, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp_out, out)
    return data


def table(data: dict) -> str:
    """A plain text summary: one line per cell (MB = 10^6 bytes)."""
    lines = [f"{'impl':9} {'N':>6} {'d':>4} {'causal':6} {'read MB':>10} {'write MB':>10} {'flushed MB':>10} kernels"]
    for c in data["cells"]:
        lines.append(f"{c['impl']:9} {c['n']:>6} {c['d']:>4} {str(c['causal']):6} {c['read_bytes'] / 1e6:>10.2f} "
                     f"{c['write_bytes'] / 1e6:>10.2f} {c['flush_write_bytes'] / 1e6:>10.2f} {len(c['kernels'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None, *, preset: str | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m flashviz.bench.hbm", description=__doc__.split("\n")[0])
    p.add_argument("--preset", choices=sorted(PRESETS), default=preset or "h200-hbm")
    p.add_argument("--impls", nargs="+", choices=("naive", "teaching", "fast"))
    p.add_argument("--n", type=int, nargs="+")
    p.add_argument("--d", type=int, nargs="+")
    p.add_argument("--causal", choices=("on", "off", "both"))
    p.add_argument("--batch", type=int)
    p.add_argument("--heads", type=int)
    p.add_argument("--ncu", default="ncu", help="the Nsight Compute command (default: ncu on PATH)")
    p.add_argument("--out", help="JSON path (default assets/hbm/<device>-hbm-<date>.json)")
    p.add_argument("--keep-csv", help="also write ncu's raw CSV to this path")
    args, _ = p.parse_known_args(argv)
    spec = dict(PRESETS[args.preset])
    for k in ("impls", "n", "d", "causal", "batch", "heads"):
        if getattr(args, k) is not None:
            spec[k] = getattr(args, k)
    if args.out:
        out = Path(args.out)
    else:
        import datetime

        import torch
        name = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
        slug = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
        out = DEFAULT_DIR / f"{slug}-hbm-{datetime.date.today().isoformat()}.json"
    from .provenance import command_line
    given = list(sys.argv[1:] if argv is None else argv)
    if "--preset" not in given:                  # the recorded command must select this mode again
        given = ["--preset", args.preset, *given]
    command = command_line(["", *given])
    try:
        data = record(spec, out, command, ncu=args.ncu, keep_csv=args.keep_csv)
    except DatasetError as e:
        print(f"flashviz.bench.hbm: {e}", file=sys.stderr)
        return 2
    print(table(data))
    print(f"wrote {out} ({len(data['cells'])} cells, {data['elapsed_s']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
