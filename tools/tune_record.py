"""What every tune tool writes at the head of its output: the NVIDIA driver version and one record header
(command, device, torch, triton, driver, CUDA, commit, date); and time_rounds, the interleaved rounds they time
candidates in. A leaf module: the tune tools import it, it imports none of them."""
from __future__ import annotations

import os
import subprocess
import time


def driver() -> str | None:
    """The NVIDIA driver version for the record (None where nvidia-smi cannot say)."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None


def commit() -> str | None:
    """FLASHVIZ_GIT_COMMIT (a device copy's .git, where it has one, is the last landed commit, not the tree it
    runs), else the checkout's HEAD, else None."""
    if os.environ.get("FLASHVIZ_GIT_COMMIT"):
        return os.environ["FLASHVIZ_GIT_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def switches() -> dict:
    """The ws kernels' FLASHVIZ_WS_* environment switches set for this run (kernels/ws_schedule.py reads them)."""
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith("FLASHVIZ_WS_") and v}


def record_header(tool: str, argv, **extra) -> dict:
    """A tune file's provenance (command, device, torch, triton, driver, CUDA, commit, date, the ws kernels'
    FLASHVIZ_WS_* switches set, from 2026-12-05), its shape and timer, extra fields, and the rows to fill."""
    import torch
    import triton
    return dict(command=f"python -m tools.{tool} " + " ".join(argv), device=torch.cuda.get_device_name(0),
                torch=torch.__version__, triton=triton.__version__, driver=driver(), cuda=torch.version.cuda,
                git_commit=commit(), date=time.strftime("%Y-%m-%d", time.gmtime()),
                switches=switches(), batch=4, heads=32, dtype="float16", **extra,
                timer="triton.testing.do_bench median (L2 cleared per run)", rows=[])


def text_header(tool: str, argv) -> str:
    """The '#' header of a recorded text output: device, driver, CUDA, torch, triton, commit, date, command."""
    import torch
    import triton
    return (f"# {torch.cuda.get_device_name(0)} (driver {driver()}, CUDA {torch.version.cuda}), torch "
            f"{torch.__version__}, triton {triton.__version__}, commit {commit() or '?'}, "
            f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())};\n# python -m tools.{tool} " + " ".join(argv))


def time_rounds(runs: dict, rounds: int, bench) -> dict:
    """{name: [ms of each round]} (or the error's text): every round times each run once with bench(fn), the order
    rotated by one per round, so no run always goes first or right after the same neighbour; a run that raises is
    timed no further. Several rounds show the spread that one do_bench median hides."""
    names = list(runs)
    out: dict = {n: [] for n in names}
    for r in range(rounds):
        k = r % len(names) if names else 0
        for name in names[k:] + names[:k]:
            if isinstance(out[name], str):
                continue
            try:
                out[name].append(bench(runs[name]))
            except Exception as e:  # noqa: BLE001 -- recorded for that run, the others go on
                out[name] = error_text(e)
    return out


def error_text(e: Exception) -> str:
    """A failed run's record: the exception's type and its message's first line."""
    return f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:200]}"
