"""SKIP in the ws forward without a GPU (kernels/_ws_range.py own_tiles, kernels/_ws_ring.py pass_tiles): the share
of consumer key-tile trips it passes on, against a float64 brute force of which (row, key) pairs are visible; and
the ring protocol a passing consumer follows, run as a model of mbarrier phases under random interleavings, which
must catch the slot reuse that passing without waiting for the loads would allow. Then what the GPU showed: its
A/B recordings where it is the default, and the d = 64 forward against FlashAttention-4 before and after it."""
import json
import random
from pathlib import Path

import numpy as np
import pytest

from flashviz_kernels import gates, ws_switches
from tools import fa4_rounds


@pytest.mark.parametrize("n_q,n_k,bm,bn,causal", [(4096, 4096, 192, 128, True), (4096, 4096, 192, 128, False),
                                                  (1000, 3000, 192, 128, True), (3000, 1000, 192, 128, True),
                                                  (777, 777, 128, 64, True), (130, 130, 192, 128, False),
                                                  (640, 640, 128, 128, True), (64, 5000, 192, 128, True)])
def test_skipped_share_is_the_trips_no_row_of_a_consumer_sees(n_q, n_k, bm, bn, causal):
    i, j = np.arange(n_q)[:, None], np.arange(n_k)[None, :]
    seen = (j <= i + n_k - n_q) if causal else np.ones((n_q, n_k), bool)
    walked = passed = 0
    for s in range(0, n_q, bm):
        tiles = sum(int(seen[s:s + bm, t:t + bn].any()) for t in range(0, n_k, bn))   # the tile's key range
        for r0 in range(s, s + bm, 64):
            own = sum(int(seen[r0:r0 + 64, t:t + bn].any()) for t in range(0, tiles * bn, bn))
            walked, passed = walked + tiles, passed + tiles - own
    assert ws_switches.skipped_share(n_q, n_k, bm, bn, causal) == pytest.approx(passed / walked, abs=1e-15)


def test_skipped_share_where_it_matters():
    """Three consumers (192-row tiles): a twelfth of the trips at N = 4096 causal, still a thirty-third without the
    mask (the ragged last tile's two idle consumers), a fiftieth at 16384; 128-row tiles at N % 128 = 0 pass none."""
    assert ws_switches.skipped_share(4096, 4096, 192, 128, True) == pytest.approx(1 / 12)
    assert ws_switches.skipped_share(4096, 4096, 192, 128, False) == pytest.approx(1 / 33)
    assert 0.02 < ws_switches.skipped_share(16384, 16384, 192, 128, True) < 0.025
    assert ws_switches.skipped_share(8192, 8192, 128, 128, True) == 0.0


class Bar:
    """An mbarrier: `count` arrives complete a phase; wait(parity) passes once the phase of that parity is over."""

    def __init__(self, count):
        self.count, self.arrived, self.done = count, 0, 0

    def arrive(self):
        self.arrived += 1
        if self.arrived == self.count:
            self.arrived, self.done = 0, self.done + 1

    def passes(self, parity):
        return self.done % 2 != parity


def _run(n, own, stages, seed, wait_loads=True, pingpong=True):
    """One query tile of n key tiles through a ring of `stages`, consumer c walking its first own[c] and passing
    the rest (PINGPONG's turns where pingpong; OVERLAP's order: K_c's Q·Kᵀ, then P_{c-1}·V_{c-1}). Returns "ok",
    "deadlock" or the hazard met: a load into a slot some consumer still reads, or a read of a slot holding another
    position."""
    nc = len(own)
    kr, vr = [Bar(1) for _ in range(stages)], [Bar(1) for _ in range(stages)]
    ke, ve = [Bar(nc) for _ in range(stages)], [Bar(nc) for _ in range(stages)]
    turn = [Bar(1) for _ in range(nc)]
    turn[0].arrive()
    slot = {("K", s): None for s in range(stages)} | {("V", s): None for s in range(stages)}
    readers = {k: set() for k in slot}

    def producer():
        for c in range(n):
            st, ph = c % stages, ((c // stages) & 1) ^ 1
            for kind, empty, ready in (("K", ke, kr), ("V", ve, vr)):
                yield ("wait", empty[st], ph)
                if readers[(kind, st)]:
                    raise AssertionError(f"load of {kind}{c} into a slot still read by {readers[(kind, st)]}")
                slot[(kind, st)] = c
                ready[st].arrive()

    def use(cid, kind, c):
        if slot[(kind, c % stages)] != c:
            raise AssertionError(f"consumer {cid} read {kind}{c} but the slot holds {slot[(kind, c % stages)]}")
        readers[(kind, c % stages)].add(cid)

    def free(cid, kind, c, empty):
        readers[(kind, c % stages)].discard(cid)
        empty[c % stages].arrive()

    def consumer(cid):
        for c in range(own[cid]):
            st, ph = c % stages, (c // stages) & 1
            yield ("wait", kr[st], ph)
            if pingpong:
                yield ("wait", turn[cid], c & 1)
            use(cid, "K", c)
            yield ("step",)
            if c > 0:                                  # P_{c-1}·V_{c-1} issued beside Q·K_cᵀ
                yield ("wait", vr[(c - 1) % stages], ((c - 1) // stages) & 1)
                use(cid, "V", c - 1)
            if pingpong:
                turn[(cid + 1) % nc].arrive()
            free(cid, "K", c, ke)
            yield ("step",)
            if c > 0:
                free(cid, "V", c - 1, ve)
        if own[cid]:                                   # the last P·V
            c = own[cid] - 1
            yield ("wait", vr[c % stages], (c // stages) & 1)
            use(cid, "V", c)
            yield ("step",)
            free(cid, "V", c, ve)
        for c in range(own[cid], n):                   # pass_tiles
            st, ph = c % stages, (c // stages) & 1
            if wait_loads:
                yield ("wait", kr[st], ph)
            if pingpong:
                yield ("wait", turn[cid], c & 1)
                turn[(cid + 1) % nc].arrive()
            ke[st].arrive()
            if wait_loads:
                yield ("wait", vr[st], ph)
            ve[st].arrive()

    rng = random.Random(seed)
    agents = {"p": producer(), **{c: consumer(c) for c in range(nc)}}
    blocked = {a: None for a in agents}
    while agents:
        ready = [a for a in agents if blocked[a] is None or blocked[a][1].passes(blocked[a][2])]
        if not ready:
            return "deadlock"
        a = rng.choice(ready)
        blocked[a] = None
        try:
            ev = next(agents[a])
        except StopIteration:
            del agents[a]
            continue
        except AssertionError as e:
            return str(e)
        if ev[0] == "wait":
            blocked[a] = ev
    return "ok"


@pytest.mark.parametrize("own", [(4, 5, 6), (0, 0, 6), (6, 6, 6), (2, 6, 6), (0, 3, 6), (1, 1, 1), (3, 4)])
@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("pingpong", [True, False])
def test_pass_tiles_keeps_the_ring_protocol(own, stages, pingpong):
    """Every interleaving tried finishes, and no load lands in a slot a consumer reads nor a consumer reads a slot
    holding another position, whichever consumers pass how many trailing key tiles (own: each one's own tiles of
    the tile's max(own)), with and without PINGPONG's turns."""
    n = max(own)
    for seed in range(150):
        assert _run(n, own, stages, seed, pingpong=pingpong) == "ok", (own, stages, seed)


@pytest.mark.parametrize("pingpong", [True, False])
def test_the_model_catches_passing_without_waiting_for_the_loads(pingpong):
    """The same model with pass_tiles' ready waits left out: a consumer that passes many tiles frees a stage's slot
    for a load before the others are done with that stage's previous one (its early arrive counts in their
    phase), and the model says so: the waits are what makes passing safe."""
    results = {_run(6, (1, 6, 6), 2, seed, wait_loads=False, pingpong=pingpong) for seed in range(300)}
    assert any(r.startswith(("load of", "consumer")) for r in results), results


# SKIP's A/B on an H100 (fa4_rounds --mode fwd --d 64 in alternating processes, SKIP off then on, two pairs per
# triton; `python -m tools.fa4_rounds --ab OFF ON ...` prints the same numbers)
TUNE = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "tune"
AB = {v: [(f"nvidia-h100-fwd-skip0-run{r}-triton{v.replace('.', '')[:2]}-2026-12-06.json",
           f"nvidia-h100-fwd-skip1-run{r}-triton{v.replace('.', '')[:2]}-2026-12-06.json") for r in (1, 2)]
      for v in ("3.6.0", "3.8.0")}


def _rec(name: str, version: str, skip: str) -> dict:
    rec = json.loads((TUNE / name).read_text(encoding="utf-8"))
    assert rec["triton"] == version and rec["device"].startswith("NVIDIA H100"), name
    assert rec["switches"] == {ws_switches.SKIP_ENV: skip}, (name, rec["switches"])
    assert {(r["mode"], r["d"]) for r in rec["rows"]} == {("fwd", 64)} and len(rec["rows"]) == 4, name
    return rec


@pytest.mark.parametrize("version", list(AB))
def test_skip_timed_faster_in_every_cell_where_it_is_the_default(version):
    """Against cuDNN timed in the same process: SKIP on faster than off in all 4 cells (N 4096 / 16384, causal or
    not) of both pairs, by most at N = 4096 causal (a twelfth of the trips passed); and it is that triton's default,
    with a gate row for the forward's files run with it forced."""
    for off, on in AB[version]:
        cells = dict(fa4_rounds.ab(_rec(off, version, "0"), _rec(on, version, "1"), "sdpa-cudnn"))
        assert len(cells) == 4 and all(x > 1.0 for x in cells.values()), cells
        assert max(cells, key=cells.get) == "fwd N=4096 d=64 causal=1", cells
        assert cells["fwd N=4096 d=64 causal=1"] > 1.03, cells
    assert ws_switches.skip_default(version)
    envs = [r.evidence.env for r in gates.rows("ws-forward") if version.startswith(r.triton)]
    assert {ws_switches.SKIP_ENV: "1"} in envs


def test_skip_moved_the_d64_forward_toward_fa4():
    """The same tool, cells and triton (3.8) before SKIP (4cf5b92, LPT on) and with it (7c1b809, SKIP forced, as
    its default runs now), FA4 the common yardstick across the two sessions: at N = 4096 causal ours went from
    below 0.93 of FA4 to above 0.96 of it (issue 32's forward target, >= 1, is still not met in any d = 64 cell)."""
    before = json.loads((TUNE / "nvidia-h100-fa4-rounds-lpt-triton38-2026-12-06.json").read_text(encoding="utf-8"))
    after = json.loads((TUNE / "nvidia-h100-fa4-rounds-skip-triton38-2026-12-06.json").read_text(encoding="utf-8"))
    assert before["triton"] == after["triton"] == "3.8.0" and after["switches"] == {ws_switches.SKIP_ENV: "1"}

    def vs_fa4(rec):
        return {(r["n"], bool(r["causal"])): fa4_rounds.ratios(r, "fa4")[0] for r in rec["rows"]
                if r["mode"] == "fwd" and r["d"] == 64}
    b, a = vs_fa4(before), vs_fa4(after)
    assert b[(4096, True)] < 0.93 < 0.96 < a[(4096, True)]
    assert all(x < 1.0 for x in a.values()), a


def test_p_pack_stays_off_with_skip_on():
    """P_PACK (the default consumer's P packed by inline asm, which removes its 32 PRMT a trip under 3.8) timed
    again once SKIP was the default: in both pairs of alternating processes (against cuDNN timed beside) it was
    slower in at least one of the 4 d = 64 cells, so it stays off (ws_switches.P_PACK_TRITONS)."""
    for r in (1, 2):
        off, on = (json.loads((TUNE / f"nvidia-h100-fwd-ppack{p}-skip-run{r}-triton38-2026-12-06.json")
                              .read_text(encoding="utf-8")) for p in (0, 1))
        for p, rec in enumerate((off, on)):
            assert rec["triton"] == "3.8.0" and rec["device"].startswith("NVIDIA H100")
            assert rec["switches"] == {ws_switches.P_PACK_ENV: str(p)}
            assert rec["git_commit"].startswith("596dc4a")                  # SKIP on by default there
        cells = dict(fa4_rounds.ab(off, on, "sdpa-cudnn"))
        assert len(cells) == 4 and min(cells.values()) < 1.0 < max(cells.values()), cells
    assert ws_switches.P_PACK_TRITONS == () and ws_switches.skip_default("3.8.0")
