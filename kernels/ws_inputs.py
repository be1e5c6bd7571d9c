"""What the Gluon ws kernels take (kernels/ws.py re-exports every name here): the variants the forward takes
(takes), the inputs both kernels take (input_problem: CUDA, fp16/bf16, d 64 or 128, the grid's limits; the ws
backward applies the same rules) and packed documents' tables (check_docs). A reason string or a KernelInputError;
no Gluon, no launch, no schedule (ws.check_tile asks ws_schedule.tile_problem)."""
from __future__ import annotations

from .errors import KernelInputError

HEAD_DIMS = (64, 128)
GRID_AXIS = 65535        # CUDA's limit on a grid's second and third axes (query or key blocks; head groups)


def takes(var) -> bool:
    """What the ws forward takes: plain or causal attention, a causal sliding window (window (left, 0)), ALiBi on
    causal ones, packed documents, any of them with GQA/MQA; no softcap."""
    return (var.softcap is None and (var.slopes is None or var.right == 0)
            and (var.right == 0 or (var.right == -1 and var.left == -1)))


def input_problem(q, what: str = "kernel") -> str | None:
    """Why the Gluon kernel (what: "kernel", or "backward" for kernels/ws_bwd.py, same input rules) cannot take these
    inputs (CUDA, fp16/bf16, d 64 or 128), None when it can."""
    import torch
    if q.device.type != "cuda":
        return f"q is on {q.device}; the Gluon {what} needs CUDA tensors"
    if q.dtype not in (torch.float16, torch.bfloat16):
        return f"the Gluon {what} takes float16 or bfloat16, not {q.dtype}"
    if q.shape[3] not in HEAD_DIMS:
        return f"the Gluon {what} takes head dim d in {HEAD_DIMS}, not {q.shape[3]}"
    if q.shape[2] > GRID_AXIS * 128 or q.shape[0] * q.shape[1] > GRID_AXIS:     # the grids' 2nd and 3rd axes
        return (f"the Gluon {what} takes up to {GRID_AXIS * 128} query rows and {GRID_AXIS} heads (B*H); got "
                f"{q.shape[2]} and {q.shape[0] * q.shape[1]}")
    return None


def check_docs(docs, b: int, n_q: int, n_k: int, block_m: int):
    """(row bounds, tile ranges) of packed documents for this launch's block_m, checked; (None, None) without."""
    import torch
    if docs is None:
        return None, None
    rowb, tiles = docs
    n_t = (n_q + block_m - 1) // block_m
    for x, shape in ((rowb, (n_q, 2)), (tiles, (n_t, 4))):
        if not isinstance(x, torch.Tensor) or x.dtype != torch.int32 or x.dim() != 3 or x.shape[0] not in (1, b) \
                or tuple(x.shape[1:]) != shape or not x.is_contiguous():
            raise KernelInputError(f"the ws kernel's document tables are int32 contiguous (1 or B, Nq, 2) and (1 or B, "
                                   f"ceil(Nq / block_m) = {n_t}, 4) for block_m = {block_m} (variants.tables); got "
                                   f"{getattr(x, 'shape', type(x).__name__)}")
    if n_q != n_k:
        raise KernelInputError(f"packed documents need Nq == Nk; got {n_q}, {n_k}")
    return rowb, tiles
