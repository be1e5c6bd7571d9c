"""flashviz_kernels (the folder kernels/): torch + Triton attention, no UI.

Installed as `flashviz_kernels` because PyPI already has a package importing as `kernels`.
Importing the package itself loads nothing heavy, so `flashviz_kernels.rules` (plain Python: the integer and
tile rules the app shares with the kernels) serves the numpy engine and the dataset validator without torch.
The first use of a name below loads _env (which decides TRITON_INTERPRET before triton is imported), then the
module that defines the name.
"""
import importlib

_HOME = {
    "attention": "api", "attention_trace": "api", "attention_with_lse": "api", "attention_backward": "api",
    "validate": "api", "KernelTrace": "api", "IMPLS": "api", "SDPA_BACKENDS": "api", "launch_plan": "api",
    "backward_plan": "api", "LaunchPlan": "api", "BackwardPlan": "api",
    "naive_attention": "naive",
    "HAS_CUDA": "_env", "INTERPRET": "_env", "LAUNCH_LOCK": "_env",
    "KernelError": "errors", "KernelInputError": "errors", "KernelTypeError": "errors",
    "KernelUnavailable": "errors", "KernelResourceError": "errors", "KernelOutOfMemory": "errors",
}
__all__ = list(_HOME)


def __getattr__(name):
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    importlib.import_module(f"{__name__}._env")                  # first: before anything imports triton
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOME))
