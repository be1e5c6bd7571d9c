"""bench/tune_record.py: the ws backward's tune file read and validated, the registers comparison the Backward page
draws from it (against the raw JSON, parsed here independently), its chart, and malformed files refused by name."""
from __future__ import annotations

import json
import math
import re

import pytest

from flashviz.bench import tune_record as tr
from flashviz.charts import backward as charts
from flashviz.infra.errors import DatasetError
from flashviz_kernels import ws_bwd


@pytest.fixture(scope="module")
def raw():
    return json.loads(tr.DEFAULT.read_text())


def test_the_default_file_is_the_recorded_h200_run(raw):
    rec = tr.load_tune()
    assert rec == raw
    assert rec["device"] == "NVIDIA H200" and rec["triton"] == "3.6.0" and "--kind ws" in rec["command"]
    assert rec["git_commit"].startswith("b289532")           # the commit that added the switch it compares


def test_register_rows_are_the_files_times(raw):
    rows = tr.register_rows(tr.load_tune())
    assert {(r["d"], r["n"], r["causal"]) for r in rows} == {(d, n, c) for d in (64, 128)
                                                              for n in (4096, 8192, 16384) for c in (False, True)}
    for r in rows:
        cell = next(x["impls"] for x in raw["rows"] if (x["d"], x["n"], x["causal"]) == (r["d"], r["n"], r["causal"]))
        held, started = cell[r["tiles"] + " acc=0 early=0"]["ms"], cell[r["tiles"] + " acc=1 early=0"]["ms"]
        assert (r["held_ms"], r["started_ms"], r["cudnn_ms"]) == (held, started, cell["sdpa-cudnn"]["ms"])
        assert r["held"] == pytest.approx(cell["sdpa-cudnn"]["ms"] / held, rel=1e-12)
        assert r["started"] == pytest.approx(cell["sdpa-cudnn"]["ms"] / started, rel=1e-12)
    gm = tr.geomeans(rows)
    for d in (64, 128):
        mine = [r for r in rows if r["d"] == d]
        want = math.prod(r["cudnn_ms"] / r["started_ms"] for r in mine) ** (1 / len(mine))
        assert gm[d]["started"] == pytest.approx(want, rel=1e-12) and gm[d]["cells"] == 6
    # what the page says in words, as measured: a large gain at d = 128, next to none at d = 64
    assert gm[128]["started"] / gm[128]["held"] > 1.2
    assert abs(gm[64]["started"] / gm[64]["held"] - 1) < 0.03


def test_registers_per_thread():
    """dK and dV of 64 keys x d in float32 over a 128-thread warpgroup: d registers each thread, of REGS[0]."""
    assert [tr.accumulator_registers(d) for d in (64, 128)] == [64, 128]
    assert tr.register_budget() == ws_bwd.REGS[0] == 240


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_registers_figure(lang):
    rows = tr.register_rows(tr.load_tune())
    fig = charts.registers_figure(rows, lang)
    held, started = fig.data
    assert list(held.y) == [r["held"] for r in rows] and list(started.y) == [r["started"] for r in rows]
    assert list(started.text) == [f"{r['started']:.2f}" for r in rows]
    assert len(set(held.x)) == len(rows) and held.name != started.name
    assert fig.layout.shapes[0].y0 == fig.layout.shapes[0].y1 == 1          # cuDNN's line
    assert fig.layout.yaxis.range[1] > max(max(held.y), max(started.y))


def _doc(**over):
    rec = {"device": "NVIDIA H200", "driver": "580", "cuda": "13.0", "torch": "2.11", "triton": "3.6.0",
           "date": "2026-12-01", "git_commit": "abc", "command": "python -m tools.tune_backward",
           "rows": [{"d": 128, "n": 4096, "causal": False, "impls": {
               "sdpa-cudnn": {"ms": 2.0}, "ws(64, 2, 1, True) tma2 acc=0 early=0": {"ms": 4.0},
               "ws(64, 2, 1, True) tma2 acc=1 early=0": {"ms": 2.5}, "fused": {"error": "OutOfMemoryError"}}}]}
    rec.update(over)
    return json.dumps(rec).encode()


def test_a_small_valid_file():
    rows = tr.register_rows(tr.load_tune(_doc()))
    assert [(r["held"], r["started"]) for r in rows] == [(0.5, 0.8)]


@pytest.mark.parametrize("data,needle", [
    (b"[1, 2]", "top level"), (b"{not json", "not JSON"), (_doc(driver=""), "'driver'"),
    (_doc(command=None), "'command'"), (_doc(rows=[]), "'rows'"), (_doc(rows=[7]), "rows[0]"),
    (_doc(rows=[{"d": 0, "n": 4096, "causal": False, "impls": {}}]), "rows[0].d"),
    (_doc(rows=[{"d": 64, "n": True, "causal": False, "impls": {}}]), "rows[0].n"),
    (_doc(rows=[{"d": 64, "n": 4096, "causal": "no", "impls": {}}]), "causal"),
    (_doc(rows=[{"d": 64, "n": 4096, "causal": False, "impls": {"x": {"ms": -1}}}]), "positive"),
    (_doc(rows=[{"d": 64, "n": 4096, "causal": False, "impls": {"x": {}}}]), "needs ms"),
    (_doc(rows=[{"d": 64, "n": 4096, "causal": False, "impls": []}]), "impls")])
def test_malformed_files_are_refused_by_name(data, needle):
    with pytest.raises(DatasetError, match=re.escape(needle)) as e:
        tr.load_tune(data)
    assert e.value.key is not None and e.value.localized("zh") != e.value.localized("en")   # the page shows zh


def test_an_unreadable_path_is_a_dataset_error(tmp_path):
    with pytest.raises(DatasetError):
        tr.load_tune(tmp_path / "absent.json")
