"""Independent float64 references for the kernel tests (CPU and GPU)."""
import math

import torch


def visible(nq: int, nk: int, rows: torch.Tensor, causal: bool, device) -> torch.Tensor:
    """(len(rows), Nk) bool: which keys each selected query row may see (bottom-right causal)."""
    j = torch.arange(nk, device=device)[None, :]
    if not causal:
        return torch.ones(len(rows), nk, dtype=torch.bool, device=device)
    return j <= rows[:, None].to(device) + (nk - nq)


def attention_rows(q, k, v, rows, *, causal: bool, dtype=torch.float64, scale=None):
    """Attention for the query `rows` only, computed textbook-style in `dtype`; (B, H, R, d).

    In float64 this is the reference; in the inputs' dtype it is 'naive in the same dtype'
    (matmul, softmax, matmul at that precision). Fully masked rows give zeros.
    """
    nq, nk, d = q.shape[2], k.shape[2], q.shape[3]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    qs, ks, vs = q[:, :, rows].to(dtype), k.to(dtype), v.to(dtype)
    s = torch.matmul(qs * scale, ks.transpose(-1, -2))                 # (B, H, R, Nk)
    ok = visible(nq, nk, rows, causal, q.device)
    s = s.masked_fill(~ok, float("-inf"))
    p = torch.softmax(s, dim=-1)
    p = torch.where(ok.any(-1)[:, None], p, torch.zeros((), dtype=p.dtype, device=p.device))
    return torch.matmul(p, vs)


def lse_rows(q, k, rows, *, causal: bool, scale=None):
    nq, nk, d = q.shape[2], k.shape[2], q.shape[3]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    s = torch.matmul(q[:, :, rows].double() * scale, k.double().transpose(-1, -2))
    s = s.masked_fill(~visible(nq, nk, rows, causal, q.device), float("-inf"))
    return torch.logsumexp(s, dim=-1)


def check_close(out, ref64, naive_same, eps: float, what: str = ""):
    """The idiom: max|out - ref64| <= 2 * max|naive_same_dtype - ref64| + eps (and no NaN)."""
    assert not torch.isnan(out).any(), f"{what}: NaN in output"
    err = (out.double() - ref64).abs().max().item()
    base = (naive_same.double() - ref64).abs().max().item()
    assert err <= 2 * base + eps, f"{what}: max err {err:.3g} > 2 * naive err {base:.3g} + {eps:g}"
    return err, base
