"""Where and how a dataset was measured: device, driver, library versions, commit, command (no hostname)."""
from __future__ import annotations

import datetime
import hashlib
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _run(cmd: list[str], cwd=None) -> str | None:
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def _version(module: str) -> str | None:
    try:
        return __import__(module).__version__
    except Exception:                                    # noqa: BLE001 - absent or broken: unknown
        return None


def _dist_version(dist: str) -> str | None:
    """An installed distribution's version by its PyPI name (None where it is not installed)."""
    import importlib.metadata
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def driver_version() -> str:
    try:
        import pynvml                                    # optional
        pynvml.nvmlInit()
        v = pynvml.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else str(v)
    except Exception:                                    # noqa: BLE001
        pass
    out = _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    return out.splitlines()[0].strip() if out else "unknown"


def git_state() -> tuple[str, bool | None]:
    """(commit, dirty): $FLASHVIZ_GIT_COMMIT (+ $FLASHVIZ_GIT_DIRTY) when set, else git, else "unknown".

    The variables win because a copied checkout (a GPU machine's) may carry no .git or a stale one whose HEAD
    is not the code that ran; `source_digest` below lets anyone check the claim against that commit."""
    env = os.environ.get("FLASHVIZ_GIT_COMMIT", "").strip()
    if env:
        dirty = os.environ.get("FLASHVIZ_GIT_DIRTY", "").strip().lower()
        return env, {"1": True, "true": True, "0": False, "false": False}.get(dirty)
    commit = _run(["git", "rev-parse", "HEAD"], cwd=REPO) if (REPO / "pyproject.toml").is_file() else None
    if commit:
        status = _run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO)
        return commit, (bool(status) if status is not None else None)
    return "unknown", None


def source_digest(root: Path = REPO) -> str | None:
    """sha256 over the measured code (every .py under flashviz/ and kernels/, by relative path), so a dataset
    can be matched to a commit: `python -m flashviz.bench.provenance` at that commit prints the same digest."""
    files = sorted(p for top in ("flashviz", "kernels") for p in (root / top).rglob("*.py"))
    if not files:
        return None
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def command_line(argv: list[str] | None = None) -> str:
    """The command as one would type it again: `python -m flashviz.bench <args>`."""
    argv = sys.argv if argv is None else argv
    return shlex.join(["python", "-m", "flashviz.bench", *argv[1:]])


def collect(device: str, command: str | None, timer: str) -> dict:
    import torch
    p = dict(device=device, device_name="cpu", sm_count=None, total_memory_bytes=None, compute_capability=None,
             driver_version=None, cuda_version=torch.version.cuda, cudnn_version=None)
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        p.update(device_name=props.name, sm_count=int(props.multi_processor_count),
                 total_memory_bytes=int(props.total_memory), compute_capability=f"{props.major}.{props.minor}",
                 driver_version=driver_version(), cudnn_version=torch.backends.cudnn.version())
    else:
        p["device_name"] = platform.processor() or platform.machine() or "cpu"
    commit, dirty = git_state()
    p.update(torch=torch.__version__, triton=_version("triton"), numpy=_version("numpy"),
             python=platform.python_version(), platform=platform.platform(),
             created_utc=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             git_commit=commit, git_dirty=dirty, source_sha256=source_digest(), command=command or command_line(),
             timer=timer, cpu_threads=torch.get_num_threads(), flashviz=_version("flashviz"),
             flash_attn_4=_dist_version("flash-attn-4"), cutlass_dsl=_dist_version("nvidia-cutlass-dsl"))
    p.update(ws_fields())
    try:                                                 # which Triton backward autograd used (fwd+bwd, bwd cells)
        from flashviz_kernels import api
        p["backward_kernel"] = api.backward_label()
    except Exception as e:                               # noqa: BLE001 - provenance never fails a run
        p["backward_kernel"] = f"unknown ({type(e).__name__})"
    return p


def ws_fields() -> dict:
    """Whether the Gluon 'ws' kernel (and impl='fast' through it) could run where this was measured, and why not,
    and its schedule switches (which launches ran persistent, consumer warpgroups per (d, causal), which ran
    OVERLAP; ws_pingpong and ws_half, from 2026-12-03: which ran PINGPONG and HALF's half steps, or why none ran
    HALF; ws_p_pack, from 2026-12-05: where key tile 0's P was packed by inline asm; ws_early_rescale, from
    2026-12-05: where O was rescaled right after P·V's wait; ws_local_sum, from 2026-12-05 (later that day): where
    each lane kept its share of a row's sum until the tile's end; ws_split_bars, likewise: where V's ring barriers and
    the turn barriers had allocations of their own; ws_pair_max, from 2026-12-05 (stop 26): where a thread's two rows'
    maxima were joined before their exponentials; ws_lpt, from 2026-12-06: which causal launches started a head
    group's longest tiles first; ws_skip, from 2026-12-06 (stop 34): where each consumer walked only its own rows'
    key tiles; ws_thread_arrive and ws_bwd_thread_arrive, from 2026-12-06 (stop 40): where each consumer thread of
    the forward (backward) arrived on its empty barriers itself; ws_half_tail, from 2026-12-07 (stop 44): where
    HALF's last half step issued its Q·Kᵀ behind the last whole tile's P·V; ws_q_ahead, from 2026-12-07 (stop 45):
    where a persistent producer loaded the next query tile's Q early; ws_walk, from 2026-12-07 (stop 46): where a
    persistent program stepped its tile order instead of decoding each tile, and ws_fresh: where its consumers read
    the sizes afresh each query tile; ws_named, from 2026-12-07 (stop 48): where PINGPONG's turns went through
    named barriers; ws_poly and ws_mma_sum, from 2026-12-08 (stop 50): where one exponential in eight ran on the FMA
    pipe, and where row sums came from a wgmma against ones): strings, as every free provenance field."""
    try:
        from flashviz_kernels import ws
        from flashviz_kernels.gates import version_label as gates_label
        st = ws.status()
    except Exception as e:                               # noqa: BLE001 - a broken kernels package: say so
        return dict(ws_status=f"unknown: {type(e).__name__}: {e}"[:300], ws_verified_triton=None,
                    fast_uses_ws=None, ws_schedule=None, ws_pingpong=None, ws_half=None,
                    ws_p_pack=None, ws_early_rescale=None, ws_local_sum=None,
                    ws_split_bars=None, ws_pair_max=None, ws_lpt=None, ws_skip=None,
                    ws_thread_arrive=None, ws_half_tail=None, ws_q_ahead=None, ws_walk=None, ws_fresh=None,
                    ws_named=None, ws_poly=None, ws_mma_sum=None,
                    ws_bwd_thread_arrive=None)
    return dict(ws_status=("active" if st["active"] else f"inactive: {st['reason']}")[:300],
                ws_verified_triton=", ".join(map(gates_label, st["verified_triton"])),
                fast_uses_ws=", ".join(st["fast_uses_ws"]) or "none",
                ws_schedule=(f"persistent: {st['persistent']}; consumers: {st['consumers']}; "
                             f"overlap: {st['overlap']}")[:300],
                ws_pingpong=st["pingpong"][:300], ws_half=st["half"][:300], ws_p_pack=st["p_pack"][:300],
                ws_early_rescale=st["early_rescale"][:300], ws_local_sum=st["local_sum"][:300],
                ws_split_bars=st["split_bars"][:300], ws_pair_max=st["pair_max"][:300], ws_lpt=st["lpt"][:300],
                ws_skip=st["skip"][:300], ws_thread_arrive=st["thread_arrive"][:300],
                ws_half_tail=st["half_tail"][:300], ws_q_ahead=st["q_ahead"][:300], ws_walk=st["walk"][:300],
                ws_fresh=st["fresh"][:300], ws_named=st["named"][:300], ws_poly=st["poly"][:300],
                ws_mma_sum=st["mma_sum"][:300],
                ws_bwd_thread_arrive=st["bwd_thread_arrive"][:300])


def device_slug(p: dict) -> str:
    """'NVIDIA H200' -> 'nvidia-h200'; for the default output file name."""
    name = p["device_name"] if p["device"] == "cuda" else "cpu"
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-") or "device"


if __name__ == "__main__":
    print(source_digest())
