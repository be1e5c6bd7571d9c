"""The ws forward's wide key tile (block_n = ws.WIDE_BN = 256, two consumers at d = 64) without a GPU: which launches
take it, the defaults it changes (block_m 128, OVERLAP off), what it refuses before any launch, the tune command's
candidates, and, where the installed triton is a verified one, its sm_90 build (registers, spills, shared memory).
tests/kernels/test_ws_wide_gpu.py runs it against float64 on a Hopper GPU."""
import pytest
import torch

import flashviz_kernels as fk
from helpers.ws import PTXAS, compile_report, needs_verified_triton, per_triton
from flashviz_kernels import ws

pytestmark = pytest.mark.usefixtures("fresh_ws_state")


@pytest.mark.parametrize("bm,bn,d,ok", [(128, 256, 64, True), (128, 128, 64, True), (192, 64, 128, True),
                                        (192, 256, 64, False), (128, 256, 128, False), (64, 256, 64, False),
                                        (128, 512, 64, False), (256, 128, 64, False)])
def test_tile_rule(bm, bn, d, ok):
    why = ws.tile_problem(bm, bn, d)
    assert (why is None) is ok, why
    if not ok:
        assert f"{bm} x {bn} at d = {d}" in why and str(ws.WIDE_BN) in why


def test_pick_config_takes_two_consumers_with_the_wide_tile(monkeypatch):
    monkeypatch.delenv(ws.CONSUMERS_ENV, raising=False)
    q64, q128 = (torch.empty((1, 1, 8, d), device="meta") for d in (64, 128))
    for causal in (False, True):
        assert ws.pick_config(q64, None, causal=causal, block_n=256)[:3] == (128, 256, 4)
        assert ws.pick_config(q64, None, causal=causal)[1] in (64, 128)         # no table row runs 256
    with pytest.raises(fk.KernelInputError, match="at d = 128"):
        ws.pick_config(q128, None, causal=False, block_n=256)
    with pytest.raises(fk.KernelInputError, match="192 x 256"):
        ws.pick_config(q64, None, causal=False, block_m=192, block_n=256)


def test_overlap_is_off_at_the_wide_tile_unless_asked(monkeypatch):
    monkeypatch.delenv(ws.OVERLAP_ENV, raising=False)
    for d, causal in ws.CONFIGS:
        assert ws.overlap_default(d, causal, block_n=256) is False
        assert ws.overlap_default(d, causal, block_n=128) is ws.CONFIGS[(d, causal)][3]
    monkeypatch.setenv(ws.OVERLAP_ENV, "1")                     # the switch still decides for every launch
    assert ws.overlap_default(64, False, block_n=256) is True


@pytest.mark.parametrize("kw,match", [(dict(block_m=128, block_n=256), "at d = 128"),
                                      (dict(alibi=True), "without ALiBi"), (dict(half=True), "without ALiBi and HALF"),
                                      (dict(num_stages=4, persistent=True), "shared memory")])
def test_refused_before_any_launch(monkeypatch, kw, match):
    """Typed errors from the host checks (ws.unsupported stubbed, a launch fails the test)."""
    monkeypatch.setattr(ws, "unsupported", lambda q: None)
    monkeypatch.setattr(ws, "_sm_count", lambda i: pytest.fail("launched"))
    kw = dict(kw)
    d = 128 if kw.get("block_n") == 256 else 64
    q = torch.empty((1, 2, 300, d), dtype=torch.float16)
    args = dict(causal=True, sm_scale=0.1, block_m=128, block_n=256, num_warps=4, num_stages=2)
    if kw.pop("alibi", False):
        kw["alibi_slopes"] = torch.ones((1, 2), dtype=torch.float32)
    with pytest.raises(fk.KernelInputError, match=match):
        ws.forward(q, q, q, **dict(args, **kw))


def test_smem_estimate_fits_three_stages_at_most():
    """The ring's stages at 128 x 256, d = 64: 3 fit sm_90's shared memory with two Q buffers (persistent), 4 do not."""
    assert ws.smem_bytes(64, 256, 3, True, 2, 2) <= ws.SMEM_BYTES < ws.smem_bytes(64, 256, 4, False, 2, 2)


def test_tune_candidates_are_launches_forward_takes():
    from tools import tune_ws
    assert set(tune_ws.WIDE_CANDIDATES) == {64}
    for d, cands in tune_ws.WIDE_CANDIDATES.items():
        for nc, (bn, stages, overlap, _) in cands:
            assert ws.tile_problem(64 * nc, bn, d) is None and bn == ws.WIDE_BN and not overlap
            assert ws.smem_bytes(d, bn, stages, True, 2, nc) <= ws.SMEM_BYTES       # persistent too


COMPILE = """
import json, os, re, subprocess, tempfile, triton
from flashviz_kernels import ws
from tools.compile_check import compile_sm90
overlap = ws.overlap_default(64, {causal}, consumers=2, persistent={persistent}, window={window}, block_n=256)
k = compile_sm90(64, {causal}, overlap=overlap, pingpong=True, block_n=256, stages={stages}, persistent={persistent},
                 consumers=2, window={window}, docs={docs})
""" + PTXAS + """\
print(json.dumps(dict(wgmma=ptx.count("wgmma.mma_async"), spills=ptx.count("st.local"), shared=k.metadata.shared,
                      overlap=overlap, ptxas_spills=[int(x) for x in spill.groups()] if spill else None)))
"""
# ptxas spill bytes (stores, loads) allowed at 128 x 256, per triton: what its persistent launches spill in
# assets/benchmarks/tune/cpu-sm90-compile-wide-2026-12-05.txt (the one-tile launches spill none)
WIDE_SPILL_BYTES = {"3.9.": 104}


@pytest.mark.parametrize("causal,window,docs,persistent,stages", [
    (False, False, False, False, 2), (False, False, False, True, 3), (True, False, False, False, 3),
    (True, False, False, True, 2), (True, True, False, True, 2), (False, False, True, False, 2)])
def test_wide_tile_compiles_for_sm90(causal, window, docs, persistent, stages):
    """In a child process with TRITON_INTERPRET=0, like test_ws_build.py's compile tests: OVERLAP off by default, no
    local-memory spills in the PTX, ptxas's within WIDE_SPILL_BYTES (else 24 B), shared memory within sm_90's and
    the estimate."""
    needs_verified_triton()
    got = compile_report(COMPILE.format(causal=causal, window=window, docs=docs, persistent=persistent, stages=stages))
    assert got["overlap"] is False and got["wgmma"] > 0 and got["spills"] == 0
    bound = per_triton(WIDE_SPILL_BYTES, 24)
    assert max(got["ptxas_spills"]) <= bound, got["ptxas_spills"]
    assert ws.smem_bytes(64, 256, stages, persistent, 2, 2) <= got["shared"] <= ws.SMEM_BYTES


def _recorded_builds():
    """(triton, command, launch line) of each build in the compile recording ws_schedule.WIDE_BN's comment cites."""
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "assets/benchmarks/tune/cpu-sm90-compile-wide-2026-12-05.txt"
    out, triton_v, cmd = [], None, None
    for line in path.read_text().splitlines():
        if line.startswith("## ws forward, triton "):
            triton_v = line.split()[4]
        elif line.startswith("# $ "):
            cmd = line[4:]
        elif line.startswith("  NC="):
            out.append((triton_v, cmd, line))
    return out


def _spills(line):
    import re
    m = re.search(r"spill stores (\d+) B loads (\d+) B", line)
    return None if m is None else max(int(m.group(1)), int(m.group(2)))


def test_the_wide_rules_say_what_the_recording_holds():
    """WIDE_BN's comment and ws.forward's refusals, against the file they cite: at d = 64 two consumers without ALiBi
    spill at most what test_wide_tile_compiles_for_sm90 allows per triton, ALiBi (under 3.8) and forced OVERLAP
    spill hundreds of bytes, three consumers fail in ptxas for registers, d = 128 outgrows shared memory."""
    builds = _recorded_builds()
    assert {t for t, _, _ in builds} == {"3.8.0", "3.6.0", "3.9.0"} and len(builds) == 224
    for triton_v, cmd, line in builds:
        wide = "bn=256" in line
        bound = WIDE_SPILL_BYTES.get(triton_v[:4], 24)
        if not wide:                                              # the table's own tiles, for comparison
            assert "refuses" not in line
        elif "d=128" in line:
            assert "(ws.forward refuses this tile) skipped: needs" in line and "of shared memory" in line
        elif "NC=3" in line:
            assert "refuses" in line and "Insufficient registers" in line
        elif "ov=1" in line:
            assert "--overlap 1" in cmd and _spills(line) >= 150, line
        elif "alibi=1" in line:
            assert triton_v == "3.6.0" or _spills(line) >= 900, line
        else:
            assert "refuses" not in line and _spills(line) <= bound, line
