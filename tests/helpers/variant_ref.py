"""Independent float64 reference of the attention variants, written from the definitions (flash-attn's
semantics), not from the kernels' helpers: the full boolean mask and the ALiBi bias are built here with torch.

    q (B, H, Nq, d), k/v (B, H_kv, Nk, d); offset = Nk - Nq (bottom-right alignment)
    window (left, right): i sees j iff i + offset - left <= j <= i + offset + right, -1 = unbounded side
    causal: j <= i + offset          seq_ids (B, N): equal ids only
    s = q.k * scale -> softcap * tanh(s / softcap) -> - slope_h * |i + offset - j| -> mask
"""
import math

import numpy as np
import torch


def mask(b: int, nq: int, nk: int, *, causal=False, window=None, seq_ids=None, device="cpu") -> torch.Tensor:
    """(B, 1, Nq, Nk) bool: True where query i sees key j."""
    i = torch.arange(nq, device=device)[:, None]
    j = torch.arange(nk, device=device)[None, :]
    diag = i + (nk - nq)
    ok = torch.ones(nq, nk, dtype=torch.bool, device=device)
    if causal:
        ok = ok & (j <= diag)
    if window is not None:
        left, right = window
        if left != -1:
            ok = ok & (j >= diag - left)
        if right != -1:
            ok = ok & (j <= diag + right)
    ok = ok.expand(b, 1, nq, nk)
    if seq_ids is not None:
        ids = seq_ids.to(device)
        ok = ok & (ids[:, None, :, None] == ids[:, None, None, :])
    return ok


def reference(q, k, v, *, causal=False, window=None, alibi_slopes=None, softcap=None, seq_ids=None, scale=None,
              dtype=torch.float64):
    """(out (B, H, Nq, d), lse (B, H, Nq)) in `dtype` (differentiable). Rows that see no key: zeros, lse -inf."""
    b, h, nq, d = q.shape
    h_kv, nk = k.shape[1], k.shape[2]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    rep = h // h_kv
    qd = q.to(dtype)
    kd, vd = k.to(dtype).repeat_interleave(rep, 1), v.to(dtype).repeat_interleave(rep, 1)   # head h -> h // rep
    s = torch.matmul(qd, kd.transpose(-1, -2)) * scale
    if softcap is not None:
        s = softcap * torch.tanh(s / softcap)
    if alibi_slopes is not None:
        sl = alibi_slopes.to(device=q.device, dtype=dtype)
        sl = sl[None, :, None, None] if sl.dim() == 1 else sl[:, :, None, None]
        i = torch.arange(nq, device=q.device)[:, None] + (nk - nq)
        j = torch.arange(nk, device=q.device)[None, :]
        s = s - sl * (i - j).abs().to(dtype)
    ok = mask(b, nq, nk, causal=causal, window=window, seq_ids=seq_ids, device=q.device)
    live = ok.any(-1, keepdim=True)
    s = s.masked_fill(~ok, float("-inf"))
    s = torch.where(live, s, torch.zeros((), dtype=dtype, device=q.device))      # dead rows: no NaN, no gradient
    lse = torch.where(live[..., 0], torch.logsumexp(s, -1), torch.full((), float("-inf"), dtype=dtype,
                                                                        device=q.device))
    p = torch.where(live, torch.softmax(s, -1), torch.zeros((), dtype=dtype, device=q.device))
    return torch.matmul(p, vd), lse


def block_counts(ok: torch.Tensor, br: int, bc: int) -> tuple[torch.Tensor, torch.Tensor]:
    """From a dense (B, 1, Nq, Nk) mask: per (B, query block) the number of key tiles with at least one visible
    pair and the number of whole tiles inside [0, Nq) x [0, Nk) that are all visible; by plain loops."""
    b, _, nq, nk = ok.shape
    tr, tc = -(-nq // br), -(-nk // bc)
    run = torch.zeros(b, tr, dtype=torch.int64)
    full = torch.zeros(b, tr, dtype=torch.int64)
    for bi in range(b):
        for i in range(tr):
            for t in range(tc):
                blk = ok[bi, 0, i * br:(i + 1) * br, t * bc:(t + 1) * bc]
                run[bi, i] += bool(blk.any())
                full[bi, i] += bool(blk.all()) and blk.shape == (br, bc)
    return run, full


def ref_visible(nq, nk, *, causal=False, window=None, ids=None) -> np.ndarray:
    """(Nq, Nk) bool by the flash-attn definitions, one pair at a time."""
    left, right = window if window is not None else (-1, -1)
    out = np.zeros((nq, nk), bool)
    for i in range(nq):
        for j in range(nk):
            c = i + nk - nq
            ok = (left < 0 or j >= c - left) and (right < 0 or j <= c + right)
            ok = ok and (not causal or j <= c)
            ok = ok and (ids is None or ids[i] == ids[j])
            out[i, j] = ok
    return out


def grads(fn, dtype, q, k, v, do):
    """dq, dk, dv of <fn(q, k, v), do> with q, k, v cast to `dtype` (fn: a kernel, or the reference's output)."""
    xs = [x.detach().to(dtype).requires_grad_() for x in (q, k, v)]
    out = fn(*xs)
    return torch.autograd.grad(out, xs, do.to(out.dtype))
