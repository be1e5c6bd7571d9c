"""Naive attention in torch: S = Q K^T * scale, P = softmax(S), O = P V, materialising N x N.

This is the baseline every picture compares against: S and P live in device memory, so its peak
extra memory is 2 * B*H*Nq*Nk elements (S is freed once P exists, but both are alive during the
softmax). Causal masking is bottom-right aligned (query i sees key j when j <= i + Nk - Nq), as in
FlashAttention-2; rows that see no key (only possible when Nq > Nk) give zeros, not NaN.

It is also the readable reference of the variants (flashviz_kernels.variants): the mask (window, causal,
packed documents) and the score changes (softcap, then ALiBi) come from there, applied to the whole S;
with softcap or ALiBi on, S is float32 from the scaled product on. GQA/MQA broadcasts each kv head over its
group of query heads (a view, no copy).
"""
import torch

from . import variants


def causal_mask(nq: int, nk: int, device) -> torch.Tensor:
    """(Nq, Nk) bool, True where query i may see key j."""
    i = torch.arange(nq, device=device)[:, None]
    j = torch.arange(nk, device=device)[None, :]
    return j <= i + (nk - nq)


def naive_attention(q, k, v, *, causal: bool = False, sm_scale: float, return_lse: bool = False,
                    variant: variants.Variant | None = None):
    """q (B, H, Nq, d), k and v (B, H_kv, Nk, d) -> out (B, H, Nq, d) [, lse (B, H, Nq) float32].
    variant (checked by the api) replaces `causal` when given."""
    var = variant if variant is not None else (variants.CAUSAL if causal else variants.PLAIN)
    b, h, nq, d = q.shape
    h_kv, nk = k.shape[1], k.shape[2]
    g = h // h_kv
    qg = q.reshape(b, h_kv, g, nq, d)                             # GQA: query heads of one kv head together
    s = torch.matmul(qg * sm_scale, k[:, :, None].transpose(-1, -2)).reshape(b, h, nq, nk)   # S, q's dtype
    s = variants.modify_scores(s, var)                            # softcap, then ALiBi
    ok = variants.visible_mask(var, nq, nk, q.device) if var.masked else None
    if ok is not None:
        s.masked_fill_(~ok, float("-inf"))
    lse = torch.logsumexp(s.float(), dim=-1) if return_lse else None   # (B, H, Nq)
    p = torch.softmax(s, dim=-1)                                  # P: (B, H, Nq, Nk)
    del s
    if nq > nk and var.right >= 0:              # only then can a row see no key: zeros for it, not NaN
        p = torch.where(ok.any(-1, keepdim=True), p, torch.zeros((), dtype=p.dtype, device=p.device))
    pg = p.to(v.dtype).reshape(b, h_kv, g, nq, nk)
    out = torch.matmul(pg, v[:, :, None]).reshape(b, h, nq, d)   # O: (B, H, Nq, d)
    return (out, lse) if return_lse else out
