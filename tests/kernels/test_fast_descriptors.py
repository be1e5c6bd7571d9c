"""The fast kernel's cached TMA descriptors: reused while their tensor lives, gone with it, rebuilt on change."""
import gc
import weakref

import torch

import flashviz_kernels as fk
from flashviz_kernels import fast

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def _live_entries() -> int:
    gc.collect()
    return 0 if fast._DESC_CACHE is None else len(fast._DESC_CACHE)


def test_descriptor_reused_while_the_tensor_lives_and_dropped_with_it():
    x = torch.randn(2, 3, 64, 16, device=DEV)
    before = _live_entries()
    a = fast._descriptor(x, 2 * 3 * 64, 16, [32, 16])
    assert fast._descriptor(x, 2 * 3 * 64, 16, [32, 16]) is a              # cache hit
    assert fast._descriptor(x, 2 * 3 * 64, 16, [64, 16]) is not a          # another block: another descriptor
    assert a.base.data_ptr() == x.data_ptr() and list(a.shape) == [384, 16]
    alive = weakref.ref(x)
    del x, a
    gc.collect()
    assert alive() is None                              # the cache did not keep the tensor object alive
    assert _live_entries() == before


def test_descriptor_rebuilt_when_the_storage_changes():
    x = torch.randn(1, 1, 64, 16, device=DEV)
    a = fast._descriptor(x, 64, 16, [32, 16])
    x.set_(torch.randn(1, 1, 64, 16, device=DEV))       # same object, new memory
    b = fast._descriptor(x, 64, 16, [32, 16])
    assert b is not a and b.base.data_ptr() == x.data_ptr()


def test_outputs_stay_right_across_freed_and_reused_memory():
    """Allocate, run, free, allocate again (the allocator may hand back the same address): each call's output
    matches naive attention on its own inputs."""
    g = torch.Generator(device=DEV).manual_seed(0)
    for i in range(3):
        q, k, v = (torch.randn((1, 2, 64, 16), device=DEV, generator=g) for _ in range(3))
        got = fk.attention(q, k, v, impl="fast", causal=bool(i % 2))
        want = fk.attention(q, k, v, impl="naive", causal=bool(i % 2))
        assert torch.allclose(got, want, atol=1e-5), i
        del q, k, v
