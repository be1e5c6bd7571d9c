"""Live bytes of the tensors torch allocates inside a block of code, on the CPU, and their peak.

    with LiveBytes() as live:
        ...
    live.peak      # the largest sum of the storages made inside the block and alive at one time

A TorchDispatchMode sees every aten op; a storage none of the op's inputs shares is new: its bytes count from then
until Python frees it (weakref.finalize on the storage, whose Python object lives as long as the storage itself).
Storages made before the block (the inputs) count for nothing. Temporaries an op makes and frees inside one C++
kernel are not seen (as they are not on a GPU either, where the caching allocator would count them).
"""
from __future__ import annotations

import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves


class LiveBytes(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.live = self.peak = 0
        self.seen: set[int] = set()

    def _free(self, key: int, nbytes: int) -> None:
        self.seen.discard(key)
        self.live -= nbytes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        ins = {a.untyped_storage().data_ptr() for a in tree_leaves((args, kwargs)) if isinstance(a, torch.Tensor)}
        for t in tree_leaves(out):
            if not isinstance(t, torch.Tensor):
                continue
            st = t.untyped_storage()
            key = st.data_ptr()
            if key in ins or key in self.seen or st.nbytes() == 0:
                continue
            self.seen.add(key)
            self.live += st.nbytes()
            weakref.finalize(st, self._free, key, st.nbytes())
            self.peak = max(self.peak, self.live)
        return out
