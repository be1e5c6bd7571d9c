"""Typed exceptions. Pages catch `FlashvizError` and show its message; the API raises the subclasses."""
from flashviz_kernels import rules


class FlashvizError(Exception):
    """Base class of every error flashviz raises on purpose (never a bug)."""


class InputError(FlashvizError, ValueError):
    """A size, tile, mask or typed score the engine cannot work with."""


class DatasetError(FlashvizError, ValueError):
    """A benchmark dataset (recorded or uploaded) that fails validation."""


def check_int(name: str, x, lo: int | None = None, hi: int | None = None) -> int:
    """x as an int in lo..hi (a bound that is None is no bound), else InputError: the kernels' integer rule
    (flashviz_kernels.rules), so a size the app accepts is one the kernels accept."""
    return rules.check_int(name, x, lo, hi, error=InputError)
