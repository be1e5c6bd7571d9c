"""PNG and SVG of a Plotly figure through kaleido and the system Chromium (no streamlit here).

One browser per server process, started on the first image and shared by every session, one image at a time.
A browser is a helper process that can die or hang; that must cost one image, never the server's images for good:

* Before each image the browser is checked (its launcher and Chromium under it still running, not stopped) and
  pinged over DevTools (PING_TIMEOUT_S); a dead or hung one is replaced at once. If an image fails because the
  browser died on the way, it is made again once on a fresh browser.
* `check()` is that test alone, for the page at the click (ui/common.py): a hung browser is a message there
  within PING_TIMEOUT_S, in the page's language, not a download that never comes.
* Every image has IMAGE_TIMEOUT_S; a browser that overran it is killed (its whole process group) and replaced
  on the next image.
* A browser that fails to start is tried again later, after a back-off (RETRY_S), never remembered forever.
* Failures are typed (ImageError: ImagesUnavailable, ImageFailed) with a message in words; status() and
  last_failure() give the pages something to show. Each message is a Why: English words that also carry a code
  and their values, so a page says it in its own language (flashviz.ui.common.image_why).
"""
from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import signal
import threading
import time
from types import MappingProxyType

from .errors import FlashvizError
from .procs import children, running, singleton_dirs, stopped

START_TIMEOUT_S = 20.0          # a cold start takes 3-10 s on a busy 2-core machine
IMAGE_TIMEOUT_S = 8.0           # one image; a warm browser needs ~0.3 s
QUEUE_TIMEOUT_S = 30.0          # waiting for other sessions' images before giving up on this one
PING_TIMEOUT_S = 1.5            # a DevTools round trip to a healthy browser takes milliseconds
NOT_READY = "kaleido_scopes is not defined"  # kaleido rendered in a script context without its script
RETRY_S = (5.0, 15.0, 60.0, 300.0)      # after the 1st, 2nd, 3rd, later failed start
FIND_TTL_S = 60.0               # the browser search is repeated this often (one may be installed meanwhile)
FAILURE_SHOWN_S = 300.0         # how long the last failed image is reported


class Why(str):
    """A reason in English words (it is that str) that also names its kind (`code`) and the values in it, so a page
    can say it in its own language. Values that are themselves reasons are Whys too."""

    def __new__(cls, text: str, code: str, values: dict | None = None):
        s = super().__new__(cls, text)
        s.code, s.values = code, MappingProxyType(dict(values or {}))    # read-only: NO_BROWSER, HUNG are shared
        return s

    def __reduce__(self):
        return Why, (str(self), self.code, dict(self.values))


def _why(e: BaseException) -> Why | str:
    """The reason an exception was raised with (a Why where this module raised it), else its text."""
    return e.args[0] if e.args and isinstance(e.args[0], Why) else str(e)


def _detail(e: BaseException) -> str:
    """`Type: message` of a helper's exception, for a reason's `detail`."""
    return f"{type(e).__name__}: {e or 'no details'}"


HUNG = Why(f"the export browser did not answer within {PING_TIMEOUT_S:g} s; it is restarted", "hung",
           dict(s=f"{PING_TIMEOUT_S:g}"))


class ImageError(FlashvizError, RuntimeError):
    """A PNG or SVG could not be made; str(e) says why, in words."""


class ImagesUnavailable(ImageError):
    """No browser here, or it failed to start (tried again after a back-off)."""


class ImageFailed(ImageError):
    """This image failed (the browser hung, died or refused it); the next image may work."""

    def __init__(self, msg: str, *, timed_out: bool = False):
        super().__init__(msg)
        self.timed_out = timed_out


# ----------------------------------------------------------------------------- finding a browser

_found: dict = {}


def find_browser() -> str | None:
    """BROWSER_PATH if set (None when it is not an executable file), else a Chromium on PATH or in a typical place
    (choreographer's search, which kaleido itself uses). Never downloads anything. Searched again after FIND_TTL_S."""
    env = os.environ.get("BROWSER_PATH")
    now = time.monotonic()
    if _found.get("env", 0) == env and now - _found.get("at", -1e9) < FIND_TTL_S:
        return _found["path"]
    if env is not None:
        path = env if os.path.isfile(env) and os.access(env, os.X_OK) else None
    else:
        try:
            from choreographer.browsers.chromium import Chromium
            path = Chromium.find_browser(skip_local=False)
        except Exception:                                                # choreographer's internals moved
            path = None
        path = path or next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    _found.update(env=env, at=now, path=path)
    return path


# status()'s why on a machine without a browser (the pages say it in their language: flashviz.ui.common.image_why)
NO_BROWSER = Why("no Chromium or Chrome found (on Debian: apt-get install chromium)", "no_browser")


def no_browser_reason() -> Why:
    env = os.environ.get("BROWSER_PATH")
    if env is not None:
        return Why(f"no browser at BROWSER_PATH={env}", "no_browser_at", dict(path=env))
    return NO_BROWSER


def _retry(error: Why, wait: float) -> Why:
    return Why(f"{error}; next try in {wait:.0f} s", "retry", dict(why=error, s=f"{wait:.0f}"))


# ----------------------------------------------------------------------------- one browser

class _Renderer:
    """One kaleido (one Chromium tab) on an event loop in a daemon thread."""

    def __init__(self, path: str):
        import kaleido

        self.path, self.k, self.singletons = path, None, set()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="flashviz-kaleido", daemon=True)
        self.thread.start()

        async def start():
            self.k = kaleido.Kaleido(n=1, timeout=None, mathjax=False, path=path)   # our timeouts; no CDN MathJax
            await self.k.open()

        fut = asyncio.run_coroutine_threadsafe(start(), self.loop)
        try:
            fut.result(START_TIMEOUT_S)
        except TimeoutError:
            fut.cancel()
            self.kill()
            raise TimeoutError(f"no answer within {START_TIMEOUT_S:g} s") from None
        except BaseException:
            self.kill()
            raise
        proc = self.process                                          # read now: kill() may find Chromium dead
        self.singletons = singleton_dirs(children(proc.pid) or []) if proc is not None else set()

    @property
    def process(self):
        return getattr(self.k, "subprocess", None)

    def alive(self) -> bool:
        """The loop runs, the launcher runs and (where /proc tells) every Chromium process under it runs."""
        proc = self.process
        if not self.thread.is_alive() or proc is None or proc.poll() is not None:
            return False
        kids = children(proc.pid)
        if kids is None:
            return True
        return not stopped(proc.pid) and not any(map(stopped, kids)) and any(map(running, kids))

    def answers(self, timeout: float = PING_TIMEOUT_S) -> bool:
        """Chromium answers a DevTools command (Browser.getVersion) within `timeout` seconds."""
        fut = asyncio.run_coroutine_threadsafe(self.k.send_command("Browser.getVersion"), self.loop)
        try:
            fut.result(timeout)
            return True
        except BaseException:
            fut.cancel()
            return False

    def render(self, fig: dict, opts: dict, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        for attempt in (1, 2):
            fut = asyncio.run_coroutine_threadsafe(self.k.calc_fig(fig, opts=opts), self.loop)
            try:
                return fut.result(max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                fut.cancel()
                raise ImageFailed(Why(f"Chromium did not finish the image within {timeout:g} s", "timeout",
                                      dict(s=f"{timeout:g}")), timed_out=True) from None
            except Exception as e:
                # kaleido can take the blank page's script context for its own on a busy machine (its tab navigates,
                # then waits for the first new context): its script is then "not defined". Reload the tab once.
                if attempt == 1 and NOT_READY in str(e) and self._reload_tab(deadline):
                    continue
                raise ImageFailed(Why(f"Chromium could not make the image ({_detail(e)})", "render_failed",
                                      dict(detail=_detail(e)))) from e
        raise AssertionError("unreachable")

    def _reload_tab(self, deadline: float) -> bool:
        """Reload kaleido's tab (a fresh script context, kaleido's own Tab.reload); True if that finished in time."""
        async def reload():
            tab = await self.k.tabs_ready.get()
            try:
                await tab.reload()
            finally:
                await self.k.tabs_ready.put(tab)
        fut = asyncio.run_coroutine_threadsafe(reload(), self.loop)
        try:
            fut.result(max(0.1, deadline - time.monotonic()))
            return True
        except BaseException:
            fut.cancel()
            return False

    def kill(self) -> None:
        """Stop the browser (its process group: the launcher, Chromium and its helpers), then the loop."""
        proc = self.process
        left = self.singletons | (singleton_dirs(children(proc.pid) or []) if proc is not None else set())
        if proc is not None and proc.poll() is None:
            try:
                if os.getpgid(proc.pid) == proc.pid:                 # started in a session of its own
                    os.killpg(proc.pid, signal.SIGKILL)
                else:
                    for pid in (children(proc.pid) or []) + [proc.pid]:
                        os.kill(pid, signal.SIGKILL)
                proc.wait(5)
            except Exception:                                        # already gone, or not ours to signal
                pass
        if self.k is not None and self.thread.is_alive():           # let kaleido remove its temporary files
            try:
                asyncio.run_coroutine_threadsafe(self.k.close(), self.loop).result(5)
            except BaseException:                                    # a dead browser may refuse; it is killed
                pass
        for d in left:                                               # what a killed Chromium cannot remove
            shutil.rmtree(d, ignore_errors=True)
        self.loop.call_soon_threadsafe(self.loop.stop)


# ----------------------------------------------------------------------------- the process's browser

_lock = threading.Lock()                  # guards _state (held only briefly: status() must stay instant)
_render_lock = threading.Lock()           # one image at a time (one tab)
_state: dict = dict(renderer=None, error=None, retry_at=0.0, failures=0, last_failure=None)


def _drop(r: _Renderer) -> None:
    """Forget a broken renderer and kill it in the background (a hung close must not hold up the caller)."""
    with _lock:
        if _state["renderer"] is r:
            _state["renderer"] = None
    threading.Thread(target=r.kill, name="flashviz-kaleido-kill", daemon=True).start()


def _get() -> _Renderer:
    with _lock:
        r = _state["renderer"]
    if r is not None:
        if r.alive():
            return r
        _drop(r)
    with _lock:
        wait = _state["retry_at"] - time.monotonic()
        if _state["error"] and wait > 0:
            raise ImagesUnavailable(_retry(_state["error"], wait))
    path = find_browser()
    if path is None:
        raise ImagesUnavailable(no_browser_reason())
    try:
        r = _Renderer(path)
    except Exception as e:
        with _lock:
            _state["failures"] += 1
            delay = RETRY_S[min(_state["failures"], len(RETRY_S)) - 1]
            detail = e.args[0] if e.args and isinstance(e.args[0], str) else str(e) or "no details"
            detail = f"{type(e).__name__}: {detail}"
            _state["error"] = Why(f"Chromium at {path} did not start ({detail})", "start_failed",
                                  dict(path=path, detail=detail))
            _state["retry_at"] = time.monotonic() + delay
        raise ImagesUnavailable(_retry(_state["error"], delay)) from e
    with _lock:
        _state.update(renderer=r, error=None, failures=0)
    return r


def _hung(r: _Renderer) -> str:
    """Forget a browser that does not answer (killed in the background) and say so."""
    _drop(r)
    with _lock:
        _state["last_failure"] = (time.monotonic(), HUNG)
    return HUNG


def check(timeout: float = PING_TIMEOUT_S) -> tuple[bool, str]:
    """(True, browser) if images can be made now, else (False, why) within about `timeout` seconds. A browser that
    is running but does not answer (hung, stopped) is dropped here, so the next image starts a fresh one."""
    with _lock:
        r = _state["renderer"]
    if r is None:
        return status()
    if not r.alive() or not r.answers(timeout):
        return False, _hung(r)
    return True, r.path


def render(fig: dict, opts: dict) -> bytes:
    """Image bytes of the figure dict `fig` with kaleido's `opts` (format, width, height, scale)."""
    if not _render_lock.acquire(timeout=QUEUE_TIMEOUT_S):
        raise ImageFailed(Why(f"other images were being made for more than {QUEUE_TIMEOUT_S:g} s; try again",
                              "queue", dict(s=f"{QUEUE_TIMEOUT_S:g}")))
    try:
        for attempt in (1, 2):
            r = _get()
            if not r.answers():                                      # hung: a fresh browser, at once
                _hung(r)
                r = _get()
            try:
                out = r.render(fig, opts, IMAGE_TIMEOUT_S)
            except ImageFailed as e:
                broken = e.timed_out or not r.alive()
                if broken:
                    _drop(r)
                if attempt == 1 and broken and not e.timed_out:     # the browser had died: once more, afresh
                    continue
                msg = Why(f"{e}; the browser is restarted for the next image", "restarted",
                          dict(why=_why(e))) if broken else _why(e)
                with _lock:
                    _state["last_failure"] = (time.monotonic(), msg)
                raise ImageFailed(msg, timed_out=e.timed_out) from e
            with _lock:
                _state["last_failure"] = None
            return out
        raise AssertionError("unreachable")
    finally:
        _render_lock.release()


def status() -> tuple[bool, str]:
    """(True, browser path) if images can be tried now, else (False, why). Instant: starts nothing."""
    with _lock:
        r, error, wait = _state["renderer"], _state["error"], _state["retry_at"] - time.monotonic()
    if r is not None:
        return True, r.path
    if error and wait > 0:
        return False, _retry(error, wait)
    path = find_browser()
    return (True, path) if path else (False, no_browser_reason())


def last_failure() -> str | None:
    """Why the last image failed, if the last image failed within FAILURE_SHOWN_S."""
    with _lock:
        f = _state["last_failure"]
    return f[1] if f and time.monotonic() - f[0] < FAILURE_SHOWN_S else None


def reset() -> None:
    """Stop the browser and forget failures and the browser search: the next image starts afresh."""
    with _lock:
        r = _state["renderer"]
        _state.update(renderer=None, error=None, retry_at=0.0, failures=0, last_failure=None)
        _found.clear()
    if r is not None:
        r.kill()


@atexit.register
def _stop_at_exit() -> None:
    r = _state["renderer"]
    if r is not None:
        r.kill()
