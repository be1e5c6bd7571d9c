"""flashviz_kernels (the folder kernels/): torch + Triton attention, no UI.

Installed as `flashviz_kernels` because PyPI already has a package importing as `kernels`.
_env runs first: it decides TRITON_INTERPRET before triton is imported.
"""
from . import _env  # noqa: F401  (must stay first)
from ._env import HAS_CUDA, INTERPRET, LAUNCH_LOCK
from .api import (IMPLS, SDPA_BACKENDS, KernelTrace, attention, attention_trace, attention_with_lse,
                  validate)
from .errors import (KernelError, KernelInputError, KernelOutOfMemory, KernelResourceError,
                     KernelTypeError, KernelUnavailable)
from .naive import naive_attention

__all__ = [
    "attention", "attention_trace", "attention_with_lse", "naive_attention", "validate", "KernelTrace",
    "IMPLS", "SDPA_BACKENDS", "HAS_CUDA", "INTERPRET", "LAUNCH_LOCK",
    "KernelError", "KernelInputError", "KernelTypeError", "KernelUnavailable", "KernelResourceError",
    "KernelOutOfMemory",
]
