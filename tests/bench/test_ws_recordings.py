"""The committed H200 recordings against the code that reads them: the newest forward recording ran the dispatch
table in force, and the timeline's ws cells ran the consumer counts the forward table gives. (Each table row's own
claim is checked against its file by tests/kernels/test_dispatch_evidence.py.)"""
from pathlib import Path

from flashviz_kernels import ws

ROOT = Path(__file__).resolve().parents[2]


def test_the_newest_forward_recording_ran_the_table_in_force():
    """Its provenance's fast_uses_ws is what ws.status() says today (a re-recording is due when the table moves)."""
    from flashviz.bench.dataset import load_dataset
    newest = sorted((ROOT / "assets/benchmarks").glob("nvidia-h200-fwd-*.json"))[-1]
    data = load_dataset(newest)
    assert data["provenance"]["fast_uses_ws"] == ", ".join(ws.status()["fast_uses_ws"]), newest.name
    ws_cells = [c for c in data["cells"] if c["impl"] == "fast" and c["status"] == "ok"]
    assert ws_cells and all(c["correct"] for c in ws_cells)


def test_timeline_ws_cells_ran_the_tables_consumers():
    from flashviz.bench import timeline_dataset as td
    name = td.list_timeline_datasets()[0].name
    data = td.load_timeline_dataset(ROOT / "assets/benchmarks/timeline" / name)
    cells = [c for c in data["cells"] if c["impl"] == "ws" and c["status"] == "ok"]
    assert cells
    for c in cells:
        assert c["block_m"] == ws.CONFIGS[(c["d"], bool(c["causal"]))][0], (c["d"], c["causal"])
