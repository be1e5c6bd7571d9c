"""Tests change what the dispatch tables say (kernels/forward_table.py, kernels/backward_table.py) through these
helpers: each replaces a table with rows built here (no evidence: test rows), so the code under test reads them as
it reads the real ones."""
from flashviz_kernels import backward_table, forward_table
from flashviz_kernels.tables import ANY, Route, dims


def fast_routes(monkeypatch, ws_from: dict, window=(), alibi=(), docs=()):
    """impl="fast" runs ws for (d, causal) from N = ws_from[(d, causal)], and for causal windows / causal ALiBi /
    documents at the head dims listed (the old FAST_USES_WS, WINDOW_WS_DIMS, ALIBI_WS_DIMS, DOCS_WS_DIMS)."""
    rows = [Route("dense", dims(d), c, (n, None), "ws", "test") for (d, c), n in ws_from.items()]
    rows += [Route(v, dims(d), ANY if v == "docs" else True, (1, None), "ws", "test")
             for v, ds in (("window", window), ("alibi", alibi), ("docs", docs)) for d in ds]
    monkeypatch.setattr(forward_table, "ROUTES", tuple(rows))


def ws_from_table(monkeypatch, **variants):
    """The forward table as it is, but impl="fast" runs ws for each given variant ("window", "alibi", "docs") at
    exactly the head dims given (ws_from_table(monkeypatch, docs=(128,)))."""
    rows = [r for r in forward_table.ROUTES if r.variant not in variants]
    rows += [Route(v, dims(d), ANY if v == "docs" else True, (1, None), "ws", "test") for v, ds in variants.items()
             for d in ds]
    monkeypatch.setattr(forward_table, "ROUTES", tuple(rows))


def ws_launch(monkeypatch, variant: str, d: int, **fields):
    """The ws forward's launch row (variant, d) with `fields` changed (every row of that variant at d)."""
    rows = tuple(r.but(**fields) if r.variant == variant and r.d == dims(d) else r for r in forward_table.WS_LAUNCHES)
    monkeypatch.setattr(forward_table, "WS_LAUNCHES", rows)


def backward_routes(monkeypatch, ws=(64, 128), masks=(64, 128), gqa=(64, 128), fused_max=64):
    """"auto" runs the ws backward at these head dims (windows and documents at `masks`, GQA at `gqa`) and the fused
    one for d <= fused_max (the old WS_AUTO_DIMS, WS_MASK_AUTO_DIMS, WS_GQA_AUTO_DIMS, FUSED_AUTO_MAX_D)."""
    rows = [Route("dense", dims(d), ANY, (1, None), "ws", "test") for d in ws]
    rows += [Route(v, dims(d), ANY, (1, None), "ws", "test") for v in ("window", "docs") for d in masks]
    rows += [Route("gqa", dims(d), ANY, (1, None), "ws", "test") for d in gqa]
    rows += [Route("dense", (1, fused_max), ANY, (1, None), "fused", "test"),
             Route("dense", (fused_max + 1, 256), ANY, (1, None), "reference", "test")]
    monkeypatch.setattr(backward_table, "ROUTES", tuple(rows))


def ws_bwd_launch(monkeypatch, **fields):
    """Every ws backward launch row with `fields` changed (e.g. dq_mode="tma")."""
    rows = tuple(r.but(**fields) for r in backward_table.WS_BWD_LAUNCHES)
    monkeypatch.setattr(backward_table, "WS_BWD_LAUNCHES", rows)


def pretend_hopper(monkeypatch, version="3.6.0", cap=(9, 0)):
    """This process looks like a GPU machine with this triton and compute capability (nothing launches)."""
    from flashviz_kernels import _env, ws
    monkeypatch.setattr(ws, "triton_version", lambda: version)
    monkeypatch.setattr(_env, "INTERPRET", False)
    monkeypatch.setattr(ws, "_capability", lambda: cap)
    monkeypatch.setattr(ws, "_gluon_import_error", lambda: None)
