"""Typed errors of the kernels package (which imports nothing from flashviz)."""


class KernelError(Exception):
    """Base class of every error the kernels raise on purpose.

    `key` and `params` (optional) name the message for an app that shows it in another language; str() stays
    the English text."""

    def __init__(self, *args, key: str | None = None, **params):
        super().__init__(*args)
        self.key, self.params = key, params


class KernelInputError(KernelError, ValueError):
    """Shapes, sizes, head dims or block sizes the kernels cannot run."""


class KernelTypeError(KernelError, TypeError):
    """Wrong dtype or device (e.g. CPU tensors where CUDA was requested)."""


class KernelUnavailable(KernelError, RuntimeError):
    """The requested implementation cannot run here (no triton, no CUDA backend, ...)."""


class KernelResourceError(KernelError, RuntimeError):
    """Triton ran out of shared memory or registers; `config` names the launch that caused it."""

    def __init__(self, message: str, config: dict | None = None):
        super().__init__(message)
        self.config = dict(config or {})


class KernelOutOfMemory(KernelError, MemoryError):
    """The GPU (or host) ran out of memory for this configuration."""
