"""Chart export (flashviz.charts.export, ui.common.chart): every format from real figures is valid, file names carry the
configuration, the page's zip holds everything plus a manifest, and without a browser images degrade to a
message while HTML / CSV / JSON still work.

Real figures come from every page of the app (AppTest, one run each): `chart()` registers each figure it draws,
so every chart builder a page uses is covered, including pages added later. Kaleido runs in one process-wide
browser (started once), for one chart per page.
"""
from __future__ import annotations

import csv
import io
import json
import math
import struct
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from flashviz.charts import export
from flashviz.infra import images
from flashviz.charts.common import EXPORT_SCALE, EXPORT_WIDTH
from flashviz.ui.common import REGISTRY
from flashviz.ui.pages import scale, switch
from flashviz.ui.state import SCALES
from helpers.app import PAGES

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def open_page(path: str, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    if path != PAGES[0][0]:
        switch(at, path).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="module")
def page_charts() -> dict[str, dict]:
    """{page slug: the registry after one run of that page}."""
    out = {}
    for path, _ in PAGES:
        at = open_page(path)
        out[path] = {"registry": at.session_state[REGISTRY], "at": at}
    return out


# ----------------------------------------------------------------------------- validators

def png_size(b: bytes) -> tuple[int, int]:
    assert b[:8] == b"\x89PNG\r\n\x1a\n", b[:8]
    assert b[12:16] == b"IHDR"
    return struct.unpack(">II", b[16:24])


def check_svg(b: bytes) -> None:
    root = ET.fromstring(b)
    assert root.tag.endswith("svg"), root.tag


def csv_rows(b: bytes) -> tuple[list[str], list[dict]]:
    text = b.decode("utf-8")
    lines = [ln for ln in text.splitlines() if not ln.startswith("# ")]
    heads = [ln[2:] for ln in text.splitlines() if ln.startswith("# ")]
    return heads, list(csv.DictReader(io.StringIO("\n".join(lines))))


def num(s: str) -> float | None:
    return None if s == "" else float(s)


def same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return (math.isnan(a) and math.isnan(b)) or a == b


# ----------------------------------------------------------------------------- a figure with every kind of data

@pytest.fixture
def item() -> export.ChartExport:
    fig = go.Figure(data=[
        dict(type="scatter", x=np.arange(5), y=np.array([1.5, np.nan, -np.inf, np.inf, 2.0]), name="m (running max)",
             customdata=np.array([["a", "b"]] * 5, dtype=object)),
        dict(type="heatmap", z=np.arange(6, dtype=np.float64).reshape(2, 3), x0=10, dx=2, y=[0, 1], name="grid"),
        dict(type="bar", x=["q", "k", "v"], y=[3, 2, 1], name="HBM 读写"),
    ], layout=dict(template="none", title=dict(text="在线 softmax · test"), xaxis=dict(title=dict(text="tile"))),
        _validate=False)
    return export.ChartExport("test", "N16_d4_Bc4_fp32", fig, meta={"configuration": {"n": 16, "d": 4},
                                                                     "device": "NVIDIA H200"}, height=360)


def test_csv_rows_equal_trace_data(item):
    heads, rows = csv_rows(export.to_csv(item))
    assert any(h.startswith("configuration:") and '"n": 16' in h for h in heads)
    assert "device: NVIDIA H200" in heads and "chart: test" in heads
    line = [r for r in rows if r["trace"] == "0"]
    assert [num(r["x"]) for r in line] == [0, 1, 2, 3, 4]
    assert all(same(num(r["y"]), v) for r, v in zip(line, [1.5, math.nan, -math.inf, math.inf, 2.0]))
    assert line[0]["customdata"] == "a | b" and line[0]["name"] == "m (running max)"
    cells = [r for r in rows if r["trace"] == "1"]                       # 2 x 3 cells, x from x0 + dx * j
    assert [(int(r["i"]), int(r["j"]), num(r["x"]), num(r["y"]), num(r["z"])) for r in cells] == \
        [(i, j, 10 + 2 * j, i, 3 * i + j) for i in range(2) for j in range(3)]
    bars = [r for r in rows if r["trace"] == "2"]
    assert [(r["x"], num(r["y"]), r["name"]) for r in bars] == [("q", 3, "HBM 读写"), ("k", 2, "HBM 读写"),
                                                                 ("v", 1, "HBM 读写")]


def test_json_round_trips(item):
    doc = json.loads(export.to_json(item))
    assert doc["meta"]["configuration"] == {"n": 16, "d": 4} and doc["meta"]["title"] == "在线 softmax · test"
    assert doc["axes"] == {"xaxis": "tile"}
    tr = doc["traces"]
    assert tr[0]["y"] == [1.5, None, None, None, 2.0] and tr[0]["x"] == [0, 1, 2, 3, 4]
    assert tr[1]["z"] == [[0, 1, 2], [3, 4, 5]] and tr[1]["x0"] == 10
    assert json.loads(json.dumps(doc)) == doc


def test_html_is_offline_and_carries_data_and_metadata(item):
    html = export.to_html(item).decode("utf-8")
    from plotly.offline import get_plotlyjs

    assert get_plotlyjs()[:200] in html and len(html) > len(get_plotlyjs())   # the bundle itself, inlined
    assert 'src="https://' not in html                                      # nothing to fetch
    meta = html.split('id="flashviz-metadata">', 1)[1].split("</script>", 1)[0]
    assert json.loads(meta)["file"] == item.stem
    assert "m (running max)" in html and "在线 softmax · test" in html and "<title>" in html


def test_file_names_carry_the_configuration():
    assert export.file_stem("strip", "N16_d4_Bc4_fp32_seed12_step2") == "flashviz_strip_N16_d4_Bc4_fp32_seed12_step2"
    assert export.file_stem("a/b c", "x:y") == "flashviz_a_b_c_x_y"
    assert len(export.file_stem("x", "y" * 500)) == export.MAX_STEM


def test_decodes_plotly_typed_arrays():
    enc = go.Figure(go.Scatter(x=np.arange(3, dtype=np.int8), y=np.array([0.5, 1.5, 2.5]))).to_dict()["data"][0]
    assert isinstance(enc["x"], dict) and "bdata" in enc["x"]             # plotly 7 encodes arrays
    assert export.plain(enc["x"]) == [0, 1, 2] and export.plain(enc["y"]) == [0.5, 1.5, 2.5]


# ----------------------------------------------------------------------------- real figures from every page

def test_every_page_has_a_zip_button_and_registers_its_charts(page_charts):
    for path, _ in PAGES:
        at = page_charts[path]["at"]
        zips = [b for b in at.get("download_button") if b.key == "_export.zip"]
        assert len(zips) == 1 and "zip" in zips[0].label, f"{path}: no zip button"
    drawn = {p: len(v["registry"]["charts"]) for p, v in page_charts.items()}
    assert drawn["stepper"] == 4 and drawn["blocks"] >= 3, drawn


def test_data_formats_of_every_chart_on_every_page(page_charts):
    seen = 0
    for path, v in page_charts.items():
        for key, it in v["registry"]["charts"].items():
            seen += 1
            assert it.slug and it.slug in it.stem, key
            doc = json.loads(export.to_json(it))
            want_n = SCALES[scale(path)].n                              # the page's own scale (ui/state.py)
            assert doc["meta"]["configuration"]["n"] == want_n and doc["meta"]["page"], key
            _, rows = csv_rows(export.to_csv(it))
            for tr in doc["traces"]:                                         # CSV y column == the trace's y
                y = tr.get("y")
                if isinstance(y, list) and y and not isinstance(y[0], list) and "z" not in tr:
                    got = [r["y"] for r in rows if r["trace"] == str(tr["index"])]
                    want = ["" if v is None else str(v) for v in y]
                    finite = [(g, w) for g, w in zip(got, want) if w != ""]
                    assert all(g == w for g, w in finite), (key, tr["name"])
    assert seen >= 8


@pytest.mark.timeout(300)
def test_images_of_one_chart_per_page(page_charts):
    ok, why = export.image_status()
    if not ok:
        pytest.skip(why)
    for path, v in page_charts.items():
        items = list(v["registry"]["charts"].values())
        if not items:
            continue
        it = items[0]
        w, h = png_size(export.to_image(it, "png"))
        assert (w, h) == (EXPORT_WIDTH * EXPORT_SCALE, export.image_size(it)[1] * EXPORT_SCALE), path
        check_svg(export.to_image(it, "svg"))


@pytest.mark.timeout(300)
def test_zip_holds_every_file_and_a_manifest(page_charts):
    items = list(page_charts["stepper"]["registry"]["charts"].values())
    z = zipfile.ZipFile(io.BytesIO(export.to_zip(items, {"page": {"url_path": "stepper"}})))
    names = set(z.namelist())
    man = json.loads(z.read("manifest.json"))
    assert man["page"] == {"url_path": "stepper"} and len(man["charts"]) == len(items) == 4
    imgs = export.IMAGE_FORMATS if export.image_status()[0] else ()
    for it, c in zip(items, man["charts"]):
        want = {f"{it.stem}.{f}" for f in ("html", "csv", "json", *imgs)}
        assert want <= names and set(c["files"]) == want
        assert c["meta"]["configuration"]["block_n"] == 4
    for n in names:
        if n.endswith(".png"):
            png_size(z.read(n))
        elif n.endswith(".svg"):
            check_svg(z.read(n))
        elif n.endswith(".json"):
            json.loads(z.read(n))


# ----------------------------------------------------------------------------- no browser

@pytest.fixture
def no_browser(monkeypatch, tmp_path):
    """BROWSER_PATH names a missing file; a fresh renderer state (a running browser stays for other tests)."""
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-such-chromium"))
    monkeypatch.setattr(images, "_state", dict(renderer=None, error=None, retry_at=0.0, failures=0,
                                               last_failure=None))
    monkeypatch.setattr(images, "_found", {})


def test_without_a_browser_images_say_why_and_the_rest_works(no_browser, item):
    ok, why = export.image_status()
    assert not ok and "no-such-chromium" in why
    with pytest.raises(export.ImagesUnavailable, match="no browser at BROWSER_PATH"):
        export.to_image(item, "png")
    for fmt in ("html", "csv", "json"):
        assert export.export(item, fmt)
    z = zipfile.ZipFile(io.BytesIO(export.to_zip([item])))
    assert sorted(z.namelist()) == sorted([f"{item.stem}.html", f"{item.stem}.csv", f"{item.stem}.json",
                                           "manifest.json"])
    assert "not included: no browser" in json.loads(z.read("manifest.json"))["images"]


def test_without_a_browser_the_page_disables_images_with_a_message(no_browser):
    at = open_page(PAGES[0][0])
    assert not at.error
    buttons = {b.label: b for b in at.get("download_button")}
    png, html = buttons["PNG image (2560 px wide)"], buttons["Interactive HTML (offline)"]
    assert png.disabled and "no browser" in png.help and not html.disabled
    assert any("PNG and SVG are not available" in c.value for c in at.caption)
    assert any("HTML, CSV and JSON only" in c.value for c in at.sidebar.caption)
