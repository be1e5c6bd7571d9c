"""Every reason flashviz.infra.images gives for a PNG / SVG it cannot make is an images.Why: the English words its
API has always returned, plus a code and values that the pages say in their own language (ui.common.image_why).

No browser is needed: each reason is made by the module's own code with its helper replaced (no browser found, a
browser that fails to start, a tab that hangs or refuses the figure, a queue that does not move)."""
from __future__ import annotations

import asyncio
import pickle
import re
import threading

import pytest

from helpers.zh import LATIN_RUN

from flashviz.i18n import LANGS, STRINGS, t
from flashviz.infra import images
from flashviz.ui.common import image_why


@pytest.fixture
def fresh(monkeypatch):
    """A renderer state of this test's own, and no browser search cached from another test."""
    monkeypatch.setattr(images, "_state", dict(renderer=None, error=None, retry_at=0.0, failures=0,
                                               last_failure=None))
    monkeypatch.setattr(images, "_found", {})
    monkeypatch.delenv("BROWSER_PATH", raising=False)


class FakeKaleido:
    """kaleido's calc_fig, replaced: hangs, or refuses the figure with `error`."""

    def __init__(self, error: Exception | None):
        self.error = error

    async def calc_fig(self, fig, opts):
        if self.error is None:
            await asyncio.sleep(60)
        raise self.error


def fake_renderer(error: Exception | None, *, alive: bool = True) -> images._Renderer:
    """A _Renderer whose tab runs on a loop of its own but whose kaleido is FakeKaleido (nothing started)."""
    r = object.__new__(images._Renderer)
    r.path, r.k, r.loop = "/usr/bin/fake-chromium", FakeKaleido(error), asyncio.new_event_loop()
    threading.Thread(target=r.loop.run_forever, daemon=True).start()
    r.alive = lambda: alive
    r.answers = lambda timeout=0: True
    r.kill = lambda: None                             # images drops a broken one; the test stops its loop
    return r


def stop(r: images._Renderer) -> None:
    async def cancel_all():
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()
    asyncio.run_coroutine_threadsafe(cancel_all(), r.loop).result(5)
    r.loop.call_soon_threadsafe(r.loop.stop)


def reasons(monkeypatch) -> dict[str, images.Why]:
    """One reason of each kind, each made by images' own code."""
    out = {}
    monkeypatch.setattr(images, "find_browser", lambda: None)
    out["no_browser"] = images.status()[1]
    monkeypatch.setenv("BROWSER_PATH", "/nowhere/chrome")
    out["no_browser_at"] = images.status()[1]
    monkeypatch.delenv("BROWSER_PATH")

    def refuse(self, path):
        raise RuntimeError("exit code 3")
    monkeypatch.setattr(images, "find_browser", lambda: "/usr/bin/fake-chromium")
    monkeypatch.setattr(images._Renderer, "__init__", refuse)
    with pytest.raises(images.ImagesUnavailable) as e:
        images.render({}, {})
    out["retry"] = e.value.args[0]
    out["retry, from status()"] = images.status()[1]

    images._state.update(error=None, retry_at=0.0)
    for name, err, alive, limit in (("timeout", None, True, 0.2), ("render_failed", ValueError("bad figure"), True, 30),
                                    ("restarted", ValueError("target closed"), False, 30)):
        monkeypatch.setattr(images, "IMAGE_TIMEOUT_S", limit)     # a refusal comes at once, however busy the machine
        r = fake_renderer(err, alive=alive)
        monkeypatch.setattr(images, "_get", lambda r=r: r)
        with pytest.raises(images.ImageFailed) as e:
            images.render({}, {})
        out[name] = images.last_failure()
        assert e.value.args[0] == out[name]
        stop(r)

    monkeypatch.setattr(images, "QUEUE_TIMEOUT_S", 0.05)
    with images._render_lock:                                        # another session's image, never done
        with pytest.raises(images.ImageFailed) as e:
            images.render({}, {})
    out["queue"] = e.value.args[0]
    out["hung"] = images.HUNG
    return out


def test_every_reason_is_a_why_whose_english_is_the_apis_words(fresh, monkeypatch):
    """The English a page shows is what str(reason) says (markdown code spans aside), for every code; the codes
    are the ones the strings file translates."""
    got = reasons(monkeypatch)
    assert got["retry"].values["why"].code == "start_failed"
    assert got["restarted"].values["why"].code == "render_failed"     # it died while refusing: once more, then this
    assert got["timeout"].code == "restarted" and got["timeout"].values["why"].code == "timeout"
    assert got["render_failed"].code == "render_failed"              # alive and refusing: the next image may work
    for name, why in got.items():
        assert isinstance(why, images.Why), name
        assert image_why(why, "en").replace("`", "") == str(why), name
    codes = {w.code for w in got.values()} | {w.values["why"].code for w in got.values() if "why" in w.values}
    assert codes == {k.removeprefix("export.why_") for k in STRINGS if k.startswith("export.why_")}
    assert "/usr/bin/fake-chromium" in got["retry"] and "exit code 3" in got["retry"]
    assert "0.2 s" in got["timeout"] and "bad figure" in got["render_failed"] and "0.05 s" in got["queue"]


@pytest.mark.parametrize("lang", [x for x in LANGS if x != "en"])
def test_every_reason_is_said_in_the_pages_language(fresh, monkeypatch, lang):
    """On a Chinese page no reason shows English prose: the browser's own words and paths sit in code spans, and
    each number the English names is there too."""
    for name, why in reasons(monkeypatch).items():
        said = image_why(why, lang)
        assert said != str(why) and not LATIN_RUN.findall(re.sub(r"`[^`]*`", "", said)), (name, said)
        for number in re.findall(r"\d+(?:\.\d+)?", re.sub(r"/\S+", "", str(why))):
            assert number in said, (name, number, said)


def test_a_reason_survives_pickling_and_a_plain_string_passes_through(fresh, monkeypatch):
    """A Why crossing a process or a cache keeps its code; a reason from elsewhere (a plain str) is shown as is."""
    for why in reasons(monkeypatch).values():
        back = pickle.loads(pickle.dumps(why))
        assert (back, back.code, back.values) == (why, why.code, why.values)
    assert image_why("images not requested", "zh") == "images not requested"
    assert image_why(images.Why("a `b` c", "render_failed", dict(detail="x `y`")), "en") == \
        t("export.why_render_failed", "en", detail="`x 'y'`")          # a backtick cannot end the span early
