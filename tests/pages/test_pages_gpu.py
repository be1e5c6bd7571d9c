"""The app's GPU paths end to end on a real GPU (AppTest, nothing faked): the stepper's kernel panel compiled, the
"Speed and memory" page's live run, and the "Backward and recomputation" page's live source. The CPU tests drive the
same buttons with flashviz.bench.live faked; these check that the real measurements arrive, are correct against float64
and show the memory the lesson predicts (naive keeps N x N, flash keeps O and LSE)."""
from __future__ import annotations

import json

import pytest

from helpers.app import array, clean, kernel_panel_view, open_page, run_app
from flashviz.infra.units import ELEM_BYTES

pytestmark = pytest.mark.gpu

FLASH_LIKE = ("sdpa-flash", "teaching", "fast")


def _bytes(dtype: str) -> int:
    return ELEM_BYTES[dtype]


@pytest.mark.parametrize("causal", [False, True])
def test_kernel_panel_runs_compiled_on_the_gpu(causal):
    """N > 256 runs only on a GPU: one program of the compiled teaching kernel, laid over the simulator."""
    at = run_app(n=1000, d=64, block_m=32, block_n=16, causal=causal, row=700, seed=4, dtype="float16")
    at.button(key="kernel.run").click().run()
    clean(at)
    view = kernel_panel_view(at)
    assert view["max_diff"] < view["tol"]
    last_row = (700 // 32) * 32 + 31                                        # the row's program: rows 672..703
    assert sum(view["ran"]) == (last_row // 16 + 1 if causal else -(-1000 // 16))   # causal: keys <= last row


def test_speed_page_live_run_measures_every_impl_correctly():
    n, d, b, h, dtype = 2048, 64, 2, 8, "float16"
    at = open_page("speed", n=n, d=d, dtype=dtype, block_m=64, block_n=32,
                   **{"speed.batch": b, "speed.heads": h}, timeout=300)
    clean(at)
    at.button(key="speed.live_run").click().run()
    clean(at)
    df = at.dataframe[0].value
    assert len(df) == 5 and list(df["status"]).count("ok") >= 4               # one row per impl
    from flashviz.bench import live
    cells = live.measure_live(n, d, False, dtype, b, h, tiles=(64, 32))    # the button's call, measured again
    assert {c["impl"] for c in cells} == {"naive", "sdpa-flash", "sdpa-cudnn", "teaching", "fast"}
    out_bytes = b * h * n * d * _bytes(dtype)
    for c in cells:
        assert (c["n"], c["d"], c["batch"], c["heads"]) == (n, d, b, h)
        if c["impl"] == "sdpa-cudnn" and c["status"] != "ok":                 # cuDNN may be absent on a GPU
            continue
        assert c["status"] == "ok", c
        assert c["correct"] and c["ms"] > 0, c
        if c["impl"] in FLASH_LIKE:                                          # O (+ LSE): no N x N buffer
            assert out_bytes <= c["peak_extra_bytes"] < out_bytes + b * h * n * 4 + 2 ** 21, c
    naive = next(c for c in cells if c["impl"] == "naive")
    assert naive["peak_extra_bytes"] >= b * h * n * n * _bytes(dtype)      # S (or P) materialized
    teaching = next(c for c in cells if c["impl"] == "teaching")
    assert (teaching["block_m"], teaching["block_n"]) == (64, 32)           # the stepper's tiles ran


def test_speed_page_live_sweep_draws_both_charts():
    at = open_page("speed", n=4096, d=128, dtype="bfloat16", causal=True,
                   **{"speed.batch": 1, "speed.heads": 8}, timeout=600)
    at.button(key="speed.live_sweep").click().run()
    clean(at)
    from flashviz.bench import live
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(specs) == 4                                                  # live time + memory, recorded two
    xs = set()
    for tr in specs[0]["data"]:
        if "x" in tr:
            xs |= {int(x) for x in array(tr["x"])}
    assert xs == set(live.SWEEP_NS)                                         # every N measured (or marked OOM)


def test_backward_page_live_source_measures_a_training_step():
    n, d, b, h = 1024, 64, 1, 4
    at = open_page("backward", n=n, d=d, dtype="float16",
                   **{"backward.batch": b, "backward.heads": h, "backward.source": "live"}, timeout=600)
    clean(at)
    at.button(key="backward.live_run").click().run()
    clean(at)
    ds = at.session_state["backward.live"]
    assert ds["provenance"]["device"] and "sweep_live" in ds["provenance"]["command"]
    cells = ds["cells"]
    train = [c for c in cells if c["mode"] == "fwd+bwd"]
    assert sorted({c["n"] for c in train}) == [1024, 2048, 4096, 8192, 16384]
    for c in train:
        if c["impl"] == "sdpa-cudnn" and c["status"] != "ok":
            continue
        if c["impl"] == "naive" and c["status"] == "oom":
            continue
        assert c["status"] == "ok" and c["correct"], c
    by = {(c["impl"], c["n"]): c for c in train}
    for nn in (4096, 8192):                                                  # the stored N x N shows in memory
        assert by["naive", nn]["peak_extra_bytes"] > 4 * by["fast", nn]["peak_extra_bytes"]
    bwd = [c for c in cells if c["mode"] == "bwd"]
    assert {c["n"] for c in bwd} == {n} and all(c["status"] == "ok" for c in bwd if c["impl"] != "sdpa-cudnn")
    assert len(at.get("plotly_chart")) >= 2
