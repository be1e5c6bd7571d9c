"""Packed documents' tables are built once per seq_ids tensor and reused only while that tensor is unchanged:
a reused table must never answer for other documents. Outputs against the float64 reference of
tests/helpers/variant_ref.py after each kind of change (in-place write, view write, a new tensor, a dead tensor)."""
import gc

import pytest
import torch

import flashviz_kernels as fk
from flashviz_kernels import doc_tables, variants
from helpers.attn_ref import check_close
from helpers.variant_ref import reference

B, H, N, D = 2, 2, 48, 16


def ids_of(*lengths) -> torch.Tensor:
    rows = []
    for lens in lengths:
        rows.append(torch.cat([torch.full((n,), i, dtype=torch.int64) for i, n in enumerate(lens)]))
    return torch.stack(rows)


@pytest.fixture
def qkv():
    g = torch.Generator().manual_seed(7)
    return tuple(torch.randn(B, H, N, D, generator=g) for _ in range(3))


def check(out, q, k, v, ids):
    q64, k64, v64 = (x.double() for x in (q, k, v))
    want, _ = reference(q64, k64, v64, causal=True, seq_ids=ids.clone())
    low = fk.attention(q, k, v, impl="naive", causal=True, seq_ids=ids.clone())
    check_close(out, want, low, eps=1e-5)


def run(q, k, v, ids):
    return fk.attention(q, k, v, impl="teaching", causal=True, seq_ids=ids, block_m=16, block_n=16)


def test_same_tensor_reuses_its_tables(qkv):
    doc_tables.clear()
    ids = ids_of((10, 20, 18), (30, 18))
    first = variants.parse(qkv[0], qkv[1], causal=True, seq_ids=ids)
    variants.tables(first, N, N, "cpu", 16, 16)
    again = variants.parse(qkv[0], qkv[1], causal=True, seq_ids=ids)
    assert again.seq_ids is first.seq_ids and again.docs is first.docs
    before = dict(again.docs)
    assert variants.tables(again, N, N, "cpu", 16, 16)[1] is before[("tiles", -1, 0, 16, 16)]
    check(run(*qkv, ids), *qkv, ids)


def test_in_place_write_is_seen(qkv):
    doc_tables.clear()
    ids = ids_of((10, 20, 18), (30, 18))
    out_a = run(*qkv, ids)
    ids[0, 5:] += 3                                  # still non-decreasing: document 0 ends at 5 now
    out_b = run(*qkv, ids)
    check(out_b, *qkv, ids)
    assert not torch.allclose(out_a[0], out_b[0])
    ids[:, 1:] = torch.flip(ids[:, 1:], (1,))        # no longer contiguous runs: the check runs again
    with pytest.raises(fk.KernelInputError):
        run(*qkv, ids)


def test_write_through_a_view_is_seen(qkv):
    doc_tables.clear()
    ids = ids_of((24, 24), (24, 24))
    run(*qkv, ids)
    view = ids[:, 12:]
    view += 1                                        # views share the base's version counter
    check(run(*qkv, ids), *qkv, ids)


def test_equal_new_tensor_and_dead_tensors(qkv):
    doc_tables.clear()
    ids = ids_of((16, 32), (40, 8))
    run(*qkv, ids)
    other = ids_of((40, 8), (16, 32))                # another tensor: never answered by ids' entry
    check(run(*qkv, other), *qkv, other)
    n = doc_tables.size()
    del ids, other
    gc.collect()
    assert doc_tables.size() == n - 2


def test_bounded_and_inference_tensors_not_cached(qkv):
    doc_tables.clear()
    keep = [ids_of((N - i, i) if i else (N,), (N,)) for i in range(doc_tables.MAX_ENTRIES + 4)]
    for ids in keep:
        variants.parse(qkv[0], qkv[1], causal=True, seq_ids=ids)
    assert doc_tables.size() == doc_tables.MAX_ENTRIES
    doc_tables.clear()
    with torch.inference_mode():
        ids = ids_of((20, 28), (28, 20))
        var = variants.parse(qkv[0], qkv[1], causal=True, seq_ids=ids)
        assert var.docs is None and doc_tables.size() == 0
        check(run(*qkv, ids), *qkv, ids)
