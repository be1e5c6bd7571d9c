"""torch's scaled_dot_product_attention behind flashviz_kernels.api (impl "sdpa" and "sdpa-<backend>").

The variants (flashviz_kernels.variants) become what SDPA can express: an attn_mask for a window, causal masking
and packed documents, a float bias for ALiBi, enable_gqa for GQA/MQA; softcap cannot be expressed
(KernelUnavailable). A pinned backend that cannot run the case is KernelUnavailable too.
"""
from __future__ import annotations

import torch

from . import variants
from .errors import KernelUnavailable
from .variants import Variant

SDPA_BACKENDS = ("flash", "cudnn", "efficient", "math")


def sdpa_attention(q, k, v, var: Variant, sm_scale, backend):
    """SDPA with the variant as an attn_mask (window, causal, documents; ALiBi as a float bias) and enable_gqa."""
    import torch.nn.functional as F
    if var.softcap is not None:
        raise KernelUnavailable("SDPA cannot express softcap; use impl='naive', 'teaching' or 'fast'",
                                key="kernel_sdpa_softcap")
    n_q, n_k = q.shape[2], k.shape[2]
    kwargs = dict(scale=sm_scale)
    if q.shape[1] != k.shape[1]:
        kwargs["enable_gqa"] = True
    ok = variants.visible_mask(var, n_q, n_k, q.device) if var.masked else None
    if var.slopes is not None:                         # float bias: -slope |i + offset - j|, -inf where masked
        bias = variants.modify_scores(torch.zeros(1, 1, n_q, n_k, device=q.device), var).to(q.dtype)
        kwargs["attn_mask"] = bias if ok is None else bias.masked_fill(~ok, float("-inf"))
    elif var.causal and n_q == n_k and var.seq_ids is None:
        kwargs["is_causal"] = True                     # SDPA's own causal (top-left = bottom-right when square)
    elif ok is not None:
        kwargs["attn_mask"] = ok
    if backend is None:
        out = F.scaled_dot_product_attention(q, k, v, **kwargs)
    else:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        which = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                 "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}[backend]
        try:
            with sdpa_kernel(which):
                out = F.scaled_dot_product_attention(q, k, v, **kwargs)
        except RuntimeError as e:
            if isinstance(e, torch.cuda.OutOfMemoryError):
                raise
            raise KernelUnavailable(f"SDPA {backend} backend cannot run this case: {str(e).splitlines()[0]}") from e
    if n_q > n_k and var.right >= 0:                   # rows that see no key: zeros, as the kernels give
        out = torch.where(ok.any(-1, keepdim=True), out, torch.zeros((), dtype=out.dtype, device=out.device))
    return out
