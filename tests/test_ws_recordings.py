"""kernels/ws_tables.py's tables against the committed H200 recordings: the dispatch table (FAST_USES_WS) and the d=64
consumer count (CONFIGS) were read off these files, and the README's ws ranges are their cells."""
from flashviz_kernels import ws


def test_dispatch_table_agrees_with_the_recorded_h200_run():
    """ws.FAST_USES_WS is read off assets/benchmarks/ws/: every (d, causal, N >= its threshold) it names was
    measured faster than the tl kernel, and each (d, causal) left out was measured slower at some N."""
    from pathlib import Path

    from flashviz.bench.dataset import load_dataset
    data = load_dataset(Path(__file__).parents[1] / "assets/benchmarks/ws/nvidia-h200-ws-2026-12-01b.json")
    assert data["provenance"]["ws_status"] == "active" and data["provenance"]["triton"].startswith("3.6.")
    ms = {(c["impl"], c["d"], c["causal"], c["n"]): c["ms"] for c in data["cells"] if c["status"] == "ok"}
    cells = {(d, causal, n) for _, d, causal, n in ms}
    for d, causal, n in cells:
        least = ws.FAST_USES_WS.get((d, causal))
        faster = ms[("ws", d, causal, n)] < ms[("fast", d, causal, n)]
        if least is not None and n >= least:
            assert faster, (d, causal, n)
    for d, causal in {(d, c) for d, c, _ in cells} - set(ws.FAST_USES_WS):
        assert any(ms[("ws", d, causal, n)] > ms[("fast", d, causal, n)] for dd, cc, n in cells
                   if (dd, cc) == (d, causal))


def test_three_consumers_at_d64_measured_faster_than_two():
    """CONFIGS' d=64 layout (NC=3, its block_n and stages; OVERLAP/PINGPONG were off then) is read off the committed
    tune run: in every (N, causal) cell it timed, that row took less time than the fastest NC=2 row (the Inside page
    and README say three consumers measured faster at d=64)."""
    import json
    from pathlib import Path
    data = json.loads((Path(__file__).parents[1] / "assets/benchmarks/tune/nvidia-h200-ws-nc3-2026-12-01.json")
                      .read_text())
    assert data["status"]["triton"].startswith("3.6.") and data["device"] == "NVIDIA H200"
    rows = data["rows"]
    cells = {(r["n"], r["causal"]) for r in rows if r["d"] == 64}
    assert len(cells) == 4
    for n, causal in cells:
        bm, bn, stages, _, _, _, nc = ws.CONFIGS[(64, causal)]
        assert nc == 3 and bm == 192
        [ours] = [r for r in rows if (r["n"], r["causal"], r["consumers"], r["block_n"], r["stages"], r["overlap"],
                                      r["pingpong"]) == (n, causal, 3, bn, stages, False, False)]   # the switches then
        two = min(r["ms"] for r in rows if (r["n"], r["causal"], r["consumers"]) == (n, causal, 2))
        assert ours["ms"] < 0.93 * two, (n, causal)              # measured 0.871-0.920


def test_readme_ratios_are_the_ws_recordings():
    """The README's ws and tl ranges against cuDNN (N 4096-16384) are the committed ws file's cells."""
    from pathlib import Path

    from flashviz.bench.dataset import load_dataset
    root = Path(__file__).parents[1]
    data = load_dataset(root / "assets/benchmarks/ws/nvidia-h200-ws-2026-12-01b.json")
    readme = " ".join((root / "README.md").read_text().split())
    ms = {(c["impl"], c["d"], c["causal"], c["n"]): c["ms"] for c in data["cells"] if c["status"] == "ok"}

    def span(impl, d):
        r = [ms[("sdpa-cudnn", d, c, n)] / ms[(impl, d, c, n)] for c in (False, True) for n in (4096, 8192, 16384)]
        return f"{min(r):.2f}–{max(r):.2f}x"
    assert f"ws {span('ws', 128)} cuDNN at d = 128 and {span('ws', 64)} at d = 64" in readme
    assert f"the tl kernel {span('fast', 128)} and {span('fast', 64)}" in readme


def test_dispatch_below_4096_agrees_with_the_forward_recording():
    """Below N = 4096 (launch-bound calls) the table follows the CUDA-graph column of the forward recording in which
    fast still ran the tl kernel there (its provenance says so): d=128 from N = 1024 because ws's graph time was
    lower in every d=128 cell at N = 1024 and 2048, d=64 not because it was not."""
    from pathlib import Path

    from flashviz.bench.dataset import load_dataset
    data = load_dataset(Path(__file__).parents[1] / "assets/benchmarks/nvidia-h200-fwd-2026-11-30.json")
    assert "d=128 causal=False N>=4096" in data["provenance"]["fast_uses_ws"]      # fast = tl below 4096 there
    g = {(c["impl"], c["d"], c["causal"], c["n"]): c["graph_ms"] for c in data["cells"]
         if c["status"] == "ok" and c["dtype"] == "float16" and c.get("graph_ms") and c["n"] < 4096}
    for causal in (False, True):
        assert ws.FAST_USES_WS[(128, causal)] == 1024
        assert all(g[("ws", 128, causal, n)] < g[("fast", 128, causal, n)] for n in (1024, 2048))
        assert ws.FAST_USES_WS[(64, causal)] >= 4096
    assert any(g[("ws", 64, c, n)] > g[("fast", 64, c, n)] for c in (False, True) for n in (1024, 2048))


def test_readme_forward_paragraph_is_the_forward_recording():
    """The newest forward recording ran the table in force (its provenance), and the README's sentences under its
    table quote its cells: d=64 at N=4096 (ws since this recording), the N=1024 per-call vs CUDA-graph spread."""
    from pathlib import Path

    from flashviz.bench.dataset import load_dataset
    root = Path(__file__).parents[1]
    data = load_dataset(root / "assets/benchmarks/nvidia-h200-fwd-2026-12-01b.json")
    in_force = ", ".join(sorted(f"d={d} causal={c} N>={n}" for (d, c), n in ws.FAST_USES_WS.items()))
    assert data["provenance"]["fast_uses_ws"] == in_force
    readme = " ".join((root / "README.md").read_text().split())
    c = {(x["impl"], x["n"], x["d"], x["causal"]): x for x in data["cells"]
         if x["mode"] == "fwd" and x["dtype"] == "float16" and x["status"] == "ok"}
    r = [c[("sdpa-cudnn", 4096, 64, k)]["ms"] / c[("fast", 4096, 64, k)]["ms"] for k in (False, True)]
    assert f"{r[0]:.2f}x / {r[1]:.2f}x cuDNN in this run (non-causal / causal)" in readme
    slow = [c[("sdpa-cudnn", 1024, d, True)]["ms"] / c[("sdpa-cudnn", 1024, d, True)]["graph_ms"] for d in (64, 128)]
    assert f"ran {min(slow):.1f}–{max(slow):.1f}x slower per call than under a CUDA graph" in readme
    g = [c[("sdpa-cudnn", 1024, d, k)]["graph_ms"] / c[("fast", 1024, d, k)]["graph_ms"] for d in (64, 128)
         for k in (False, True)]
    assert f"fast {min(g):.2f}–{max(g):.2f}x cuDNN there" in readme


def test_readme_timeline_shares_are_the_newest_timeline():
    """The README's per-step shares of the fast kernel (N = 4096, d = 128, no mask) are the named timeline file's, and
    its ws cells ran the consumer counts the README gives (block_m = 64 x consumers)."""
    from pathlib import Path

    from flashviz.bench import timeline_dataset as td
    root = Path(__file__).parents[1]
    name = "nvidia-h200-2026-12-01b.json"
    assert td.list_timeline_datasets()[0].name == name                      # the page opens on it
    data = td.load_timeline_dataset(root / "assets/benchmarks/timeline" / name)
    readme = " ".join((root / "README.md").read_text().split())
    [fast] = [c for c in data["cells"] if (c["impl"], c["n"], c["d"], c["causal"]) == ("fast", 4096, 128, False)]
    share = {s["scope"]: s["share"] for s in fast["shares"] if s["role"] == "warpgroup 0"}
    pct = {k: f"{v:.0%}".replace("%", " %") for k, v in share.items()}
    assert (f"softmax {pct['softmax']}, Q·Kᵀ {pct['qk']}, waiting for K {pct['load_k']}, loading V and P·V "
            f"{pct['load_v_pv']}") in readme
    assert name in readme
    [ws_cell] = [c for c in data["cells"] if (c["impl"], c["n"], c["d"], c["causal"]) == ("ws", 4096, 128, False)]
    ws_pct = {(s["role"], s["scope"]): f"{s['share']:.0%}".replace("%", " %") for s in ws_cell["shares"]}
    wg = {k: v for (role, k), v in ws_pct.items() if role == "warpgroup 0"}
    assert (f"softmax {wg['softmax']}, Q·Kᵀ {wg['qk']} (the previous tile's P·V issued and running under it), "
            f"waiting for K {wg['wait_kv']}, waiting for P·V {wg['pv']}, and its producer warp waits for a free V "
            f"buffer {ws_pct[('producer', 'tma_wait_slot_v')]} of the time") in readme
    for c in data["cells"]:
        if c["impl"] == "ws" and c["status"] == "ok":
            assert c["block_m"] == 64 * (3 if c["d"] == 64 else 2), c["d"]


def _tune_blocks(name: str):
    """A committed `tune_fast` output (window, ALiBi or documents) per head dim and N: (d, block text, tl tiles' ms,
    "ws CONFIGS" / "ws as picked" ms, the tl kernel's default tile's ms); its '#' provenance header names triton 3.6.0
    and a commit."""
    import re
    from pathlib import Path

    text = (Path(__file__).parents[1] / "assets/benchmarks/tune" / name).read_text()
    assert "triton 3.6.0" in text.splitlines()[0] and "commit " in text.splitlines()[0]
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    out = []
    for b in re.split(r"\n(?=d=\d+ N=)", body.strip()):
        tl = [float(x) for x in re.findall(r"^  tl \([^)]*\): ([\d.]+) ms", b, re.M)]
        [wsm] = [float(x) for x in re.findall(r"^  ws (?:CONFIGS|as picked): ([\d.]+) ms", b, re.M)]
        default = float(re.search(r"^  tl \(128, 64, 4, 2\): ([\d.]+) ms", b, re.M).group(1))
        assert len(tl) >= 8
        out.append((int(re.match(r"d=(\d+)", b).group(1)), b, tl, wsm, default))
    assert {d for d, *_ in out} == {64, 128}
    return out


def test_window_dispatch_is_the_recorded_tune_run():
    """ws.WINDOW_WS_DIMS and WINDOW_SCHEDULE are read off the committed tune outputs (before and after OVERLAP went
    on): at each head dim in the list ws (its window schedule, "ws CONFIGS") beat the tl kernel's default tile, which
    impl="fast" would run otherwise, in both runs, and its schedule was the fastest ws schedule timed; the README
    quotes the newer run, best tl tile included (at d=64 that tile beat ws in the newer run, not in the older)."""
    import re
    from pathlib import Path

    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    for name in ("nvidia-h200-window-2026-12-01b.txt", "nvidia-h200-window-2026-12-01c.txt"):
        for d, b, tl, wsm, default in _tune_blocks(name):
            others = {(p == "1", int(nc)): float(ms)
                      for p, nc, ms in re.findall(r"^  ws persistent=(\d) NC=(\d): ([\d.]+) ms", b, re.M)}
            assert len(others) >= 2
            assert (wsm < default) == (d in ws.WINDOW_WS_DIMS), (name, d)
            best = min(others, key=others.get)
            assert best == ws.WINDOW_SCHEDULE[d], (name, d, others)     # the schedule is the fastest one timed
            assert abs(others[best] - wsm) / wsm < 0.05                 # and "ws CONFIGS" ran it (same time, 5 %)
            if name.endswith("c.txt"):
                assert f"d = {d}: ws {wsm:.2f} ms against the tl kernel's {min(tl):.2f}–{default:.2f} ms" in readme


def test_docs_dispatch_is_the_recorded_tune_run():
    """ws.DOCS_WS_DIMS is read off the committed documents tune run (N = 16384 and 4096): a head dim is in it iff ws
    with its documents schedule (WINDOW_SCHEDULE) beat the tl kernel as impl="fast" dispatched it then at every N;
    at those head dims that schedule was within 3 % of the fastest ws schedule timed; the comment in ws_tables
    quotes the times, the README the speedups at d = 128."""
    import re
    from pathlib import Path

    src = " ".join((Path(__file__).parents[1] / "kernels/ws_tables.py").read_text().replace("#", " ").split())
    won, speedup = {}, {}
    blocks = _tune_blocks("nvidia-h200-docs-2026-12-01.txt")
    assert sorted((d, re.search(r"N=(\d+)", b).group(1)) for d, b, *_ in blocks) == \
        [(64, "16384"), (64, "4096"), (128, "16384"), (128, "4096")]
    for d, b, tl, wsm, default in blocks:
        assert " docs " in b.splitlines()[0]
        timed = {(p == "1", int(nc)): float(ms)
                 for p, nc, ms in re.findall(r"^  ws persistent=(\d) NC=(\d): ([\d.]+) ms", b, re.M)}
        fast = float(re.search(r"^  fast dispatched: ([\d.]+) ms", b, re.M).group(1))
        ours = timed[ws.WINDOW_SCHEDULE[d]]
        assert d not in ws.DOCS_WS_DIMS or ours <= 1.03 * min(timed.values()), (d, timed)
        won.setdefault(d, []).append(ours < fast)
        assert f"{ours:.3f}" in src and f"{fast:.3f}" in src, (d, ours, fast)
        if d == 128:
            speedup[int(re.search(r"N=(\d+)", b).group(1))] = fast / ours
    assert {d for d, w in won.items() if all(w)} == set(ws.DOCS_WS_DIMS)
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    assert f"{speedup[16384]:.2f}x and {speedup[4096]:.2f}x the tl kernel" in readme


def test_alibi_dispatch_is_the_recorded_tune_run():
    """ws.ALIBI_WS_DIMS is read off the committed tune output: ws (its CONFIGS) beat every tl tile at exactly the
    head dims in the list, and the comment quotes those times."""
    from pathlib import Path

    src = " ".join((Path(__file__).parents[1] / "kernels/ws_tables.py").read_text().replace("#", " ").split())
    for d, b, tl, wsm, default in _tune_blocks("nvidia-h200-alibi-2026-12-01.txt"):
        assert " alibi " in b.splitlines()[0]
        assert (wsm < min(tl)) == (d in ws.ALIBI_WS_DIMS), d
        assert f"d={d} ws {wsm:.2f} vs" in src and f"{min(tl):.2f}-{default:.2f}" in src, d


def test_alibi_overlap_is_the_recorded_tune_run():
    """ws.ALIBI_OVERLAP is read off the ALiBi run made after OVERLAP went on in CONFIGS: at each head dim it is the
    faster of "ws overlap=0" / "ws overlap=1", which beat every tl tile timed, and the comment quotes both times."""
    import re
    from pathlib import Path

    src = " ".join((Path(__file__).parents[1] / "kernels/ws_tables.py").read_text().replace("#", " ").split())
    for d, b, tl, wsm, default in _tune_blocks("nvidia-h200-alibi-2026-12-01b.txt"):
        t = {o == "1": float(ms) for o, ms in re.findall(r"^  ws overlap=(\d): ([\d.]+) ms", b, re.M)}
        assert set(t) == {False, True}
        assert ws.ALIBI_OVERLAP[d] == (t[True] < t[False]), (d, t)
        assert min(t.values()) < min(tl), d
        assert f"d={d} OVERLAP on {t[True]:.2f} / off {t[False]:.2f}" in src or \
            f"d={d} on {t[True]:.2f} / off {t[False]:.2f}" in src, d


def test_overlap_schedule_is_the_recorded_tune_run():
    """CONFIGS' OVERLAP (on at every (d, causal)) is read off the committed overlap tune run: in every N it timed,
    CONFIGS' row (consumers, block_n, stages, switches, persistent) took at most 1 % longer than the same row with
    OVERLAP off, and less in geometric mean over N; at d=128 at least 5 % less in every N."""
    import json
    import math
    from pathlib import Path
    data = json.loads((Path(__file__).parents[1] / "assets/benchmarks/tune/nvidia-h200-ws-overlap-2026-12-01.json")
                      .read_text())
    assert data["status"]["triton"].startswith("3.6.") and data["device"] == "NVIDIA H200"
    rows = data["rows"]

    def ms(n, d, causal, cfg, overlap):
        _, bn, stages, _, pp, pers, nc = cfg
        [r] = [r for r in rows if (r["n"], r["d"], r["causal"], r["consumers"], r["block_n"], r["stages"],
                                   r["overlap"], r["pingpong"], r["persistent"]) ==
               (n, d, causal, nc, bn, stages, overlap, pp, pers)]
        return r["ms"]
    for (d, causal), cfg in ws.CONFIGS.items():
        assert cfg[3] is True
        ratios = [ms(n, d, causal, cfg, True) / ms(n, d, causal, cfg, False) for n in (4096, 8192, 16384)]
        assert max(ratios) < 1.01 and math.prod(ratios) < 1.0, (d, causal, ratios)
        if d == 128:
            assert max(ratios) < 0.98, (d, causal, ratios)
