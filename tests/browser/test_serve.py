"""Several server processes behind HAProxy (flashviz.infra.serve): two real browser sessions are pinned to two different
backends by the proxy's cookie and keep their state there: each one's configuration, its numbers (checked against
the numpy engine), and a download whose file lives in its backend's memory (the deferred export, fetched over
HTTP after the websocket asked for it: on the wrong backend it would be a 404)."""
from __future__ import annotations

import pytest

from helpers import stepper_snapshot
from flashviz.infra import serve

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(serve.haproxy_path() is None, reason="no haproxy (apt-get install haproxy)")]


def test_the_proxy_config_is_sticky_and_proxies_websockets():
    cfg = serve.haproxy_config("0.0.0.0", 8501, [9001, 9002])
    assert "balance leastconn" in cfg and f"cookie {serve.COOKIE} insert indirect nocache" in cfg
    assert "server s0 127.0.0.1:9001 check" in cfg and "cookie s1" in cfg
    assert "option httpchk GET /_stcore/health" in cfg and "timeout tunnel 2h" in cfg


def _session(browser, url: str, seed: int, tile: int):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US", accept_downloads=True)
    page = ctx.new_page()
    page.goto(f"{url}/?lang=en")
    page.locator("[data-fv=label]").wait_for(timeout=90000)
    for field, value in (("seed", seed), ("block_n", tile)):
        box = page.locator(f".st-key-_w-cfg-{field} input")
        box.fill(str(value))
        box.press("Enter")
    return ctx, page


def _at(page, tr, step: int, seed: int) -> None:
    stepper_snapshot.wait_state(page, lambda s: stepper_snapshot.step_problems(s, tr, step, seed), 90, errors=True)


def test_two_sessions_pinned_to_two_backends_keep_their_state(browser, tmp_path):
    from flashviz.i18n import t
    with serve.Cluster(2, log_dir=tmp_path / "serve") as cluster:
        assert cluster.alive() and len(set(cluster.pids)) == 2
        a_ctx, a = _session(browser, cluster.url, 1001, 2)
        b_ctx, b = _session(browser, cluster.url, 1002, 3)
        backend = {name: next(c["value"] for c in ctx.cookies() if c["name"] == serve.COOKIE)
                   for name, ctx in (("a", a_ctx), ("b", b_ctx))}
        assert sorted(backend.values()) == ["s0", "s1"]                    # one session on each backend
        tr_a, tr_b = stepper_snapshot.engine(1001, 2), stepper_snapshot.engine(1002, 3)
        _at(a, tr_a, 0, 1001)
        _at(b, tr_b, 0, 1002)
        for page, tr, seed, steps in ((a, tr_a, 1001, 3), (b, tr_b, 1002, 2)):
            for _ in range(steps):
                page.locator("[data-fv-act=next]").click()
            _at(page, tr, steps, seed)
        box = a.locator(".st-key-_w-cfg-d input")                           # a server run on a's backend ...
        box.fill("4")
        box.press("Enter")
        _at(a, tr_a, 3, 1001)                                               # ... keeps a's state
        for page, ctx in ((a, a_ctx), (b, b_ctx)):                          # a file made in the backend's memory
            page.locator("[data-testid=stPopover]", has_text=t("stepper.export", "en")).first.locator(
                "button").first.click()
            menu = page.locator("[data-testid=stPopoverBody]")
            with page.expect_download(timeout=90000) as dl:
                menu.get_by_role("button", name=t("export.fmt_csv", "en")).first.click()
            path = tmp_path / f"{backend['a' if page is a else 'b']}.csv"
            dl.value.save_as(path)
            text = path.read_text()
            assert "flashviz" in text and "trace,name,type" in text
            seed = 1001 if page is a else 1002
            assert f'"seed": {seed}' in text                               # this session's configuration
        assert next(c["value"] for c in a_ctx.cookies() if c["name"] == serve.COOKIE) == backend["a"]
        a_ctx.close()
        b_ctx.close()
        assert cluster.alive()
