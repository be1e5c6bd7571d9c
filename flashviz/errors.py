"""Typed exceptions. Pages catch `FlashvizError` and show its message; the API raises the subclasses."""


class FlashvizError(Exception):
    """Base class of every error flashviz raises on purpose (never a bug)."""


class InputError(FlashvizError, ValueError):
    """A size, tile, mask or typed score the engine cannot work with."""


class DatasetError(FlashvizError, ValueError):
    """A benchmark dataset (recorded or uploaded) that fails validation."""
