"""The bench's inputs and its float64 reference (flashviz.bench.measure's steps 0 and 1): seeded random q, k, v
(and dout) per configuration, textbook attention in float64 on a few query rows of every (batch, head), full
gradients of two (batch, head) slices, and each impl's errors against them."""
from __future__ import annotations

import math
import zlib

import torch

from .spec import config_key

CHECK_ROWS = 64              # query rows per (batch, head) compared against the float64 reference


def make_inputs(cfg: dict, seed: int, device: str) -> dict:
    """q, k, v (and dout in fwd+bwd mode) ~ N(0, 1), seeded per configuration so configs differ."""
    dt = getattr(torch, cfg["dtype"])
    g = torch.Generator(device=device).manual_seed(seed + zlib.crc32(repr(config_key(cfg)).encode()))
    shape = (cfg["batch"], cfg["heads"], cfg["n"], cfg["d"])
    x = {name: torch.randn(shape, generator=g, device=device, dtype=dt) for name in ("q", "k", "v")}
    if cfg["mode"] in ("fwd+bwd", "bwd"):
        x["dout"] = torch.randn(shape, generator=g, device=device, dtype=dt)
        for name in ("q", "k", "v"):
            x[name].requires_grad_(True)
    return x


def check_rows(n: int) -> torch.Tensor:
    """First, last and evenly spaced query rows (causal rows near 0 see few keys, near N-1 see all)."""
    return torch.unique(torch.linspace(0, n - 1, min(n, CHECK_ROWS)).round().long())


def _ref_attention(q, k, v, rows, causal):
    """float64 textbook attention for `rows` of q; q (..., N, d) -> (..., R, d)."""
    n, rows = k.shape[-2], rows.to(q.device)
    s = torch.matmul(q[..., rows, :].double(), k.double().transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if causal:
        s.masked_fill_(torch.arange(n, device=q.device)[None, :] > rows[:, None], float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v.double())


def grad_pairs(batch: int, heads: int) -> list[tuple[int, int]]:
    return sorted({(0, 0), (batch - 1, heads - 1)})


def reference(x: dict, cfg: dict) -> dict:
    """float64 reference: out rows for every (b, h); in fwd+bwd mode full grads for grad_pairs()."""
    rows = check_rows(cfg["n"])
    q, k, v = (x[t].detach() for t in ("q", "k", "v"))
    out = torch.stack([_ref_attention(q[b], k[b], v[b], rows, cfg["causal"]) for b in range(cfg["batch"])])
    ref = {"rows": rows, "out": out}
    if cfg["mode"] in ("fwd+bwd", "bwd"):
        all_rows = torch.arange(cfg["n"])
        for b, h in grad_pairs(cfg["batch"], cfg["heads"]):
            qq, kk, vv = (t[b, h].double().requires_grad_(True) for t in (q, k, v))
            o = _ref_attention(qq, kk, vv, all_rows, cfg["causal"])
            ref[(b, h)] = torch.autograd.grad(o, (qq, kk, vv), x["dout"][b, h].double())
    return ref


def errors(result, ref: dict, cfg: dict) -> tuple[float, float]:
    """(max abs diff, max over checked tensors of ||x - ref|| / ||ref||); NaN if anything is not finite."""
    out = result[0] if isinstance(result, tuple) else result
    pairs = [(out.detach()[:, :, ref["rows"].to(out.device)], ref["out"])]
    if cfg["mode"] in ("fwd+bwd", "bwd"):
        for b, h in grad_pairs(cfg["batch"], cfg["heads"]):
            pairs += [(g[b, h], r) for g, r in zip(result[1:], ref[(b, h)])]
    max_abs, rel = 0.0, 0.0
    for got, want in pairs:
        diff = got.double() - want
        a, r = diff.abs().max().item(), (diff.norm() / want.norm().clamp_min(1e-300)).item()
        if not (math.isfinite(a) and math.isfinite(r)):  # max() would silently drop a NaN
            return math.nan, math.nan
        max_abs, rel = max(max_abs, a), max(rel, r)
    return max_abs, rel
