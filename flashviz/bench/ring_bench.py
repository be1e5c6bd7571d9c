"""`torchrun --nproc-per-node W -m flashviz.bench.ring_bench`: ring attention timed on 1..W GPUs, written as a dataset.

    torchrun --nproc-per-node 2 -m flashviz.bench.ring_bench --budget-s 400 --out ring.json      # the H200 recording
    torchrun --nproc-per-node 2 -m flashviz.bench.ring_bench --seq 64 128                        # CPU: gloo, tiny

For every sequence length N, world size w (w = 1 is plain single-GPU attention on rank 0), layout, causal on/off
and pass (forward; forward + backward) it times the ring on the first w ranks: CUDA events around each
repetition, a barrier before it, the slowest rank's time per repetition, the median over repetitions after
warm-up. With w > 1 the ring marks every step (kernels/ring.py's probe): the time a rank's compute stream waits for
the step's transfer after its blocks are done is the exposed transfer time, timed directly with CUDA events
(the slowest rank's sum per call, median over calls); the transfers are also timed alone (t_comm), so
    hidden = 1 - t_exposed / t_comm
is the share of the transfer time the compute hides. --compute-only also times the ring without transfers:
t - t_compute then adds to t_exposed whatever the transfers cost the kernels running beside them. Peak memory:
torch.cuda.max_memory_allocated per rank over the timed repetitions. --chunks S: the forward streams each K/V
block in S key sub-chunks (kernels/ring_chunked.py; 1 or none given is the plain ring, the kernel's default; "auto"
its memory-bounded rule; the S run is recorded per cell as "chunks"), and the backward of fwd+bwd cells is the chunked
one (kernels/ring_chunked_bwd.py; the same S, or under "auto" its own rule), its S recorded as "bwd_chunks" (1: the
plain backward). Cells run
cheapest first within each pass (forward first), and a cell whose predicted time (the same kind at the previous
N, scaled by N^2) would overrun --budget-s is recorded as skipped; the file is rewritten after every cell.
Imports no streamlit or plotly. Schema: flashviz/bench/ring_dataset.py; the timing (Env, WaitProbe, time_fn):
flashviz/bench/ring_timing.py.
"""
from __future__ import annotations

import argparse
import datetime
import shlex
import sys
import time
from pathlib import Path

from flashviz.bench.ring_dataset import KIND, LAYOUTS, MODES, SCHEMA_VERSION, validate_ring_dataset
from flashviz.bench.spec import DTYPES, flops
from flashviz.bench.ring_timing import Env, WaitProbe, time_fn

TARGET_NS = (32768, 65536, 131072, 262144, 524288)
CHECK_EPS = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 2e-3, "float64": 1e-9}   # fp32: TF32 dots on GPU
CAUSAL = {"on": (True,), "off": (False,), "both": (True, False)}


def _chunks_arg(text: str):
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--chunks takes an int or 'auto', not {text!r}") from None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="torchrun --nproc-per-node W -m flashviz.bench.ring_bench",
                                description=__doc__.split("\n")[0])
    # no flag may be a prefix of one of torchrun's (argparse would take "--n" for torchrun's "--nnodes" ...)
    p.add_argument("--seq", type=int, nargs="+", help=f"sequence lengths N (GPU default {TARGET_NS}; CPU 64 128)")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, help="H (GPU default 32; CPU 2)")
    p.add_argument("--head-dim", type=int, help="d (GPU default 128; CPU 16)")
    p.add_argument("--dtype", choices=DTYPES, help="GPU default float16; CPU float32")
    p.add_argument("--impl", choices=("naive", "sdpa", "teaching", "fast"), help="per block (GPU fast; CPU sdpa)")
    p.add_argument("--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS))
    p.add_argument("--causal", choices=sorted(CAUSAL), default="both")
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    p.add_argument("--worlds", type=int, nargs="+", help="world sizes to time (default 1..W)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs per measurement (compiles happen here)")
    p.add_argument("--reps", type=int, default=5, help="timed runs per measurement at most")
    p.add_argument("--min-reps", type=int, default=3, help="timed runs per measurement at least")
    p.add_argument("--rep-s", type=float, default=1.5, help="aim for about this many seconds of timed runs")
    p.add_argument("--budget-s", type=float, help="skip cells predicted to end after this many seconds")
    p.add_argument("--no-overlap", action="store_true", help="skip the transfer-only (and compute-only) loops")
    p.add_argument("--compute-only", action="store_true",
                   help="also time the ring without transfers (t - t_compute: waits plus any slowdown of the "
                        "kernels while transfers run)")
    p.add_argument("--chunks", type=_chunks_arg, help="key sub-chunks S on w > 1 (default and 1: the plain ring; "
                   "auto: the kernels' memory-bounded rules, forward sub-chunks of at most 256 MiB of K and V, "
                   "backward ones of 64 MiB); fwd+bwd cells then run the chunked backward too")
    p.add_argument("--check-n", type=int, default=2048, help="N of the float64 check before timing (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="JSON path (default assets/benchmarks/ring/<gpu>-x<W>-<date>.json)")
    p.add_argument("--quiet", action="store_true")
    return p


def measure(env: Env, cfg: dict, cell: dict, args) -> dict:
    """Time one cell on the ranks of its group; every rank of the group returns the same numbers (peak: max)."""
    from flashviz_kernels import ring
    torch, dist = env.torch, env.dist
    w, n, mode = cell["world"], cell["n"], cell["mode"]
    group = env.group(w)
    g = torch.Generator(device=env.device).manual_seed(args.seed + env.rank)
    shape = (cfg["batch"], cfg["heads"], n // w, cfg["d"])
    dt = getattr(torch, cfg["dtype"])
    q, k, v = (torch.randn(shape, generator=g, device=env.device, dtype=dt) for _ in range(3))
    dout = torch.randn(shape, generator=g, device=env.device, dtype=dt) if mode == "fwd+bwd" else None
    probe = WaitProbe(env) if w > 1 else None
    kw = dict(causal=cell["causal"], group=group, layout=cell["layout"], impl=cfg["impl"], probe=probe,
              chunks=cfg.get("chunks"))
    if mode == "fwd":
        total = lambda: ring.ring_attention(q, k, v, **kw)                     # noqa: E731
    else:
        qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))
        total = lambda: torch.autograd.grad(ring.ring_attention(qg, kg, vg, **kw)[0], (qg, kg, vg), dout)  # noqa
    reps = (args.warmup, args.reps, args.min_reps, args.rep_s)
    ms, p20, p80, n_reps, peak, exposed = time_fn(env, total, group, *reps, probe=probe)
    out = dict(ms=ms, ms_p20=p20, ms_p80=p80, reps=n_reps, ms_compute=None, ms_comm=None, ms_exposed=exposed,
               hidden=None, chunks=ring.chunk_count(q, cell["layout"], cfg.get("chunks")) if w > 1 else None)
    if mode == "fwd+bwd" and w > 1:                     # which backward ran: 1 plain, S > 1 chunked
        out["bwd_chunks"] = ring.backward_count(q, cell["layout"], cfg.get("chunks"))
    if w > 1 and cfg["overlap"]:
        def setup():                                    # the checks ring_attention runs, in every loop alike
            causal, scale, r = ring.prepare(q, k, v, causal=cell["causal"], sm_scale=None, group=group,
                                            layout=cell["layout"], impl=cfg["impl"])
            return dict(causal=causal, sm_scale=scale, impl=cfg["impl"], layout=cell["layout"], ring=r,
                        chunks=cfg.get("chunks"))
        o, lse = ring.forward_loop(q, k, v, **setup()) if mode == "fwd+bwd" else (None, None)

        def loop(m):
            lk = setup()
            ring.forward_loop(q, k, v, mode=m, **lk)
            if mode == "fwd+bwd":                       # the backward ring_attention's autograd runs for chunks
                ring.backward_loop(q, k, v, o, lse, dout, None, mode=m, **lk)
        if cfg["compute_only"]:
            out["ms_compute"] = time_fn(env, lambda: loop("compute"), group, *reps)[0]
        out["ms_comm"] = time_fn(env, lambda: loop("comm"), group, *reps)[0]
        if out["ms_comm"] > 0:
            out["hidden"] = 1.0 - exposed / out["ms_comm"]
    peaks = [0 if peak is None else peak, 0 if peak is None else -peak]
    t = torch.tensor(peaks, dtype=torch.int64, device=env.device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group)
    out["peak_bytes"], out["peak_bytes_min"] = (int(t[0]), int(-t[1])) if env.cuda else (None, None)
    elem = torch.finfo(dt).bits // 8
    out["input_bytes"] = (4 if mode == "fwd+bwd" else 3) * shape[0] * shape[1] * shape[2] * shape[3] * elem
    out["step_bytes"] = 2 * shape[0] * shape[1] * shape[2] * shape[3] * elem if w > 1 else 0
    return out


def check(env: Env, cfg: dict, w: int, layout: str, causal: bool, n: int) -> dict:
    """Ring vs the same kernel on one device vs float64, on 64 sampled rows of a small problem."""
    import flashviz_kernels as fk
    from flashviz_kernels import ring
    torch, dist = env.torch, env.dist
    g = torch.Generator().manual_seed(1234)
    dt = getattr(torch, cfg["dtype"])
    full = [torch.randn(cfg["batch"], cfg["heads"], n, cfg["d"], generator=g).to(env.device, dt) for _ in range(3)]
    mine = [ring.shard(x, env.rank, w, layout) for x in full]
    out = ring.ring_attention(*mine, causal=causal, group=env.group(w), layout=layout, impl=cfg["impl"],
                              chunks=cfg.get("chunks"))[0]
    parts = [torch.empty_like(out) for _ in range(w)]
    dist.all_gather(parts, out.contiguous(), group=env.group(w))
    got = ring.unshard(parts, layout)
    single = fk.attention(*full, causal=causal, impl=cfg["impl"] if cfg["impl"] != "sdpa" else "sdpa")
    rows = torch.randperm(n, generator=g)[:64].sort().values.to(env.device)
    q64, k64, v64 = (x.double() for x in full)
    s = torch.matmul(q64[:, :, rows], k64.transpose(-1, -2)) / cfg["d"] ** 0.5
    if causal:
        s = s.masked_fill(torch.arange(n, device=env.device)[None, :] > rows[:, None], float("-inf"))
    ref = torch.matmul(torch.softmax(s, -1), v64)
    err_ring = (got[:, :, rows].double() - ref).abs().max().item()
    err_single = (single[:, :, rows].double() - ref).abs().max().item()
    return dict(world=w, layout=layout, causal=causal, n=n, err_ring=err_ring, err_single=err_single,
                ok=bool(err_ring <= 2 * err_single + CHECK_EPS[cfg["dtype"]]))


def plan_cells(ns, worlds, layouts, causals, modes) -> list[dict]:
    """Forward first, then forward + backward; N ascending; within one N the headline cells first."""
    kinds = []
    for causal in causals:
        kinds.append((1, "contiguous", causal))
        for lay in sorted(layouts, key=lambda x: x != "zigzag" if causal else x != "contiguous"):
            kinds += [(w, lay, causal) for w in worlds if w > 1]
    return [dict(n=n, world=w, layout=lay, causal=c, mode=m) for m in modes for n in ns for w, lay, c in kinds
            if (w in worlds)]


def _predict(done: list[dict], cell: dict, per_run: float) -> float | None:
    """Seconds this cell will take, from the same kind at the largest smaller N (time ~ N^2)."""
    same = [c for c in done if c["status"] == "ok" and all(c[k] == cell[k] for k in ("world", "layout", "causal",
                                                                                       "mode"))]
    if not same:
        return None
    prev = max(same, key=lambda c: c["n"])
    t = prev["ms"] / 1e3 * (cell["n"] / prev["n"]) ** 2
    return t * per_run * (2.2 if cell["world"] > 1 and prev.get("ms_compute") is not None else 1.1)


def _provenance(env: Env, command: str) -> dict:
    from flashviz.bench import provenance
    torch = env.torch
    p = provenance.collect("cuda" if env.cuda else "cpu", command,
                           "CUDA events per repetition, barrier before each, slowest rank, median" if env.cuda else
                           "perf_counter per repetition, barrier before each, slowest rank, median")
    names = [None] * env.world
    env.dist.all_gather_object(names, torch.cuda.get_device_name() if env.cuda else p["device_name"], group=env.ctrl)
    nccl = None
    if env.cuda:
        v = torch.cuda.nccl.version()
        nccl = ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)
    from flashviz_kernels.ring_block import merge_label
    p.update(backend=env.backend, nccl_version=nccl, world_size=env.world, gpu_names=", ".join(names),
             ring_merge=merge_label(env.cuda))
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    env = Env()
    cpu = not env.cuda
    cfg = dict(batch=args.batch, heads=args.heads or (2 if cpu else 32), d=args.head_dim or (16 if cpu else 128),
               dtype=args.dtype or ("float32" if cpu else "float16"), impl=args.impl or ("sdpa" if cpu else "fast"),
               warmup=args.warmup, reps=args.reps, min_reps=min(args.min_reps, args.reps), rep_s=args.rep_s,
               budget_s=args.budget_s, seed=args.seed, overlap=not args.no_overlap,
               compute_only=args.compute_only and not args.no_overlap, chunks=args.chunks)
    ns = tuple(args.seq or ((64, 128) if cpu else TARGET_NS))
    worlds = sorted(set(args.worlds or range(1, env.world + 1)))
    if not all(1 <= w <= env.world for w in worlds) or any(n % (2 * w) for n in ns for w in worlds):
        raise SystemExit(f"world sizes must lie in 1..{env.world} and every N must divide by 2w")
    env.make_groups(worlds)
    start = time.perf_counter()
    command = shlex.join(["torchrun", "--nproc-per-node", str(env.world), "-m", "flashviz.bench.ring_bench",
                          *(sys.argv[1:] if argv is None else argv)])
    data = dict(schema_version=SCHEMA_VERSION, kind=KIND, complete=False, elapsed_s=0.0,
                provenance=_provenance(env, command), config=cfg, checks=[], cells=[])
    out = Path(args.out or f"assets/benchmarks/ring/{_slug(data)}-x{env.world}-{datetime.date.today()}.json")
    say = (lambda *a: print(*a, file=sys.stderr, flush=True)) if env.rank == 0 and not args.quiet else (lambda *a: 0)
    causals = CAUSAL[args.causal]
    if args.check_n:
        for w in (w for w in worlds if w > 1):
            for lay in args.layouts:
                for causal in causals:
                    if env.rank < w:
                        data["checks"].append(check(env, cfg, w, lay, causal, args.check_n))
                    env.dist.barrier(group=env.ctrl)
        say("checks:", [(c["world"], c["layout"], c["causal"], c["ok"]) for c in data["checks"]])
    cells = plan_cells(ns, worlds, args.layouts, causals, args.modes)
    per_run = args.warmup + args.reps
    for i, cell in enumerate(cells):
        elapsed = time.perf_counter() - start
        guess = _predict(data["cells"], cell, per_run)
        budget = float("inf") if args.budget_s is None else args.budget_s
        run = env.decide(bool(elapsed <= budget and (guess is None or elapsed + guess <= budget)))
        rec = dict(cell, status="skipped", message=None, ms=None,
                   flops=flops(cell["n"], cfg["d"], cell["causal"], cfg["batch"], cfg["heads"], cell["mode"]))
        if not run:
            rec["message"] = (f"over the time budget of {args.budget_s:g} s (at {elapsed:.0f} s"
                              + (f", predicted to take {guess:.0f} s)" if guess is not None else ")"))
        elif env.rank < cell["world"]:
            rec.update(_measured(env, cfg, cell, args))
        env.dist.barrier(group=env.ctrl)
        data["cells"].append(rec)
        say(f"[{i + 1}/{len(cells)}] N={cell['n']} w={cell['world']} {cell['layout']} "
            f"{'causal' if cell['causal'] else 'full'} {cell['mode']}: {rec['status']} "
            + (f"{rec['ms']:.2f} ms, hidden {rec.get('hidden')}, S {rec.get('chunks')}"
               + (f", backward {_bwd_label(rec.get('bwd_chunks'))}" if cell["mode"] == "fwd+bwd" else "")
               + (f", peak {rec['peak_bytes'] / 2 ** 30:.2f} GiB" if rec.get("peak_bytes") else "")
               if rec["status"] == "ok" else (rec["message"] or "")))
        if env.rank == 0:
            data["elapsed_s"] = time.perf_counter() - start
            _write(data, out)

    if env.rank == 0:                                   # rank 0 takes part in every cell: its record is whole
        data["complete"] = all(c["status"] != "skipped" for c in data["cells"])
        if not data["complete"]:
            data["stopped"] = f"--budget-s {args.budget_s:g}: cells predicted to overrun it were skipped"
        data["elapsed_s"] = time.perf_counter() - start
        validate_ring_dataset(data)                     # a failure here is a bug in this module: loud
        _write(data, out)
        print(f"wrote {out} ({len(data['cells'])} cells, {data['elapsed_s']:.1f} s)", flush=True)
    env.dist.barrier(group=env.ctrl)
    if env.owned:
        env.dist.destroy_process_group()
    return 0


def _measured(env: Env, cfg: dict, cell: dict, args) -> dict:
    torch = env.torch
    try:
        m = measure(env, cfg, cell, args)
    except (torch.cuda.OutOfMemoryError, MemoryError) as e:
        return dict(status="oom", message=str(e).splitlines()[0][:500])
    except Exception as e:                             # noqa: BLE001 - recorded, the run goes on
        return dict(status="error", message=f"{type(e).__name__}: {str(e).splitlines()[0][:500] if str(e) else ''}")
    finally:
        if env.cuda:
            torch.cuda.empty_cache()
    m.update(status="ok", tflops=None)
    m["tflops"] = flops(cell["n"], cfg["d"], cell["causal"], cfg["batch"], cfg["heads"], cell["mode"]) / (m["ms"] * 1e9)
    return m


def _bwd_label(s) -> str:
    """The backward a fwd+bwd cell ran, for the progress lines."""
    if s is None:
        return "one GPU"
    return "plain ring" if s == 1 else f"chunked, S = {s}"


def _slug(data: dict) -> str:
    from flashviz.bench.provenance import device_slug
    return device_slug(data["provenance"])


def _write(data: dict, out: Path) -> None:
    from flashviz.bench.jsonio import write_json
    write_json(data, out)


if __name__ == "__main__":
    sys.exit(main())
