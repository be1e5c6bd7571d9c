"""Say which kernel ran instead of the one the dispatch tables name, and why: one WARNING per distinct reason per
process on the logger "flashviz_kernels" (a classroom server makes the same call thousands of times; it should
say so once, not thousands of times, and not stay silent)."""
import logging
import threading

LOGGER = logging.getLogger("flashviz_kernels")
_said: set = set()
_lock = threading.Lock()


def note(what: str, reason: str) -> bool:
    """Log "flashviz_kernels: WHAT: REASON" once per (what, reason); True when this call logged it."""
    with _lock:
        if (what, reason) in _said:
            return False
        _said.add((what, reason))
    LOGGER.warning("flashviz_kernels: %s: %s", what, reason)
    return True


def forget() -> None:
    """Let every reason be said again (tests; a long-lived process after the setup changed)."""
    with _lock:
        _said.clear()
