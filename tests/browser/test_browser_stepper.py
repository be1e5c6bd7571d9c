"""The stepper drawn in the browser (flashviz/client): what runs there is checked against the Python that used to
run on the server. Number formatting is Python's to the last digit (ties included); the four charts at a step hold
the data flashviz.charts.stepper's builders give for that step; the formulas read like charts.stepper_formula's
text and do not overflow at 1400 px; the page opens with its idea and its picture above the fold, with at most
600 words outside expanders; the offline stepper (the page's export) steps to the engine's numbers from disk with
every network request refused.
"""
from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

from helpers import stepper_snapshot
from helpers.browser import settle
from flashviz.charts import stepper as charts
from flashviz.charts.common import fmt_num
from flashviz.charts.stepper_formula import text_lines
from flashviz.i18n import t
from flashviz.engine.online_softmax import online_softmax_trace
from flashviz.ui.config import Config, row_problem

pytestmark = pytest.mark.browser


def _open(browser, url: str, query: str = "lang=en", *, width: int = 1400, height: int = 1000):
    page = browser.new_page(viewport={"width": width, "height": height}, locale="en-US", accept_downloads=True)
    page.goto(f"{url}/?{query}")
    page.locator("[data-fv-chart=strip].js-plotly-plot").wait_for(timeout=90000)
    return page


def _set(page, field: str, value) -> None:
    box = page.locator(f".st-key-_w-cfg-{field} input")
    box.fill(str(value))
    box.press("Enter")


def _step_to(page, step: int) -> None:
    page.locator("[data-fv-act=slider]").fill(str(step + 1))
    page.wait_for_function(f"() => document.querySelector('[data-fv-part=main]')?.dataset.fvStep === '{step}'")


def _engine(cfg: Config, form: str = "fa2"):
    s, v = row_problem(cfg)
    return online_softmax_trace(s, v, cfg.tile, guard=cfg.guard, form=form)


# ----------------------------------------------------------------------------- numbers

def test_numbers_are_formatted_exactly_as_python_formats_them(browser):
    from flashviz import client
    rng = random.Random(7)
    vals = [0.0, -0.0, 0.03125, 1.15625, 2.5, 0.125, -0.00001, 1e-17, 5e-324, 9.99995e-4, 123456.78125,
            1.7976931348623157e308, float("nan"), float("inf"), float("-inf")]
    vals += [rng.choice((-1, 1)) * 10 ** rng.uniform(-18, 7) for _ in range(600)]
    vals += [rng.randint(-10**6, 10**6) / 2 ** rng.randint(0, 12) for _ in range(300)]      # exact ties
    page = browser.new_page()
    page.add_script_tag(content=client.read("fmt.js"))
    got = page.evaluate("""vals => ({num: vals.map(v => FV.fmt.fmtNum(v)), f2: vals.map(v => FV.fmt.pyF(v, 2)),
        e2: vals.map(v => FV.fmt.pyE(v, 2)), e1: vals.map(v => FV.fmt.pyE(v, 1)),
        g4: vals.map(v => FV.fmt.pyG(v, 4))})""",
                        vals)
    page.close()
    assert got["num"] == [fmt_num(v) for v in vals]
    assert got["f2"] == [f"{v:.2f}" for v in vals]
    assert got["e2"] == [f"{v:.2e}" for v in vals]
    assert got["e1"] == [f"{v:.1e}" for v in vals]
    assert got["g4"] == [f"{v:.4g}" for v in vals]


# ----------------------------------------------------------------------------- charts and formulas

CHART_JS = """name => { const gd = document.querySelector(`[data-fv-chart=${name}]`);
  const T = {f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array, i1: Int8Array, u1: Uint8Array,
             u2: Uint16Array, u4: Uint32Array};
  const typed = a => { const b = atob(a.bdata), u = new Uint8Array(b.length);      // plotly's typed-array spec
    for (let i = 0; i < b.length; i++) u[i] = b.charCodeAt(i);
    const flat = Array.from(new T[a.dtype.replace(/^[<>|]/, '')](u.buffer));
    if (!a.shape) return flat;
    const [r, c] = String(a.shape).split(',').map(Number);
    return Array.from({length: r}, (_, i) => flat.slice(i * c, (i + 1) * c)); };
  const plain = a => (a === undefined || a === null) ? null : (a.bdata ? typed(a) :
      Array.from(a, v => Array.isArray(v) || ArrayBuffer.isView(v) ? plain(v) : v));
  return {data: gd.data.map(d => ({x: plain(d.x), y: plain(d.y), z: plain(d.z), text: plain(d.text),
                                   customdata: plain(d.customdata), name: d.name, mode: d.mode,
                                   color: d.marker && d.marker.color})),
          annotations: (gd.layout.annotations || []).map(a => [a.x, a.text, a.xanchor, a.font && a.font.color]),
          shapes: (gd.layout.shapes || []).map(s => [s.x0, s.x1]), title: gd.layout.title.text}; }"""


def _arr(a):
    if a is None:
        return None
    if isinstance(a, dict):                                    # a plotly 7 typed array
        from helpers import app as app_util
        a = app_util.array(a)
    return np.asarray(a, dtype=object).tolist()


def _same(got, want, what):
    if want is None or (isinstance(want, list) and not want and got in (None, [])):
        return
    g, w = np.asarray(got, dtype=object), np.asarray(want, dtype=object)
    assert g.shape == w.shape, (what, g.shape, w.shape)
    for x, y in zip(g.ravel(), w.ravel()):
        if isinstance(y, float) and math.isnan(y):
            assert x is None or (isinstance(x, float) and math.isnan(x)), (what, x, y)
        else:
            assert x == y, (what, x, y)


def _compare(page, name: str, fig) -> None:
    got = page.evaluate(CHART_JS, name)
    want = fig.to_plotly_json()
    for i, tr in enumerate(want["data"]):
        for key in ("x", "y", "z", "text", "customdata"):
            _same(got["data"][i][key], _arr(tr.get(key)), f"{name}.data[{i}].{key}")
        if tr.get("mode"):
            assert got["data"][i]["mode"] == tr["mode"], (name, i)
        if tr.get("name"):
            assert got["data"][i]["name"] == tr["name"], (name, i)
    lay = want["layout"]
    ann = [[a["x"], a["text"], a.get("xanchor"), a.get("font", {}).get("color")] for a in lay.get("annotations", [])]
    assert got["annotations"] == ann, name
    assert got["shapes"] == [[s["x0"], s["x1"]] for s in lay.get("shapes", [])], name
    assert got["title"] == lay["title"]["text"], name


@pytest.mark.parametrize("tile, causal", [(3, False), (4, True)])
def test_charts_at_each_step_are_the_python_builders(browser, app_url, tile, causal):
    """Ragged last tile (Bc = 3), and a causal row whose later tiles are masked (−∞, text marks)."""
    page = _open(browser, app_url)
    _set(page, "block_n", tile)
    if causal:
        page.locator(".st-key-_w-cfg-causal label").click()
        _set(page, "row", 9)
    cfg = Config(block_n=tile, causal=causal, row=9 if causal else 15)
    tr = _engine(cfg)
    page.get_by_text(f"Step 1 of {tr.steps}").first.wait_for(timeout=60000)
    page.locator("[data-testid=stExpander] summary", has_text=t("stepper.exp_acc", "en")).click()
    page.locator("[data-fv-chart=error].js-plotly-plot").wait_for(timeout=30000)
    for step in sorted({0, 1, tr.steps // 2, tr.steps - 1}):
        _step_to(page, step)
        settle(page, draw_ms=300)
        _compare(page, "strip", charts.strip_figure(tr, step, "en"))
        _compare(page, "recurrence", charts.recurrence_figure(tr, step, "en"))
        _compare(page, "accumulator", charts.accumulator_figure(tr, step, "en"))
        _compare(page, "error", charts.error_figure(tr, step, "en"))
    page.close()


def _formula_text(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('[data-fv=formula] .fv-line')].map(e => e.textContent)")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_formulas_carry_each_steps_numbers_and_wrap(browser, app_url, lang):
    page = _open(browser, app_url, query=f"lang={lang}")
    _set(page, "d", 64)                                       # long vectors: the o_new line is the widest
    cfg = Config(d=64)
    fa2, fa1 = _engine(cfg, "fa2"), _engine(cfg, "fa1")
    label = "Step 1 of 4" if lang == "en" else "第 1 / 4 步"
    page.get_by_text(label).first.wait_for(timeout=60000)
    page.locator("[data-testid=stExpander] summary", has_text=t("stepper.exp_formula", lang)).click()
    page.locator("[data-fv=formula] .fv-line").first.wait_for(timeout=30000)
    for step in range(4):
        _step_to(page, step)
        assert _formula_text(page) == text_lines(fa2, step)
    page.locator("[data-fv-form=fa1]").click()
    page.wait_for_function("() => document.querySelector('[data-fv-form=fa1]').getAttribute('aria-pressed') === 'true'")
    assert _formula_text(page) == text_lines(fa1, 3)
    assert "diag" in _formula_text(page)[3]
    agree = page.locator("[data-fv=agree]").inner_text()
    gap = float(np.max(np.abs(fa1.output - fa2.output)))
    assert f"{gap:.1e}" in agree
    page.locator("[data-fv-form=fa2]").click()
    box = page.evaluate("""() => { const el = document.querySelector('[data-fv=formula]');
        const lines = [...el.querySelectorAll('.fv-line')];
        return {scroll: el.scrollWidth, client: el.clientWidth,
                over: lines.map(l => l.scrollWidth - l.clientWidth),
                right: Math.max(...lines.map(l => l.getBoundingClientRect().right)),
                main: document.querySelector('[data-testid=stMain]').getBoundingClientRect().right,
                oHeight: lines[3].getBoundingClientRect().height,
                mHeight: lines[0].getBoundingClientRect().height}; }""")
    assert box["scroll"] <= box["client"] and max(box["over"]) <= 0, box        # no horizontal overflow ...
    assert box["right"] <= box["main"], box
    assert box["oHeight"] > 1.5 * box["mHeight"], box                           # ... because o_new wraps
    page.close()


# ----------------------------------------------------------------------------- the page as a lesson

def test_idea_and_picture_above_the_fold_and_prose_budget(browser, app_url):
    page = _open(browser, app_url)
    settle(page, draw_ms=500)
    fold = page.evaluate("""() => { const r = e => e.getBoundingClientRect();
        const intro = document.querySelector('[data-testid=stMain] [data-testid=stMarkdownContainer] p');
        return {intro: r(intro).bottom, strip: r(document.querySelector('[data-fv-chart=strip]')).bottom,
                label: document.querySelector('[data-fv=label]').textContent}; }""")
    assert fold["intro"] < fold["strip"] <= 1000, fold                       # idea, then the picture, above the fold
    words = page.evaluate("""() => { const main = document.querySelector('[data-testid=stMain]').cloneNode(true);
        main.querySelectorAll('[data-testid=stExpander], [data-testid=stPopover], .js-plotly-plot, table, ' +
                              '[data-fv-chart], [data-testid=stSidebar]').forEach(e => e.remove());
        return main.textContent.split(/\\s+/).filter(w => /[A-Za-z]/.test(w)).length; }""")
    assert 40 < words <= 600, words
    page.close()


# ----------------------------------------------------------------------------- offline

def test_offline_stepper_steps_from_disk_with_no_network(browser, app_url, tmp_path):
    page = _open(browser, app_url)
    _set(page, "block_n", 3)                                                  # Tc = 6, a ragged last tile
    tr = stepper_snapshot.engine(12, 3)
    page.get_by_text("Step 1 of 6").first.wait_for(timeout=60000)
    settle(page, draw_ms=300)
    page.locator("[data-testid=stPopover]", has_text=t("stepper.export", "en")).first.locator("button").first.click()
    menu = page.locator("[data-testid=stPopoverBody]")
    with page.expect_download(timeout=120000) as dl:
        menu.get_by_role("button", name=t("stepper.export_html", "en")).click()
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    page.close()
    assert path.name == "flashviz_stepper_N16_d4_Br4_Bc3_fp32_seed12_row15.html"

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    refused = []

    def block(route):
        refused.append(route.request.url)
        route.abort()
    ctx.route(re.compile(r"^(?!file:).*"), block)                            # every request but the file itself
    off = ctx.new_page()
    off.goto(path.as_uri())
    off.locator("[data-fv-chart=strip].js-plotly-plot").wait_for(timeout=60000)

    def at(step):
        off.wait_for_function(f"() => document.querySelector('[data-fv-part=main]').dataset.fvStep === '{step}'")
        snap = off.evaluate(stepper_snapshot.SNAPSHOT_JS)
        assert stepper_snapshot.step_problems(snap, tr, step, 12, caption=False) == []
        return snap

    at(0)
    off.locator("[data-fv-act=next]").click()                                # buttons
    at(1)
    off.locator("[data-fv-act=slider]").fill("4")                            # slider
    at(3)
    off.locator("h1").click()
    off.keyboard.press("ArrowRight")                                        # keys
    at(4)
    off.keyboard.press("End")
    snap = at(5)
    assert snap["metrics"]["Max error vs exact"] == f"{tr.error(5):.2e}"    # the exact answer, reached offline
    assert off.evaluate("document.querySelectorAll('.js-plotly-plot').length") == 4
    assert refused == []                                                     # it asked for nothing
    ctx.close()
