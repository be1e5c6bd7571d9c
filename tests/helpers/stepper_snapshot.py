"""What the stepper page must show a load-test or browser-test session, from the numpy engine: the snapshot read
from the page in one evaluate, the engine's trace for a (seed, tile), and the differences between the two.
Used by tests/load/loadtest.py and tests/browser/test_browser.py.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

N, D, BR, ROW = 16, 4, 4, 15
TILES = (2, 3, 5, 1)            # Tc = 8, 6, 4, 16 (ragged last tiles for 3 and 5)
KERNEL_TOL = 1e-5
KERNEL_ROWS_IN_VIEW = 10       # rows of the kernel table glide draws without scrolling (of 16 at tile 1)

# What the page shows, read in one evaluate: the step label, the tables (the stepper's own table, drawn in the browser
# by flashviz/client/player.js, and glide's accessible <table> of the kernel panel), the counters (the stepper's and
# Streamlit's metrics), captions, and whether a script run is still going (status widget, stale elements).
SNAPSHOT_JS = """() => {
  const txt = e => (e ? e.textContent : null);
  const texts = sel => [...document.querySelectorAll(sel)].map(e => e.textContent.slice(0, 300));
  const own = document.querySelector('[data-fv=label]');
  const label = own ? own.textContent : ([...document.querySelectorAll('[data-testid=stMarkdownContainer] p')]
      .map(p => p.textContent).find(t => /^(Step \\d+ of \\d+|第 \\d+ \\/ \\d+ 步) · /.test(t)) || null);
  const tables = [...document.querySelectorAll('[data-fv=table] table, [data-testid=stDataFrame] table')].map(t =>
      [...t.querySelectorAll('tr')].map(r => [...r.children].map(c => c.textContent)));
  const metrics = {};
  for (const m of document.querySelectorAll('[data-fv-metric]'))
    metrics[txt(m.querySelector('.fv-metric-label'))] = txt(m.querySelector('.fv-metric-value'));
  for (const m of document.querySelectorAll('[data-testid=stMetric]'))
    metrics[txt(m.querySelector('[data-testid=stMetricLabel]'))] = txt(m.querySelector('[data-testid=stMetricValue]'));
  const captions = [...document.querySelectorAll('[data-testid=stCaptionContainer]')].map(e => e.textContent);
  return {label, tables, metrics, captions,
          running: !!document.querySelector('[data-testid=stStatusWidget]'),
          stale: document.querySelectorAll('[data-stale=true]').length,
          exceptions: texts('[data-testid=stException]'), errors: texts('[data-testid=stAlertContentError]'),
          infos: texts('[data-testid=stAlertContentInfo]')};
}"""


# ----------------------------------------------------------------------------- what the page must show

@dataclass(frozen=True)
class Plan:
    index: int
    seed: int
    tile: int

    @property
    def steps(self) -> int:
        return math.ceil(N / self.tile)


def plan(i: int) -> Plan:
    return Plan(index=i, seed=1000 + i, tile=TILES[i % len(TILES)])


def engine(seed: int, tile: int):
    """The numpy engine's trace for the page's configuration (the page's defaults, this seed and tile)."""
    from flashviz.engine.online_softmax import online_softmax_trace
    from flashviz.ui.config import Config, row_problem
    cfg = Config(n=N, d=D, block_m=BR, block_n=tile, seed=seed, row=ROW)
    s, v = row_problem(cfg)
    return online_softmax_trace(s, v, cfg.tile, guard=cfg.guard)


def expected_rows(tr, step: int) -> list[list[str]]:
    """The recurrence table's rows for tiles 1..step+1, formatted as the page formats them."""
    from flashviz.charts.common import fmt_num
    return [[str(j + 1), f"{tr.start[j]}–{tr.stop[j] - 1}", fmt_num(float(tr.tile_max[j])), fmt_num(float(tr.m[j])),
             fmt_num(float(tr.alpha[j])), fmt_num(float(tr.l[j])), "yes" if tr.rescaled[j] else ""]
            for j in range(step + 1)]


def _table(snap: dict, ncols: int) -> list[list[str]] | None:
    for t in snap["tables"]:
        if t and len(t[0]) == ncols:
            return t
    return None


def step_problems(snap: dict, tr, step: int, seed: int, *, caption: bool = True) -> list[str]:
    """Why the snapshot is not the page of (seed, tile) at `step`; [] when it is. caption=False: a page without the
    server's description of the configuration (the offline stepper)."""
    out = []
    lo, hi = int(tr.start[step]), int(tr.stop[step])
    want = f"Step {step + 1} of {tr.steps} · keys {lo}–{hi - 1} are in SRAM"
    if snap["label"] != want:
        out.append(f"label {snap['label']!r} != {want!r}")
    if caption and not any(f"from seed {seed}," in c and f"Bc = {tr.tile_size} →" in c for c in snap["captions"]):
        out.append(f"no caption with seed {seed} and Bc = {tr.tile_size}")
    table = _table(snap, 7)
    rows = expected_rows(tr, step)
    if table is None:
        out.append("no recurrence table")
    elif table[1:] != rows:
        out.append(f"recurrence table {table[1:]} != engine {rows}")
    m = snap["metrics"]
    if m.get("Scores in SRAM now (of N)") != f"{hi - lo} / {N}":
        out.append(f"resident {m.get('Scores in SRAM now (of N)')!r}")
    if m.get("Rescales so far") != str(int(tr.rescaled[:step + 1].sum())):
        out.append(f"rescales {m.get('Rescales so far')!r} != {int(tr.rescaled[:step + 1].sum())}")
    if step == tr.steps - 1 and m.get("Max error vs exact") != f"{tr.error(step):.2e}":
        out.append(f"error {m.get('Max error vs exact')!r} != {tr.error(step):.2e}")
    return out


def kernel_problems(snap: dict, tr) -> tuple[list[str], float | None]:
    """Why the kernel panel does not show this trace's numbers within 1e-5; and the max difference shown."""
    from flashviz.charts.common import fmt_num
    out, shown = [], snap["metrics"].get("Max difference")
    try:
        max_diff = float(shown)
    except (TypeError, ValueError):
        return [f"max difference {shown!r}"], None
    if not max_diff < KERNEL_TOL:
        out.append(f"max difference {max_diff} >= {KERNEL_TOL}")
    if snap["metrics"].get("Tiles compared") != f"{tr.steps} / {tr.steps}":
        out.append(f"tiles compared {snap['metrics'].get('Tiles compared')!r}")
    table = _table(snap, 9)
    want = min(tr.steps, KERNEL_ROWS_IN_VIEW)        # glide renders only the rows in view (the table is 400 px)
    if table is None or not want <= len(table) - 1 <= tr.steps:
        return out + [f"kernel table shows {None if table is None else len(table) - 1} rows, want {want}"], max_diff
    for j, row in enumerate(table[1:]):
        for col, arr in ((2, tr.m), (4, tr.l), (6, tr.alpha)):
            eng = float(arr[j])
            if row[col] != fmt_num(eng, 7):
                out.append(f"tile {j + 1}: simulator column {row[col]!r} != engine {fmt_num(eng, 7)!r}")
            got = float(row[col + 1])
            if abs(got - eng) > KERNEL_TOL * max(1.0, abs(eng)):
                out.append(f"tile {j + 1}: kernel {got} vs engine {eng}")
    return out, max_diff


def complete(snap: dict, kernel: bool = False) -> bool:
    """Every element a check compares is on the page (the label, the table, the counters; the kernel's table and
    its max difference). Only a complete page that shows other numbers is a wrong page: under load the browser
    may draw a table long after the server's run finished, and a missing element is not a wrong number."""
    metrics = snap["metrics"]
    if kernel:
        return any(t and len(t[0]) == 9 for t in snap["tables"]) and metrics.get("Max difference") is not None
    return (snap["label"] is not None and any(t and len(t[0]) == 7 for t in snap["tables"])
            and metrics.get("Scores in SRAM now (of N)") is not None)


def wait_state(page, ok, timeout: float = 60.0, *, errors: bool = False) -> dict:
    """Poll a (sync Playwright) page until ok(snapshot) is [] on a settled page; its snapshot. An exception on the
    page (and, with errors=True, an error message) fails at once; a page that never gets there fails at `timeout`
    with what it showed."""
    end, problems = time.monotonic() + timeout, ["nothing read"]
    while time.monotonic() < end:
        snap = page.evaluate(SNAPSHOT_JS)
        assert not snap["exceptions"] and not (errors and snap["errors"]), snap
        problems = ok(snap)
        if not problems and not snap["running"] and not snap["stale"]:
            return snap
        page.wait_for_timeout(100)
    raise AssertionError(problems[:3])


# The browser player's own state (flashviz/client/player.js's store), for a failure message: what the page was doing
PLAYER_JS = """() => { const G = window.__flashviz; if (!G) return null;
  return Object.values(G.stores).map(s => ({step: s.step, play: s.play, speed: s.speed, frame: s.frame,
    timer: !!s.timer, parts: s.parts.size, waiting: s.waiting.length, id: s.P && s.P.id, nonce: s.nonce,
    visibility: document.visibilityState,
    labels: (document.body.innerText.match(/Step \\d+ of \\d+/g) || []).join(" | ")})); }"""


def player_state(page) -> object:
    """PLAYER_JS on a (sync Playwright) page; what went wrong reading it, if it could not be read."""
    try:
        return page.evaluate(PLAYER_JS)
    except Exception as e:  # noqa: BLE001 - a diagnostic: never hide the failure it explains
        return f"unreadable: {type(e).__name__}: {e}"


# Every state the player draws, in order, recorded in the page by a MutationObserver: (label text, the play button's
# aria-pressed). A poller cannot do this: Playwright's wait_for polls every 500 ms once a wait is a second old, the
# length of one autoplay step at speed 0.5, so it can step over a whole step (the autoplay test's old flake).
RECORD_JS = """() => { const seen = window.__fvSeen = [];
  const read = () => { const l = document.querySelector('[data-fv=label]'), p = document.querySelector('[data-fv-act=play]');
    if (!l || !p) return;
    const r = [l.textContent, p.getAttribute('aria-pressed')], last = seen[seen.length - 1];
    if (!last || last[0] !== r[0] || last[1] !== r[1]) seen.push(r); };
  new MutationObserver(read).observe(document.body, {subtree: true, childList: true, characterData: true,
                                                     attributes: true, attributeFilter: ['aria-pressed']});
  read(); }"""


def record_player(page) -> None:
    """Start recording what the player draws (RECORD_JS); player_record reads it."""
    page.evaluate(RECORD_JS)


def player_record(page) -> list[tuple[int, bool]]:
    """(step shown, 1-based; playing) for every state drawn since record_player, read from the English label."""
    import re
    out = []
    for text, pressed in page.evaluate("() => window.__fvSeen"):
        m = re.search(r"Step (\d+) of \d+", text)
        if m:
            out.append((int(m.group(1)), pressed == "true"))
    return out


def wait_record(page, ok, timeout: float = 60.0) -> list[tuple[int, bool]]:
    """Poll player_record until ok(record) holds (the record keeps every state: polling misses none); the record.
    AssertionError with the record and the player's state after timeout seconds."""
    end = time.monotonic() + timeout
    while True:
        rec = player_record(page)
        if ok(rec):
            return rec
        if time.monotonic() > end:
            raise AssertionError(f"player record {rec}; player: {player_state(page)}")
        page.wait_for_timeout(100)
