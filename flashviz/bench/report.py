"""Plain-text table of a dataset: one block per configuration, one aligned row per impl; its Markdown tables; and
(`--benchmarks`) docs/BENCHMARKS.md, every long table of the recordings (flashviz/bench/benchmarks_doc.py).

    python -m flashviz.bench.report FILE [--markdown [--n N ...]]
    python -m flashviz.bench.report --benchmarks [--check]
"""
from __future__ import annotations

from .markdown_tables import MD_BASE, MD_NAMES, markdown  # noqa: F401 (API: the Markdown tables)
from .spec import config_key

MIB = 1024 ** 2
HEADER = (f"  {'impl':<15}{'ms':>10}{'TFLOP/s':>9}{'peak MiB':>11}{'/ideal':>8}{'vs cuDNN':>9}{'vs flash':>9}{'vs naive':>9}"
          f"{'rel.err':>9}  note")


def _num(x, fmt: str, width: int) -> str:
    return f"{'-' if x is None else format(x, fmt):>{width}}"


def config_title(c: dict) -> str:
    return (f"N={c['n']} d={c['d']} {'causal' if c['causal'] else 'full'} {c['dtype']} B={c['batch']} "
            f"H={c['heads']} {c['mode']}  (ideal {c['ideal_bytes'] / MIB:.1f} MiB, {c['flops'] / 1e12:.3g} TFLOP)")


def _note(c: dict, width: int = 44) -> str:
    if c["status"] == "oom":
        return "OOM"
    if c["status"] != "ok":
        return f"{c['status']}: {c['message'] or ''}"[:width]
    if c["correct"] is False:
        return "WRONG (output differs from reference)"
    return (c["message"] or "")[:width]


def cell_row(c: dict) -> str:
    return (f"  {c['impl']:<15}" + _num(c["ms"], ".3f", 10) + _num(c["tflops"], ".4g", 9)
            + _num(None if c["peak_extra_bytes"] is None else c["peak_extra_bytes"] / MIB, ".1f", 11)
            + _num(c["peak_over_ideal"], ".2f", 8) + _num(c["speedup_vs_cudnn"], ".2f", 9)
            + _num(c["speedup_vs_flash"], ".2f", 9)
            + _num(c["speedup_vs_naive"], ".2f", 9) + _num(c["rel_err"], ".1e", 9) + "  " + _note(c)).rstrip()


def table(dataset: dict) -> str:
    """Every configuration in the dataset, in recorded order, with ratios (speed-up = t_base / t)."""
    blocks: dict[tuple, list[dict]] = {}
    for c in dataset["cells"]:
        blocks.setdefault(config_key(c), []).append(c)
    lines = []
    for cells in blocks.values():
        lines += [config_title(cells[0]), HEADER] + [cell_row(c) for c in cells]
    p = dataset["provenance"]
    lines.append(f"device {p['device_name']} ({p['device']}), torch {p['torch']}, triton {p['triton']}, "
                 f"commit {str(p['git_commit'])[:12]}{' (dirty)' if p['git_dirty'] else ''}; timer: {p['timer']}")
    lines += ["", pivot(dataset, "tflops", ".4g")]
    cells = dataset["cells"]
    if any(c["speedup_vs_cudnn"] is not None for c in cells):
        lines += ["", pivot(dataset, "speedup_vs_cudnn", ".2f")]
    if any(c.get("graph_ms") is not None for c in cells):    # CUDA-graph replays: launch cost removed
        lines += ["", pivot(dataset, "graph_tflops", ".4g")]
        if any(c.get("graph_speedup_vs_cudnn") is not None for c in cells):
            lines += ["", pivot(dataset, "graph_speedup_vs_cudnn", ".2f")]
    if any(c["peak_extra_bytes"] is not None for c in cells):
        lines += ["", pivot(dataset, "peak_extra_mib", ".1f")]
    if not dataset.get("complete", True):
        lines.append(f"INCOMPLETE: {dataset.get('stopped', 'run cut short')}")
    return "\n".join(lines)


SHORT = {"sdpa-flash": "flash", "sdpa-cudnn": "cudnn", "sdpa-efficient": "effic", "sdpa-math": "math",
         "teaching": "teach"}


def pivot(dataset: dict, value: str = "tflops", fmt: str = ".1f") -> str:
    """Compact summary: one row per configuration, one column per impl (OOM / n/a / ERR; * = wrong)."""
    impls, rows = [], {}
    for c in dataset["cells"]:
        if c["impl"] not in impls:
            impls.append(c["impl"])
        rows.setdefault(config_key(c), {})[c["impl"]] = c

    def show(c):
        if c is None:
            return ""
        if c["status"] != "ok":
            return {"oom": "OOM", "unavailable": "n/a"}.get(c["status"], "ERR")
        v = c["peak_extra_bytes"] / MIB if value == "peak_extra_mib" and c["peak_extra_bytes"] is not None \
            else c.get(value)
        return ("-" if v is None else format(v, fmt)) + ("*" if c["correct"] is False else "")

    head = f"{'N':>6} {'d':>4} {'causal':>6} {'dtype':>8}" + "".join(f"{SHORT.get(i, i)[:8]:>9}" for i in impls)
    lines = [f"{value} by impl (* = output wrong)", head]
    for key, by in rows.items():
        n, d, causal, dtype = key[:4]
        lines.append(f"{n:>6} {d:>4} {'yes' if causal else 'no':>6} {dtype:>8}"
                     + "".join(f"{show(by.get(i)):>9}" for i in impls))
    return "\n".join(lines)


def progress_line(done: int, total: int, c: dict) -> str:
    what = f"{c['ms']:.3f} ms" if c["status"] == "ok" else c["status"]
    return (f"[{done}/{total}] {c['impl']} N={c['n']} d={c['d']} {'causal' if c['causal'] else 'full'} "
            f"{c['dtype']} B={c['batch']} H={c['heads']} {c['mode']}: {what}")


def main(argv=None) -> int:
    import argparse

    from .dataset import load_dataset
    ap = argparse.ArgumentParser(description="Print a recorded speed dataset (plain text or Markdown tables), or "
                                             "write docs/BENCHMARKS.md from every recording.")
    ap.add_argument("file", nargs="?")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables, per mode")
    ap.add_argument("--n", type=int, nargs="+", help="only these N (Markdown)")
    ap.add_argument("--benchmarks", action="store_true", help="write docs/BENCHMARKS.md from assets/ and the tables")
    ap.add_argument("--check", action="store_true", help="--benchmarks: only say whether it is in step (exit 1 if not)")
    a = ap.parse_args(argv)
    if a.benchmarks:
        from .benchmarks_doc import write
        return write(check=a.check)
    if not a.file:
        ap.error("give a FILE, or --benchmarks")
    data = load_dataset(a.file)
    if not a.markdown:
        print(table(data))
    else:
        for m in dict.fromkeys(c["mode"] for c in data["cells"]):
            print(f"\n{m}:\n" + markdown(data, m, ns=a.n))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
