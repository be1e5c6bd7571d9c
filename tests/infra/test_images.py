"""PNG / SVG survive a dying, hanging or unstartable Chromium (flashviz.infra.images through flashviz.charts.export).

Each test gets a renderer state of its own (a fresh browser, stopped at the end), so what one does to its browser
cannot reach the others. The browser's processes are found as children of kaleido's launcher in /proc (the
launcher is a small Python wrapper; Chromium runs under it).
"""
from __future__ import annotations

import io
import json
import os
import signal
import stat
import time
import zipfile

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from helpers.app import APP

from flashviz.charts import export
from flashviz.infra import images, procs

PNG = b"\x89PNG\r\n\x1a\n"
pytestmark = pytest.mark.skipif(images.find_browser() is None, reason="no Chromium here")


@pytest.fixture
def fresh(monkeypatch):
    """A renderer state of this test's own; its browser is stopped afterwards."""
    monkeypatch.setattr(images, "_state", dict(renderer=None, error=None, retry_at=0.0, failures=0,
                                               last_failure=None))
    monkeypatch.setattr(images, "_found", {})
    yield
    images.reset()


def item(k: int = 0) -> export.ChartExport:
    fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[3, 1, k]), layout=dict(title=dict(text=f"chart {k}")))
    return export.ChartExport(f"c{k}", "N16", fig, meta={"k": k})


def chromium() -> list[int]:
    """Process ids of Chromium under the running renderer's launcher."""
    r = images._state["renderer"]
    kids = procs.children(r.process.pid)
    assert kids and all("chrom" in open(f"/proc/{p}/comm").read() for p in kids), kids
    return kids


@pytest.fixture
def spy(monkeypatch):
    """What the renderers did, counted instead of timed: starts (new browsers) and each image's outcome
    ("ok", "timeout" or "failed"). Counts do not depend on how busy the machine is."""
    seen = dict(starts=0, renders=[])
    init, render = images._Renderer.__init__, images._Renderer.render

    def counted_init(self, path):
        init(self, path)
        seen["starts"] += 1

    def counted_render(self, fig, opts, timeout):
        try:
            out = render(self, fig, opts, timeout)
        except images.ImageFailed as e:
            seen["renders"].append("timeout" if e.timed_out else "failed")
            raise
        seen["renders"].append("ok")
        return out
    monkeypatch.setattr(images._Renderer, "__init__", counted_init)
    monkeypatch.setattr(images._Renderer, "render", counted_render)
    return seen


@pytest.mark.timeout(60)
def test_a_killed_browser_is_replaced_on_the_next_export(fresh, spy):
    """A killed browser is seen as dead before the next image is tried: one new start, no image sent to the dead
    one and no timeout waited for (a cold start, not minutes); the image after that reuses the new browser."""
    assert export.to_image(item(), "png").startswith(PNG)
    old = images._state["renderer"]
    kids = chromium()
    for pid in kids:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30                               # a signal is delivered, not instant
    while any(map(procs.running, kids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    svg = export.to_image(item(), "svg")
    assert svg.lstrip().startswith(b"<") and b"<svg" in svg[:400]
    assert spy == dict(starts=2, renders=["ok", "ok"])             # the dead browser was never asked
    assert images._state["renderer"] is not old and old.process.wait(10) is not None
    new = images._state["renderer"]
    assert export.to_image(item(1), "png").startswith(PNG)
    assert images._state["renderer"] is new and spy["starts"] == 2  # and warm again: no third start
    assert export.image_status()[0] and export.last_image_failure() is None


def test_a_stopped_browser_leaves_no_singleton_folder(fresh):
    """Chromium's SingletonSocket folder (/tmp/org.chromium.Chromium.*), which a killed Chromium cannot remove
    itself, goes with the browser: one per replaced browser would otherwise pile up on a classroom server."""
    assert export.to_image(item(), "png").startswith(PNG)
    dirs = procs.singleton_dirs(chromium())
    assert len(dirs) == 1 and all(d.is_dir() for d in dirs) and images._state["renderer"].singletons == dirs, dirs
    images.reset()
    assert not any(d.exists() for d in dirs), dirs


@pytest.mark.timeout(60)
def test_a_hung_browser_is_replaced_before_an_image_waits_for_it(fresh, spy):
    """A browser that runs but never answers (stopped) is seen before any image is sent to it: no timeout waited,
    one new start, and the zip holds every image."""
    export.to_image(item(), "png")
    hung = images._state["renderer"]
    for pid in chromium():
        os.kill(pid, signal.SIGSTOP)                               # alive, but never answers
    data = export.to_zip([item(0), item(1), item(2)], {"page": {"url_path": "test"}})
    assert spy["starts"] == 2 and "timeout" not in spy["renders"]
    man = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("manifest.json"))
    assert man["images"] == "png and svg included"
    assert hung.process.wait(10) is not None                       # the hung browser was killed, group and all


@pytest.mark.timeout(60)
def test_a_browser_hung_mid_image_costs_one_timeout_and_the_zip_says_so(fresh, spy, monkeypatch):
    """Hung while making an image (it answered the check just before): one image's timeout, not one per chart, and
    the page then says why, in words."""
    monkeypatch.setattr(images, "IMAGE_TIMEOUT_S", 2.0)
    export.to_image(item(), "png")
    hung = images._state["renderer"]
    render = images._Renderer.render

    def stop_then_render(self, fig, opts, timeout):                # the browser stops after the check
        for pid in procs.children(self.process.pid) or []:
            os.kill(pid, signal.SIGSTOP)
        return render(self, fig, opts, timeout)
    monkeypatch.setattr(images._Renderer, "render", stop_then_render)
    data = export.to_zip([item(0), item(1), item(2)], {"page": {"url_path": "test"}})
    assert spy["renders"] == ["ok", "timeout"] and hung.process.wait(10) is not None
    z = zipfile.ZipFile(io.BytesIO(data))
    man = json.loads(z.read("manifest.json"))
    assert "png and svg not included" in man["images"] and "within 2 s" in man["images"]
    for c in man["charts"]:                                        # what it lists is what it holds
        assert [n for n in c["files"] if n.endswith((".png", ".svg"))] == []
        assert set(c["errors"]) == {"png", "svg"} and all("not included" in e for e in c["errors"].values())
    assert sorted(z.namelist()) == sorted([f for c in man["charts"] for f in c["files"]] + ["manifest.json"])
    monkeypatch.setattr(images._Renderer, "render", render)
    at = AppTest.from_file(APP, default_timeout=120).run()         # the page says why, in words
    assert any("The last PNG or SVG failed" in c.value and "within 2 s" in c.value for c in at.caption)
    assert export.to_image(item(), "png").startswith(PNG)          # the next image: a fresh browser
    assert export.last_image_failure() is None


CLICK = """
import streamlit as st
from flashviz.ui import common
common.image_clicked("png", st.query_params.get("lang", "en"))
"""


@pytest.mark.timeout(60)
@pytest.mark.parametrize("lang, words", [("en", "did not answer within 1.5 s"), ("zh", "1.5 秒内没有响应")])
def test_a_hung_browser_is_a_message_at_the_click_in_the_pages_language(fresh, lang, words):
    """Clicking PNG with the browser hung: the click's own callback checks it (a DevTools ping) and says so at
    once, in the page's language; the hung browser is dropped, so the download itself starts a fresh one."""
    export.to_image(item(), "png")
    hung = images._state["renderer"]
    for pid in chromium():
        os.kill(pid, signal.SIGSTOP)
    at = AppTest.from_string(CLICK, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    [toast] = at.toast
    assert words in toast.value and "PNG" in toast.value
    assert images._state["renderer"] is None and hung.process.wait(10) is not None
    assert export.to_image(item(), "png").startswith(PNG)          # the next image works again


def test_a_healthy_browser_gives_no_message_at_the_click(fresh):
    export.to_image(item(), "png")
    assert images.check() == (True, images._state["renderer"].path)
    at = AppTest.from_string(CLICK, default_timeout=60).run()
    assert not at.exception and not at.toast


@pytest.mark.timeout(60)
def test_a_failed_start_is_reported_then_retried_after_a_back_off(fresh, monkeypatch, tmp_path):
    fake = tmp_path / "not-a-browser"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    real = images.find_browser()
    monkeypatch.setattr(images, "RETRY_S", (1.5,))
    monkeypatch.setenv("BROWSER_PATH", str(fake))
    with pytest.raises(export.ImagesUnavailable, match="did not start") as e:
        export.to_image(item(), "png")
    assert str(fake) in str(e.value) and "next try in" in str(e.value)
    ok, why = export.image_status()
    assert not ok and "did not start" in why and str(fake) in why
    monkeypatch.setenv("BROWSER_PATH", real)                       # a working browser now (e.g. installed)
    with pytest.raises(export.ImagesUnavailable, match="next try in"):
        export.to_image(item(), "png")                             # not before the back-off
    time.sleep(1.6)
    assert export.image_status() == (True, real)                   # not remembered forever
    assert export.to_image(item(), "png").startswith(PNG)


def test_a_zip_manifest_lists_what_it_really_holds(monkeypatch):
    """Images that work for the first chart and fail for the second: the manifest says which and why, and the
    charts after the failure are not tried (each try could cost a timeout)."""
    calls = []

    def render(fig, opts):
        calls.append(opts["format"])
        if len(calls) > 2:
            raise images.ImageFailed("Chromium did not finish the image within 8 s", timed_out=True)
        return PNG if opts["format"] == "png" else b"<svg xmlns='http://www.w3.org/2000/svg'/>"

    monkeypatch.setattr(images, "render", render)
    monkeypatch.setattr(images, "status", lambda: (True, "/usr/bin/chromium"))
    monkeypatch.setattr(export, "image_status", images.status)
    z = zipfile.ZipFile(io.BytesIO(export.to_zip([item(0), item(1), item(2)])))
    man = json.loads(z.read("manifest.json"))
    assert calls == ["png", "svg", "png"]                          # nothing tried after the failure
    files = [set(c["files"]) for c in man["charts"]]
    assert {f for f in files[0] if f.endswith((".png", ".svg"))} == {"flashviz_c0_N16.png", "flashviz_c0_N16.svg"}
    assert all(not any(f.endswith((".png", ".svg")) for f in fs) for fs in files[1:])
    assert sorted(z.namelist()) == sorted([f for fs in files for f in fs] + ["manifest.json"])
    assert "errors" not in man["charts"][0]
    assert man["charts"][1]["errors"]["png"] == "not included: Chromium did not finish the image within 8 s"
    assert "not included" in man["charts"][2]["errors"]["svg"]
    assert man["images"].startswith("png and svg included for 2 of 6 images") and "within 8 s" in man["images"]


def test_a_tab_without_kaleidos_script_is_reloaded_once_then_renders():
    """kaleido can bind its tab to the blank page's script context on a busy machine (seen in CI: "kaleido_scopes is
    not defined" on the first image of a fresh browser): the renderer reloads the tab once and renders again; a
    second failure is an ImageFailed, not a loop. No browser needed: kaleido's side is a stand-in here."""
    import asyncio
    import threading
    import types

    calls = dict(render=0, reload=0)

    class Tab:
        async def reload(self):
            calls["reload"] += 1

    def fake(fail_times):
        r = object.__new__(images._Renderer)
        r.loop = asyncio.new_event_loop()
        r.thread = threading.Thread(target=r.loop.run_forever, daemon=True)
        r.thread.start()

        async def calc_fig(fig, opts):
            calls["render"] += 1
            if calls["render"] <= fail_times:
                raise RuntimeError(f"ReferenceError: {images.NOT_READY}")
            return b"png"

        async def make():
            q = asyncio.Queue()
            await q.put(Tab())
            return q
        r.k = types.SimpleNamespace(calc_fig=calc_fig,
                                    tabs_ready=asyncio.run_coroutine_threadsafe(make(), r.loop).result(5))
        return r

    for fail_times, ok in ((1, True), (2, False)):
        calls.update(render=0, reload=0)
        r = fake(fail_times)
        try:
            if ok:
                assert r.render({}, {}, 5.0) == b"png"
            else:
                with pytest.raises(images.ImageFailed, match="not defined"):
                    r.render({}, {}, 5.0)
            assert calls == dict(render=2, reload=1)
            assert r.k.tabs_ready.qsize() == 1                        # the tab went back to kaleido's queue
        finally:
            r.loop.call_soon_threadsafe(r.loop.stop)
