"""`python -m flashviz.bench`: sweep, print a table, write a JSON dataset (see flashviz.bench for the schema).

    python -m flashviz.bench --preset h200 --out assets/benchmarks/nvidia-h200.json
    python -m flashviz.bench --preset h200-hbm          # DRAM bytes per call under ncu (flashviz/bench/hbm.py)
    python -m flashviz.bench --preset h200-variants     # window, softcap, ALiBi, GQA, documents vs FlexAttention
    python -m flashviz.bench --preset h200-timeline     # inside one CTA: proton traces (flashviz/bench/timeline.py)
    python -m flashviz.bench --n 1024 4096 --d 64 128 --causal both --dtype float16 --batch 4 --heads 32 \
        --impls naive sdpa-flash sdpa-cudnn teaching fast

Without --preset the device's default ("gpu-small" with CUDA, "cpu" without) is the base; every grid flag
replaces that field in every grid of the base (so `--preset h200 --impls fast` narrows the recorded sweep).
The file is rewritten after every configuration, so a run cut short keeps what it measured ("complete": false).
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import sys
from pathlib import Path

from .jsonio import write_json
from .spec import ALL_IMPLS, DTYPES, MODES, PRESETS, preset_spec

CAUSAL = {"on": (True,), "off": (False,), "both": (False, True), "true": (True,), "false": (False,),
          "yes": (True,), "no": (False,)}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m flashviz.bench", description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", choices=sorted(PRESETS), help="a named sweep (h200 = the recorded one); "
                   "h200-hbm records DRAM bytes under Nsight Compute instead (flashviz/bench/hbm.py); "
                   "h200-variants / cpu-variants time attention variants vs FlexAttention (variants_bench.py)")
    p.add_argument("--n", type=int, nargs="+", help="sequence lengths N")
    p.add_argument("--d", type=int, nargs="+", help="head dims d")
    p.add_argument("--causal", nargs="+", choices=sorted(CAUSAL), help="on, off or both")
    p.add_argument("--dtype", nargs="+", choices=DTYPES)
    p.add_argument("--batch", type=int, nargs="+")
    p.add_argument("--heads", type=int, nargs="+")
    p.add_argument("--impls", nargs="+", choices=ALL_IMPLS)
    p.add_argument("--mode", nargs="+", choices=MODES, help="fwd (default) and/or fwd+bwd (a training step)")
    p.add_argument("--warmup-ms", type=float, help="do_bench warm-up budget per cell (ms)")
    p.add_argument("--rep-ms", type=float, help="do_bench repetition budget per cell (ms)")
    p.add_argument("--min-reps", type=int, help="timed runs per cell at least (default 5)")
    p.add_argument("--rounds", type=int, help="time each configuration's impls in this many interleaved rounds")
    p.add_argument("--seed", type=int)
    p.add_argument("--no-check", action="store_true", help="skip the float64 correctness check")
    p.add_argument("--budget-s", type=float, help="start no new configuration after this many seconds")
    p.add_argument("--out", help="JSON path (default assets/benchmarks/<device>-<date>.json)")
    p.add_argument("--quiet", action="store_true", help="no per-cell progress on stderr")
    return p


def build_spec(args):
    from .measure import device_kind
    name = args.preset or ("gpu-small" if device_kind() == "cuda" else "cpu")
    spec = preset_spec(name, warmup_ms=args.warmup_ms, rep_ms=args.rep_ms, min_reps=args.min_reps,
                       rounds=args.rounds, seed=args.seed, budget_s=args.budget_s)
    for k in ("min_reps", "rounds"):
        if getattr(args, k) is not None and getattr(args, k) < 1:
            raise SystemExit(f"--{k.replace('_', '-')} must be at least 1")
    if args.preset is None:
        spec = dataclasses.replace(spec, preset=None)
    if args.no_check:
        spec = dataclasses.replace(spec, check=False)
    fields = {k: getattr(args, k) for k in ("n", "d", "dtype", "batch", "heads", "impls", "mode")}
    fields = {k: tuple(v) for k, v in fields.items() if v}
    if args.causal:
        fields["causal"] = tuple(sorted({c for w in args.causal for c in CAUSAL[w]}))
    for k in ("n", "d", "batch", "heads"):
        if any(x < 1 for x in fields.get(k, ())):
            raise SystemExit(f"--{k} values must be positive")
    if fields:
        spec = dataclasses.replace(spec, grids=tuple(dataclasses.replace(g, **fields) for g in spec.grids))
    return spec


def _preset_in(raw: list[str], names) -> bool:
    return any(a.removeprefix("--preset=") in names for a in raw if a.startswith("--preset=")) or any(
        raw[i] == "--preset" and raw[i + 1] in names for i in range(len(raw) - 1))


def main(argv: list[str] | None = None) -> int:
    from . import hbm                                    # measured HBM bytes under Nsight Compute: its own mode
    from . import timeline                               # proton intra-kernel timelines: its own mode too
    from .variants_spec import PRESETS as VARIANT_PRESETS
    raw = list(sys.argv[1:] if argv is None else argv)
    if _preset_in(raw, VARIANT_PRESETS):                 # attention variants vs FlexAttention: its own mode
        from . import variants_bench
        return variants_bench.main(raw)
    for mode in (hbm, timeline):
        if _preset_in(raw, mode.PRESETS):
            return mode.main(raw)
    args = _parser().parse_args(argv)
    from . import provenance, report
    from .dataset import validate_dataset
    from .measure import device_kind, run_sweep
    from flashviz.infra.errors import DatasetError

    spec = build_spec(args)
    command = provenance.command_line(None if argv is None else ["", *argv])
    if args.out:
        out = Path(args.out)
    else:
        import torch
        dev = device_kind()
        name = torch.cuda.get_device_name(0) if dev == "cuda" else "cpu"
        slug = provenance.device_slug(dict(device=dev, device_name=name))
        out = Path("assets/benchmarks") / f"{slug}-{datetime.date.today().isoformat()}.json"
    print(f"flashviz.bench: {spec.n_cells()} cells -> {out}", file=sys.stderr, flush=True)

    def progress(done, total, cell):
        if not args.quiet:
            print(report.progress_line(done, total, cell), file=sys.stderr, flush=True)

    data = run_sweep(spec, progress_callback=progress, command=command, on_partial=lambda d: write_json(d, out))
    write_json(data, out)
    print(report.table(data), flush=True)
    try:
        validate_dataset(data)
    except DatasetError as e:                            # a bug in this package: say so loudly
        print(f"the dataset written fails validation: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({len(data['cells'])} cells, {data['elapsed_s']:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
