"""Typed exceptions. Pages catch `FlashvizError` and show `localized(lang)`; the API raises the subclasses.

An error is raised with a message key and its parameters, `InputError(key="errors.int_range", name="N", lo=1,
hi=16, got=0)`: str() is the English text (for API users and logs), `localized("zh")` the same message in
Chinese (flashviz/i18n/errors.py holds both). A plain message still works and is shown as it is.
"""
from __future__ import annotations

from flashviz_kernels import rules


class FlashvizError(Exception):
    """Base class of every error flashviz raises on purpose (never a bug)."""

    def __init__(self, message: str | None = None, *, key: str | None = None, **params):
        if message is None and key is not None:
            from ..i18n.errors import localize            # late: i18n is plain data, but keep this module light
            message = localize(key, params, "en")
        super().__init__(message or "")
        self.key, self.params = key, params

    def localized(self, lang: str) -> str:
        """The message in `lang`; a wrapped kernel error (raise ... from e) is translated by its own key."""
        from ..i18n.errors import kernel_message, localize
        if self.key is not None:
            return localize(self.key, self.params, lang)
        cause = self.__cause__
        if cause is not None and any(c.__name__ == "KernelError" for c in type(cause).__mro__):
            return kernel_message(cause, lang)
        return str(self)


class InputError(FlashvizError, ValueError):
    """A size, tile, mask or typed score the engine cannot work with."""


class DatasetError(FlashvizError, ValueError):
    """A benchmark dataset (recorded or uploaded) that fails validation."""


def check_int(name: str, x, lo: int | None = None, hi: int | None = None) -> int:
    """x as an int in lo..hi (a bound that is None is no bound), else InputError with a translatable key: the
    kernels' integer rule (flashviz_kernels.rules.as_int: any integral number, never a bool), so a size the app
    accepts is one the kernels accept."""
    v = rules.as_int(x)
    if v is None:
        raise InputError(key="errors.not_int", name=name, got="nothing" if x is None else repr(x))
    if lo is not None and hi is not None and not lo <= v <= hi:
        raise InputError(key="errors.int_range", name=name, lo=lo, hi=hi, got=v)
    if lo is not None and v < lo:
        raise InputError(key="errors.int_min", name=name, lo=lo, got=v)
    if hi is not None and v > hi:
        raise InputError(key="errors.int_max", name=name, hi=hi, got=v)
    return v
