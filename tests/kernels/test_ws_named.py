"""NAMED (ws_switches.named_turn_default: PINGPONG's turns through named barriers) as built for sm_90a on a CPU under
triton 3.8, read from the committed tools.sass_loops files of one commit with it off and on: what it changes in a
key-loop trip; what the H100 timed of it; and that it stays off."""
import json
import re
from pathlib import Path

from flashviz_kernels import ws_switches

TUNE = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "tune"


def _paths(on: int) -> dict:
    """{(d, causal, loop index, path): {kind: count, "instructions": n}} of the forward's loops, NAMED off / on."""
    text = (TUNE / f"cpu-sm90-sass-loops-fwd-named{on}-triton38-2026-12-07.txt").read_text(encoding="utf-8")
    assert f"FLASHVIZ_WS_NAMED={on} python -m tools.sass_loops --what fwd --d 64 128" in text and "triton 3.8.0" in text
    out, loops = {}, {}
    for m in re.finditer(r"^fwd d=(\d+) causal=(\d) ours loop@(\w+) path (\d): (\d+) instructions.*?\): (.*)$", text,
                         re.M):
        d, causal, loop, path, n, kinds = m.groups()
        idx = loops.setdefault((d, causal), {}).setdefault(loop, len(loops[(d, causal)]))
        counts = dict(zip(kinds.split()[::2], map(int, kinds.split()[1::2])))
        out[(int(d), int(causal), idx, int(path))] = dict(counts, instructions=int(n))
    return out


def test_named_turns_trade_two_mbarrier_ops_for_one_bar_a_trip():
    """Every path of every consumer's loop (d 64 / 128, causal or not): two SYNCS fewer (the turn's polled wait and
    its arrive) and one BAR more (bar.sync and bar.arrive in place of the arrive's warpgroup BAR.SYNC); the softmax
    and the GEMMs untouched."""
    off, on = _paths(0), _paths(1)
    assert off.keys() == on.keys() and len(off) == 20
    for key in off:
        a, b = off[key], on[key]
        assert (b["SYNCS"], b["BAR"]) == (a["SYNCS"] - 2, a["BAR"] + 1), key
        assert all(a[k] == b[k] for k in ("HGMMA", "MUFU.EX2", "FFMA", "FMNMX", "F2FP")), key
        assert abs(b["instructions"] - a["instructions"]) <= 8, key


def test_named_turns_stay_off(monkeypatch):
    monkeypatch.delenv(ws_switches.NAMED_ENV, raising=False)
    for v in ("3.6.0", "3.7.1", "3.8.0", "3.9.0"):
        assert not ws_switches.named_turn_default(v)


def test_named_turns_timed_on_an_h100_gained_nothing_steady():
    """Both sides in the same rounds (tools.fa4_rounds --switch FLASHVIZ_WS_NAMED=0,1, H100, triton 3.8): the seven
    dense cells that ran went from 1 % slower (d = 128, N = 16384 without a mask) to 2 % faster (d = 128, N = 4096
    causal), 0.3 % faster in their mean: no steady gain. Each cell's error against the reference is the same on both
    sides. No reason yet to turn it on."""
    rec = json.loads((TUNE / "nvidia-h100-fwd-named-switch-triton38-2026-12-07.json").read_text("utf-8"))
    assert rec["git_commit"].startswith("747fdb6") and rec["triton"] == "3.8.0" and "H100" in rec["device"]
    cells = {(r["n"], r["d"], r["causal"]): r["impls"] for r in rec["rows"]}
    assert len(cells) == 7 and (16384, 128, True) not in cells
    speed = {}
    for cell, impls in cells.items():
        off, on = impls["fast"], impls[f"fast {ws_switches.NAMED_ENV}=1"]
        assert on["maxerr"] == off["maxerr"] < 1e-3, cell
        speed[cell] = off["ms"] / on["ms"]
    assert all(0.985 < s < 1.025 for s in speed.values()), speed
    assert speed[(16384, 128, False)] < 1 and 1 < sum(speed.values()) / len(speed) < 1.005, speed
