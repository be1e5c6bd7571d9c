"""Run a function on W ranks of a real torch.distributed process group, from a test (no torchrun).

    results = run_ranks(world, fn, *args)              # gloo on 127.0.0.1-free FileStore, forked ranks
    results = run_ranks(2, fn, *args, backend="nccl")  # one GPU per rank, spawned ranks

fn(rank, world, *args) runs in each rank after init_process_group; its return value (tensors, numbers, lists)
comes back through torch.save. An exception in any rank fails the caller with that rank's traceback; a rank that
hangs is killed after `timeout` seconds (by its own process id) and fails the caller too.
Forking is used on CPU because each spawned rank would import torch again (seconds each on a busy machine); the
forked ranks set one intra-op thread. NCCL ranks are spawned: CUDA cannot be used in a forked child.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
import tempfile
import traceback
import types

import torch
import torch.distributed as dist


def _entry(rank: int, world: int, store_path: str, backend: str, out_path: str, fn, args) -> None:
    try:
        torch.set_num_threads(1)
        kw = {}
        if backend == "nccl":
            torch.cuda.set_device(rank)
            kw["device_id"] = torch.device("cuda", rank)
        dist.init_process_group(backend, store=dist.FileStore(store_path, world), rank=rank, world_size=world, **kw)
        try:
            result = ("ok", fn(rank, world, *args))
        finally:
            dist.destroy_process_group()
    except BaseException:                               # noqa: BLE001 - reported to the parent
        result = ("error", traceback.format_exc())
    torch.save(result, out_path)


def run_ranks(world: int, fn, *args, backend: str = "gloo", timeout: float = 240) -> list:
    ctx = mp.get_context("fork" if backend == "gloo" else "spawn")
    with tempfile.TemporaryDirectory(prefix="ring_") as tmp:
        store = os.path.join(tmp, "store")
        outs = [os.path.join(tmp, f"rank{r}.pt") for r in range(world)]
        procs = [ctx.Process(target=_entry, args=(r, world, store, backend, outs[r], fn, args), daemon=True)
                 for r in range(world)]
        main = sys.modules["__main__"]
        # A spawned child re-runs the parent's __main__ file; after an AppTest in this process that is app.py.
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            for p in procs:
                p.start()
        finally:
            sys.modules["__main__"] = main
        for p in procs:
            p.join(timeout)
        hung = [r for r, p in enumerate(procs) if p.is_alive()]
        for r in hung:
            procs[r].kill()                             # only the processes started here, by their own handle
            procs[r].join(5)
        if hung:
            raise AssertionError(f"ranks {hung} of {world} did not finish within {timeout} s (a hang in the ring?)")
        results = []
        for r, path in enumerate(outs):
            if not os.path.exists(path):
                raise AssertionError(f"rank {r} died without a result (exit code {procs[r].exitcode})")
            status, value = torch.load(path, weights_only=False)
            if status != "ok":
                raise AssertionError(f"rank {r} of {world} failed:\n{value}")
            results.append(value)
        return results


# ----------------------------------------------------------------------------- W virtual ranks in one process

class ThreadRing:
    """Rank `rank` of W virtual ranks that are threads of this process (one GPU can hold them all): a Ring as
    kernels/ring.py's loops use it (rank, world, exchange, check_same), its transfers queues of cloned tensors.
    The clone and the receiver's copy run on the device's one default stream, so they are ordered like the kernels.
    Autograd is not used across ranks (its device thread is shared); call forward_loop / backward_loop."""

    def __init__(self, hub: dict, rank: int, world: int):
        self.hub, self.rank, self.world = hub, rank, world

    def _box(self, rank: int, tag: int):
        import queue
        with self.hub["lock"]:
            return self.hub.setdefault((rank, tag), queue.Queue())

    def exchange(self, send, recv, tag: int):
        self._box((self.rank + 1) % self.world, tag).put([x.clone() for x in send])
        box, recv = self._box(self.rank, tag), list(recv)

        class Work:
            def wait(self):
                for a, b in zip(box.get(timeout=300), recv):
                    b.copy_(a)
        return [Work()]

    def check_same(self, values, device) -> None:
        pass


def run_threads(world: int, fn, *args) -> list:
    """fn(ring, *args) on W threads, ring a ThreadRing of each rank; their results in rank order. An exception
    in any thread fails the caller with it."""
    import threading
    hub, results, errors = {"lock": threading.Lock()}, [None] * world, [None] * world

    def entry(r):
        try:
            results[r] = fn(ThreadRing(hub, r, world), *args)
        except BaseException as e:                     # noqa: BLE001 - re-raised in the caller
            errors[r] = e
    threads = [threading.Thread(target=entry, args=(r,), daemon=True) for r in range(world)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    for r, e in enumerate(errors):
        if e is not None:
            raise AssertionError(f"virtual rank {r} of {world} failed: {type(e).__name__}: {e}") from e
    if any(t.is_alive() for t in threads):
        raise AssertionError("a virtual rank did not finish within 600 s (a hang in the ring?)")
    return results
