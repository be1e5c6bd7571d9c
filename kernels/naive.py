"""Naive attention in torch: S = Q K^T * scale, P = softmax(S), O = P V, materialising N x N.

This is the baseline every picture compares against: S and P live in device memory, so its peak
extra memory is 2 * B*H*Nq*Nk elements (S is freed once P exists, but both are alive during the
softmax). Causal masking is bottom-right aligned (query i sees key j when j <= i + Nk - Nq), as in
FlashAttention-2; rows that see no key (only possible when Nq > Nk) give zeros, not NaN.
"""
import torch


def causal_mask(nq: int, nk: int, device) -> torch.Tensor:
    """(Nq, Nk) bool, True where query i may see key j."""
    i = torch.arange(nq, device=device)[:, None]
    j = torch.arange(nk, device=device)[None, :]
    return j <= i + (nk - nq)


def naive_attention(q, k, v, *, causal: bool = False, sm_scale: float, return_lse: bool = False):
    """q (B, H, Nq, d), k and v (B, H, Nk, d) -> out (B, H, Nq, d) [, lse (B, H, Nq) float32]."""
    nq, nk = q.shape[-2], k.shape[-2]
    s = torch.matmul(q * sm_scale, k.transpose(-1, -2))          # S: (B, H, Nq, Nk), q's dtype
    if causal:
        s.masked_fill_(~causal_mask(nq, nk, q.device), float("-inf"))
    lse = torch.logsumexp(s.float(), dim=-1) if return_lse else None   # (B, H, Nq)
    p = torch.softmax(s, dim=-1)                                  # P: (B, H, Nq, Nk)
    del s
    if causal and nq > nk:                                        # rows with no visible key
        dead = torch.zeros(nq, 1, dtype=torch.bool, device=q.device)
        dead[: nq - nk] = True
        p = torch.where(dead, torch.zeros((), dtype=p.dtype, device=p.device), p)
    out = torch.matmul(p, v)                                      # O: (B, H, Nq, d)
    return (out, lse) if return_lse else out
