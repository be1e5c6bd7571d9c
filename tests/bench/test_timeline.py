"""The proton trace parser (flashviz/bench/timeline_trace.py) on a real H200 trace and on synthetic edge cases, and
the timeline dataset's schema (flashviz/bench/timeline_dataset.py). Expected values are computed here from the raw
trace JSON with numpy, independently of the parser's code path."""
import copy
import json
from collections import defaultdict

import numpy as np
import pytest

from flashviz.bench import timeline_dataset as td
from flashviz.bench import timeline_trace as tt
from flashviz.infra.errors import DatasetError
from helpers.timeline import dataset, ev, fixture_trace, ws_trace


def _raw_by_cta(trace):
    """{cta: [(warp, scope, start_cycles, dur_cycles)]} straight from the JSON (ts, dur in µs at 1000 MHz)."""
    out = defaultdict(list)
    for e in trace["traceEvents"]:
        cta = int(e["pid"].rsplit("CTA", 1)[1])
        out[cta].append((int(e["tid"].split()[1]), e["name"], e["ts"] * 1000.0, e["dur"] * 1000.0))
    return out


# ----------------------------------------------------------------------------- the real trace

def test_real_trace_two_ctas_counts_span_and_representative():
    trace = fixture_trace()
    raw = _raw_by_cta(trace)
    s = tt.summarize(trace, tiles=[64, 64])                       # N=4096 / block_n 64 = 64 key tiles per CTA
    spans = {c: max(a + b for _, _, a, b in evs) - min(a for _, _, a, _ in evs) for c, evs in raw.items()}
    assert sorted(raw) == [0, 39] and s["ctas"] == 2 and s["kernel"] == "_fast_fwd"
    assert s["events"] == sum(len(v) for v in raw.values()) == 1024
    assert s["events_per_cta_min"] == s["events_per_cta_max"] == 512
    # 4 warps x 4 scopes x 64 tiles per CTA were entered; the circular buffer kept the latest 512 of each CTA
    assert s["events_expected"] == 2 * 4 * 4 * 64 and td.dropped(dict(s)) == 1024
    lower = min(spans, key=lambda c: (spans[c], c))               # the lower median of two
    assert s["cta"]["id"] == lower == 0 and s["cta"]["rank"] == 0 and s["cta"]["rule"] == "median"
    assert s["cta"]["span_cycles"] == pytest.approx(spans[0], abs=1)
    assert s["span_cycles"]["min"] == pytest.approx(min(spans.values()), abs=1)
    assert s["span_cycles"]["max"] == pytest.approx(max(spans.values()), abs=1)
    assert s["scopes"] == ["load_k", "qk", "softmax", "pv"] and s["warps"] == [0, 1, 2, 3]
    assert s["roles"] == ["warpgroup 0"] * 4


def test_real_trace_timeline_is_the_ctas_events_from_its_first_one():
    trace = fixture_trace()
    raw = _raw_by_cta(trace)[0]
    s = tt.summarize(trace)
    t0 = min(a for _, _, a, _ in raw)
    rows = s["timeline"]
    assert len(rows) == len(raw) == 512 and min(r[2] for r in rows) == 0
    for warp in range(4):
        for i, scope in enumerate(s["scopes"]):
            mine = sorted((r[2], r[3]) for r in rows if r[0] == warp and r[1] == i)
            want = sorted((a - t0, b) for w, n, a, b in raw if w == warp and n == scope)
            assert len(mine) == len(want) == 32                  # 32 of the 64 tiles kept per warp and scope
            np.testing.assert_allclose(np.array(mine, float), np.array(want), atol=0.51)   # cycles are integers
    assert max(r[2] + r[3] for r in rows) == s["cta"]["span_cycles"]


def test_real_trace_shares_are_mean_warp_time_in_scope_over_cta_span():
    trace = fixture_trace()
    raw = _raw_by_cta(trace)
    s = tt.summarize(trace)
    got = {(x["role"], x["scope"]): x for x in s["shares"]}
    for scope in s["scopes"]:
        per_cta = []
        for evs in raw.values():
            span = max(a + b for _, _, a, b in evs) - min(a for _, _, a, _ in evs)
            per_warp = [sum(b for w, n, _, b in evs if w == warp and n == scope) / span for warp in range(4)]
            per_cta.append(np.mean(per_warp))
        durs = [b for evs in raw.values() for _, n, _, b in evs if n == scope]
        x = got[("warpgroup 0", scope)]
        assert x["share"] == pytest.approx(np.mean(per_cta), rel=1e-4)
        assert x["mean_cycles"] == pytest.approx(np.mean(durs), rel=1e-4) and x["count"] == len(durs) == 256
    total = sum(x["share"] for x in s["shares"])
    assert 0.5 < total < 1.0                                       # the rest: between scopes, outside the loop


# ----------------------------------------------------------------------------- synthetic traces

def test_warp_specialised_roles_and_ping_pong_offsets():
    s = tt.summarize(ws_trace(ctas=3, tiles=4), tiles=[4, 4, 4])
    assert s["kernel"] == "ws_fwd" and s["warps"] == list(range(9))
    assert s["roles"] == ["warpgroup 0"] * 4 + ["warpgroup 1"] * 4 + ["producer"]
    assert s["events"] == s["events_expected"] == 3 * 4 * (8 * 3 + 1)      # nothing dropped
    assert s["scopes"] == ["tma_kv", "qk", "softmax", "pv"]
    by = {(x["role"], x["scope"]): x for x in s["shares"]}
    span = 200 + 3000 + 500 + 1000                                # the last tile of warpgroup 1 ends there
    assert by[("warpgroup 1", "softmax")]["share"] == pytest.approx(4 * 500 / span)
    assert by[("producer", "tma_kv")]["share"] == pytest.approx(4 * 150 / span)
    assert ("producer", "qk") not in by
    qk = sorted(r[2] for r in s["timeline"] if r[1] == s["scopes"].index("qk") and r[0] in (0, 4))
    assert qk[:2] == [200, 700]                                   # warpgroup 1 starts half a tile later


def test_representative_is_the_lower_median_span_ties_by_id():
    def trace(spans):
        return {"traceEvents": [ev(c, 0, "qk", 0, sp) for c, sp in enumerate(spans)]}
    assert tt.summarize(trace([10, 30, 20]))["cta"]["id"] == 2
    assert tt.summarize(trace([40, 10, 30, 20]))["cta"]["id"] == 3      # lower of 20 and 30
    assert tt.summarize(trace([5, 5, 5]))["cta"] == dict(id=1, core=4, span_cycles=5, rank=1, rule="median")


def test_frequency_converts_to_cycles_and_expectation_counts_each_warps_scopes():
    tr = {"traceEvents": [ev(0, 0, "a", 0, 500, freq=500.0), ev(0, 0, "b", 500, 250, freq=500.0),
                          ev(0, 1, "a", 0, 100, freq=500.0)]}
    s = tt.summarize(tr, tiles=[1])
    assert s["timeline"] == [[0, 0, 0, 500], [0, 1, 500, 250], [1, 0, 0, 100]]
    assert s["events_expected"] == 3 and s["cta"]["span_cycles"] == 750
    assert tt.summarize(tr, tiles=[2])["events_expected"] == 6


@pytest.mark.parametrize("trace, words", [
    ([], "traceEvents"),
    ({"traceEvents": []}, "no scope events"),
    ({"traceEvents": [{"ph": "M", "name": "process_name"}]}, "no scope events"),
    ({"traceEvents": [dict(ev(0, 0, "a", 0, 1), pid="k CTA0")]}, "Core"),
    ({"traceEvents": [dict(ev(0, 0, "a", 0, 1), tid="warpgroup 0")]}, "warp"),
    ({"traceEvents": [dict(ev(0, 0, "a", 0, 1), dur=-1)]}, "dur"),
    ({"traceEvents": [dict(ev(0, 0, "a", 0, 1), ts="0")]}, "ts"),
    ({"traceEvents": [dict(ev(0, 0, "a", 0, 1), name="")]}, "scope name"),
    ({"traceEvents": [dict(ev(0, 0, "a", 0, 1), args={"Frequency (MHz)": 0.0})]}, "Frequency"),
    ({"traceEvents": [ev(0, 0, "a", 0, 1, "k1"), ev(0, 0, "a", 0, 1, "k2")]}, "several kernels"),
])
def test_bad_traces_raise_trace_error(trace, words):
    with pytest.raises(tt.TraceError, match=words):
        tt.summarize(trace)


def test_kernel_can_be_named_when_the_trace_holds_several():
    tr = {"traceEvents": [ev(0, 0, "a", 0, 7, "k1"), ev(0, 0, "b", 0, 9, "k2")]}
    assert tt.summarize(tr, kernel="k2")["scopes"] == ["b"]
    with pytest.raises(tt.TraceError, match="not in the trace"):
        tt.summarize(tr, kernel="k3")


@pytest.mark.parametrize("n_q, n_k, bm, bn, causal", [(4096, 4096, 128, 64, False), (1000, 1000, 128, 64, True),
                                                     (256, 640, 64, 128, True), (640, 256, 128, 64, True)])
def test_tiles_per_program_match_the_causal_mask(n_q, n_k, bm, bn, causal):
    rows, cols = np.arange(n_q)[:, None], np.arange(n_k)[None, :]
    visible = cols <= rows + (n_k - n_q) if causal else np.ones((n_q, n_k), bool)
    want = []
    for s in range(0, n_q, bm):
        seen = np.flatnonzero(visible[s:s + bm].any(axis=0))
        want.append(0 if seen.size == 0 else seen[-1] // bn + 1)
    assert tt.tiles_per_program(n_q, n_k, bm, bn, causal, 3) == want * 3


# ----------------------------------------------------------------------------- the dataset

def test_dataset_round_trips_through_the_strict_loader(tmp_path):
    data = dataset()
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    back = td.load_timeline_dataset(path)
    assert back == data and td.list_timeline_datasets(tmp_path) == [path]
    assert td.list_timeline_datasets(tmp_path / "absent") == []
    assert td.configs(back) == [(4096, 128, False, "float16", 1, 4), (8192, 64, False, "float16", 1, 2)]
    assert [c["impl"] for c in td.cells_at(back, td.configs(back)[0])] == ["fast", "ws"]
    assert td.overhead(back["cells"][0]) == pytest.approx(0.12 / 0.09)
    assert td.overhead(back["cells"][2]) is None and td.dropped(back["cells"][2]) is None
    assert td.dropped(back["cells"][1]) == 0


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.update(kind="flashviz-ring"), "kind"),
    (lambda d: d.update(schema_version=2), "schema_version"),
    (lambda d: d.update(extra=1), "not a field"),
    (lambda d: d["method"].pop("semantic"), "method.semantic"),
    (lambda d: d["method"].update(clock_mhz=0), "method.clock_mhz"),
    (lambda d: d["provenance"].pop("command"), "command"),
    (lambda d: d["cells"][0].update(status="fine"), r"cells\[0\].status"),
    (lambda d: d["cells"][0].update(buffer="l2"), r"cells\[0\].buffer"),
    (lambda d: d["cells"][0].update(grid=[31, 4]), r"cells\[0\].grid"),
    (lambda d: d["cells"][0].pop("ms_plain"), "ms_plain"),
    (lambda d: d["cells"][0].update(ms_kernel_plain=-1.0), r"cells\[0\].ms_kernel_plain"),
    (lambda d: d["cells"][0].pop("timeline"), "timeline"),
    (lambda d: d["cells"][0]["timeline"][0].__setitem__(0, 9), r"timeline\[0\]"),
    (lambda d: d["cells"][0]["timeline"][0].__setitem__(1, 4), r"timeline\[0\]\[1\]"),
    (lambda d: d["cells"][0]["timeline"][-1].__setitem__(3, 10 ** 6), "after the CTA's span"),
    (lambda d: d["cells"][0]["shares"][0].update(share=0.99), "add up to more"),
    (lambda d: d["cells"][0]["shares"][0].update(role="warpgroup 7"), "roles"),
    (lambda d: d["cells"][0]["shares"][0].update(scope="tma_kv"), "scopes"),
    (lambda d: d["cells"][0].update(roles=["warpgroup 0"]), "one role per warp"),
    (lambda d: d["cells"][0].update(scopes=["qk", "qk", "a", "b"]), "repeat"),
    (lambda d: d["cells"][0]["cta"].update(rank=2), "cta.rank"),
    (lambda d: d["cells"][0].update(events_per_cta_max=10 ** 6), "events_per_cta_min"),
    (lambda d: d["cells"][2].update(timeline=[]), "absent when status"),
    (lambda d: d["cells"].append(copy.deepcopy(d["cells"][0])), "duplicates"),
])
def test_validation_names_the_field(edit, words):
    data = copy.deepcopy(dataset())
    edit(data)
    with pytest.raises(DatasetError, match=words):
        td.validate_timeline_dataset(data)


def test_loader_rejects_bad_bytes():
    for raw, words in [(b"\xff", "UTF-8"), (b"{", "not JSON"), (b'{"a": NaN}', "NaN"), (b"[]", "top level")]:
        with pytest.raises(DatasetError, match=words):
            td.parse_timeline_dataset(raw)


# ----------------------------------------------------------------------------- the command (CPU parts)

def test_the_timeline_presets_dispatch_to_their_own_main(monkeypatch):
    from flashviz.bench import __main__ as cli
    from flashviz.bench import timeline
    seen = []
    monkeypatch.setattr(timeline, "main", lambda argv: seen.append(argv) or 7)
    assert cli.main(["--preset", "h200-timeline", "--impls", "fast"]) == 7
    assert cli.main(["--preset=timeline-small"]) == 7
    assert seen == [["--preset", "h200-timeline", "--impls", "fast"], ["--preset=timeline-small"]]
    for cfgs in timeline.PRESETS.values():                     # one wave of programs or two, traces of bounded size
        for c in cfgs:
            assert c["n"] % 128 == 0 and c["d"] in (64, 128) and c["batch"] * c["heads"] * c["n"] // 128 <= 256


def test_build_records_the_median_clock_and_validates():
    from flashviz.bench import timeline
    from helpers.timeline import PROVENANCE
    clock = timeline.ClockSampler()
    clock.samples += [1980.0, 1755.0, 1980.0]
    cell = dataset()["cells"][0]
    data = timeline.build([cell], provenance=dict(PROVENANCE), clock=clock, elapsed_s=3.0, complete=True)
    m = data["method"]
    assert m["clock_mhz"] == 1980.0 and "3 samples" in m["clock_source"] and "1755-1980 MHz" in m["clock_source"]
    assert "enable_semantic('triton')" in m["semantic"] and m["granularity"] == "warp"
    assert "1024" in timeline.table(data) and "2048" in timeline.table(data)
    empty = timeline.build([cell], provenance=dict(PROVENANCE), clock=timeline.ClockSampler(), elapsed_s=1.0,
                           complete=False, stopped="budget")
    assert empty["method"]["clock_mhz"] is None and empty["stopped"] == "budget"


def test_ws_is_measured_only_when_present_and_active(monkeypatch):
    import sys
    import types
    from flashviz.bench import timeline
    fake = types.ModuleType("flashviz_kernels.ws")
    fake.status = lambda: dict(active=False, reason="no CUDA device")
    monkeypatch.setitem(sys.modules, "flashviz_kernels.ws", fake)
    import flashviz_kernels                               # `from flashviz_kernels import ws` reads the package's
    monkeypatch.setattr(flashviz_kernels, "ws", fake, raising=False)   # attribute once the real ws was imported
    impls, notes = timeline.available_impls()
    assert [i.name for i in impls] == ["fast"] and notes == ["ws: not active here (no CUDA device)"]
    fake.status = lambda: dict(active=True, reason="ok")
    impls, notes = timeline.available_impls()
    assert [(i.name, i.kernel) for i in impls] == [("fast", "_fast_fwd"), ("ws", "ws_fwd")] and notes == []
    assert timeline.available_impls(("fast",))[0][0].kernel == "_fast_fwd"


def test_without_cuda_ws_is_left_out_with_a_reason():
    from flashviz.bench import timeline
    impls, notes = timeline.available_impls()
    assert [i.name for i in impls] == ["fast"] and len(notes) == 1 and notes[0].startswith("ws: ")


def test_a_cell_that_fails_the_schema_becomes_an_error_cell_not_a_lost_run():
    from flashviz.bench import timeline
    good = dataset()["cells"][0]
    assert timeline.checked(copy.deepcopy(good)) == good
    bad = copy.deepcopy(good)
    bad["shares"][0]["share"] = 0.99                              # e.g. nested scopes: more than the warp's time
    out = timeline.checked(bad)
    assert out["status"] == "error" and "add up to more" in out["message"] and "timeline" not in out
    td.check_cell(0, out)                                               # what is left is a valid cell


def test_a_ws_cell_records_the_schedule_it_launches_with():
    """bench.timeline.Impl.schedule: ws's OVERLAP / PINGPONG defaults for (d, causal) by name; none for fast."""
    from types import SimpleNamespace

    from flashviz.bench.timeline import Impl
    from flashviz.bench.timeline_dataset import schedule_name
    mod = SimpleNamespace(CONFIGS={(128, False): (128, 128, 2, False, True), (128, True): (128, 128, 2, True, True)})
    ws = Impl("ws", mod, "ws_fwd")
    assert ws.schedule(128, False) == "pingpong" == schedule_name(False, True)
    assert ws.schedule(128, True) == "overlap+pingpong"
    assert Impl("fast", mod, "_fast_fwd").schedule(128, True) is None
