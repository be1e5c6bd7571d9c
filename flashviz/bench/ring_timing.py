"""The timing machinery of flashviz.bench.ring_bench: Env (the torch.distributed process group, this rank's device, the
per-world-size subgroups and a gloo group for decisions), WaitProbe (the ring's probe hook that sums the time each
step waits for its transfer) and time_fn (median, p20, p80 over repetitions of the slowest rank, a barrier before
each, with the peak memory and the probe's exposed time). torch loads lazily, in Env; no streamlit or plotly.
flashviz.bench.ring_bench re-exports every name here.
"""
from __future__ import annotations

import datetime
import os
import statistics
import time


class Env:
    """The process group, this rank's device, and a gloo group for decisions and waiting (idle ranks must not
    sit in an NCCL collective while rank 0 alone times the single-GPU cells)."""

    def __init__(self):
        import torch
        import torch.distributed as dist
        self.owned = not dist.is_initialized()           # torchrun: we start the group, so we end it
        if self.owned:
            if torch.cuda.is_available():
                local = int(os.environ.get("LOCAL_RANK", "0"))
                torch.cuda.set_device(local)
                dist.init_process_group("nccl", device_id=torch.device("cuda", local),
                                        timeout=datetime.timedelta(minutes=20))
            else:
                dist.init_process_group("gloo", timeout=datetime.timedelta(minutes=20))
        self.torch, self.dist = torch, dist
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.backend = str(dist.get_backend())
        self.cuda = self.backend == "nccl"
        self.device = torch.device("cuda", torch.cuda.current_device()) if self.cuda else torch.device("cpu")
        self.ctrl = dist.new_group(backend="gloo") if self.cuda else dist.group.WORLD
        self.groups = {}

    def group(self, w: int):
        return self.groups[w]

    def make_groups(self, worlds) -> None:
        for w in sorted(set(worlds)):                    # every rank creates every group, in the same order
            self.groups[w] = self.dist.new_group(list(range(w)))

    def sync(self, group) -> None:
        t = self.torch.zeros(1, device=self.device)
        self.dist.all_reduce(t, group=group)
        if self.cuda:
            self.torch.cuda.synchronize()

    def decide(self, value):
        """Rank 0's value on every rank."""
        box = [value]
        self.dist.broadcast_object_list(box, src=0, group=self.ctrl)
        return box[0]


class WaitProbe:
    """The ring's measurement hook: how long each step waits for its transfer, summed over one call.

    Between "computed" (this step's blocks are queued) and "received" (the wait on the transfers returned), the
    compute stream does nothing but wait for the transfer: CUDA events on that stream (host clock on CPU, where
    every call blocks) time exactly the transfer time the compute did not hide."""

    def __init__(self, env: Env, clock=time.perf_counter):
        self.env, self.marks, self.clock = env, [], clock     # clock: seconds, host timing only (tests inject one)

    def __call__(self, what: str) -> None:
        if self.env.cuda:
            e = self.env.torch.cuda.Event(enable_timing=True)
            e.record()
            self.marks.append((what, e))
        else:
            self.marks.append((what, self.clock()))

    def take_ms(self) -> float:
        """Summed waits of the calls since the last take (their work must have finished)."""
        total, marks, self.marks = 0.0, self.marks, []
        for (w0, a), (w1, b) in zip(marks[::2], marks[1::2]):
            assert (w0, w1) == ("computed", "received"), "the ring marks steps in pairs"
            total += a.elapsed_time(b) if self.env.cuda else (b - a) * 1e3
        return total


def time_fn(env: Env, fn, group, warmup: int, reps: int, min_reps: int, rep_s: float, probe: WaitProbe | None = None):
    """(median ms, p20, p80, reps, peak bytes of this rank, median exposed ms or None): slowest rank per
    repetition, barrier before each; the exposed time (probe) likewise the slowest rank's per repetition."""
    torch, dist = env.torch, env.dist
    t_warm = 0.0
    for _ in range(warmup):
        env.sync(group)
        t0 = time.perf_counter()
        fn()
        env.sync(group)
        t_warm = time.perf_counter() - t0
    t = torch.tensor([t_warm], dtype=torch.float64, device=env.device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group)       # every rank picks the same count
    n_reps = max(min_reps, min(reps, int(rep_s / t.item()) if t.item() > 0 else reps))
    if env.cuda:
        torch.cuda.reset_peak_memory_stats()
    times, waits = [], []
    for _ in range(n_reps):
        env.sync(group)
        if probe is not None:
            probe.marks = []                                    # warm-up runs' marks are not timed
        if env.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
        if probe is not None:
            waits.append(probe.take_ms())
    ts = torch.tensor(times + waits, dtype=torch.float64, device=env.device)
    dist.all_reduce(ts, op=dist.ReduceOp.MAX, group=group)
    ms, waited = sorted(ts[:n_reps].tolist()), ts[n_reps:].tolist()
    q = statistics.quantiles(ms, n=5, method="inclusive") if len(ms) > 1 else [ms[0]] * 4
    peak = torch.cuda.max_memory_allocated() if env.cuda else None
    return statistics.median(ms), q[0], q[3], n_reps, peak, (statistics.median(waited) if waited else None)
