"""The timing tools (tools/) on this machine, without a GPU: rounds that rotate their order (tune_record), the host
profile table, Nsight Compute exports read and compared (ncu_pair, ncu_source), and FA4 rounds with their A/B and
switch modes (fa4_rounds). Each is fed a small file or fake timer whose answer is known."""
import json
import os

import pytest


def test_time_rounds_rotates_the_order_and_drops_a_run_that_raises():
    """tools.tune_record.time_rounds (tune_backward, tune_fast --rounds, window_fit --rounds): round r starts at run
    r mod n, each run is timed once per round, and a run that raises keeps its error and is not timed again."""
    from tools.tune_record import time_rounds
    order = []

    def bench(name):
        order.append(name)
        if name == "c" and order.count("c") == 2:
            raise ValueError("out of resources\nmore")
        return float(len(order))
    got = time_rounds({"a": "a", "b": "b", "c": "c"}, 3, bench)
    assert order == ["a", "b", "c", "b", "c", "a", "a", "b"]
    assert got == {"a": [1.0, 6.0, 7.0], "b": [2.0, 4.0, 8.0], "c": "ValueError: out of resources"}


def test_host_breakdown_profile_table_counts_the_calls_it_ran():
    """tools.host_breakdown.profile_table (--torch-profile): the ops of `calls` runs (the warm-up left out), by self
    CPU time; run here on CPU tensors."""
    import torch

    from tools.host_breakdown import profile_table
    a = torch.randn(32, 32)
    table = profile_table(lambda: torch.mm(a, a), 7)
    row = next(line for line in table.splitlines() if line.strip().startswith("aten::mm"))
    assert row.split()[-1] == "7"                      # the "# of Calls" column
    assert "Self CPU" in table


def test_ncu_pair_reads_details_and_stalls_and_tables_what_differs():
    """tools/ncu_pair.py on a small ncu-shaped export: the program's own lines before the header are skipped, the
    raw page's units row is not a kernel, each kernel keeps its details and stall reasons, and the table keeps
    only metrics whose values differ, longest kernel first."""
    from tools import ncu_pair
    head = '"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"'
    details = "\n".join(["==PROF== Connected", "warming up", head,
                         '"0","pre","GPU Speed Of Light Throughput","Duration","us","5"',
                         '"1","ours","GPU Speed Of Light Throughput","Duration","ms","2.7"',
                         '"1","ours","Launch Statistics","Registers Per Thread","register/thread","168"',
                         '"2","peer","GPU Speed Of Light Throughput","Duration","us","2,400"',
                         '"2","peer","Launch Statistics","Registers Per Thread","register/thread","168"',
                         '"2","peer","Memory Workload Analysis","Local Memory Spilling Requests","","0"'])
    stall = ncu_pair.STALL[0] + "{}" + ncu_pair.STALL[1]
    raw = "\n".join([f'"ID","Kernel Name","{stall.format("wait")}","{stall.format("barrier")}"',
                     '"","","ratio","ratio"', '"1","ours","1.57","4.02"', '"2","peer","0.70","1.64"'])
    ks = ncu_pair.kernels(ncu_pair.read_csv(details), ncu_pair.read_csv(raw))
    assert [k["name"] for k in ks] == ["pre", "ours", "peer"]
    assert ks[1]["stalls"] == {"wait": 1.57, "barrier": 4.02} and ks[0]["stalls"] == {}
    assert ks[2]["details"]["Memory Workload Analysis"] == {"Local Memory Spilling Requests": "0"}
    text = ncu_pair.table(dict(cells={"bwd 4096 64 0": dict(kernels=ks)}))
    lines = text.splitlines()
    assert lines[1].split()[1:] == ["ours", "peer"]                     # 2.7 ms before 2,400 us; "pre" left out
    assert any(line.split()[:2] == ["Duration", "(ms)"] for line in lines)
    assert not any("Registers" in line for line in lines)               # equal in both: not printed
    assert any(line.split() == ["wait", "1.57", "0.7"] for line in lines)
    with pytest.raises(ValueError):
        ncu_pair.read_csv("no header here")


def test_ncu_source_reads_the_source_page_and_shares_samples_by_loop():
    """tools/ncu_source.py on a small ncu-shaped source page: the program's lines and the kernel-name line before the
    header are skipped, addresses and branch targets become offsets from the kernel's first line, each line keeps
    its samples and non-zero reasons (not the "Not Issued" copies), and the loop holding HGMMA (0x10-0x30, branch
    back) gets its share of all samples."""
    from tools import ncu_source
    cols = ('"Address","Source","Warp Stall Sampling (All Samples)","stall_wait","stall_barrier",'
            '"stall_wait (Not Issued)"')
    base = 0x7F0000001000
    rows = [(0x0, "MOV R1, c[0x0][0x28]", 2, 2, 0), (0x10, "HGMMA.64x128x16.F32 R24, gdesc[UR8], RZ", 6, 6, 0),
            (0x20, "MUFU.EX2 R3, R3", 3, 3, 0), (0x30, f"@P0 BRA {base + 0x10:#x}", 1, 1, 0), (0x40, "NOP", 8, 0, 8),
            (0x50, "EXIT", 0, 0, 0)]
    page = "\n".join(["==PROF== Connected", '"Kernel Name","ws_fwd",', cols] +
                     [f'"{base + a:#x}","  {t}","{n}","{w}","{b}","{w}"' for a, t, n, w, b in rows])
    lines = ncu_source.program(ncu_source.read_source(page))
    assert [x["offset"] for x in lines] == [0, 0x10, 0x20, 0x30, 0x40, 0x50]
    assert lines[3]["sass"] == "@P0 BRA 0x10" and lines[1]["stalls"] == {"wait": 6.0}
    assert lines[4]["stalls"] == {"barrier": 8.0} and lines[5]["stalls"] == {} and lines[5]["samples"] == 0
    loops = ncu_source.loop_shares(lines)
    assert len(loops) == 1 and (loops[0]["first"], loops[0]["last"], loops[0]["lines"]) == (0x10, 0x30, 3)
    assert loops[0]["share"] == round(10 / 20, 4) and loops[0]["stalls"] == {"wait": 1.0}
    assert ncu_source.opcode("@!P0 HGMMA.64x128x16.F32 R24") == "HGMMA" and ncu_source.opcode("NOP") == "NOP"
    rec = dict(provenance=dict(triton="3.6.0", device_name="GPU"),
               cells={"fwd 4096 64 0": dict(kernels=[dict(name="ws_fwd", loops=loops,
                                                          sass=[x for x in lines if x["samples"]])])})
    text = ncu_source.table(rec, top=2)
    assert "20 samples on 5 lines" in text and "by opcode: NOP 40.0%, HGMMA 30.0%" in text
    assert "loop 0x10-0x30 (3 lines): 50.0% of samples; wait 100%" in text
    # inside the loop, by opcode: HGMMA 6 of its 10 samples, all of them "wait"
    assert ncu_source.loop_opcodes(lines, 0x10, 0x30) == [
        ("HGMMA", 0.6, [("wait", 0.6)]), ("MUFU", 0.3, [("wait", 0.3)]), ("BRA", 0.1, [("wait", 0.1)])]
    assert "its opcodes (share of its samples; top reasons): HGMMA 60.0% (wait 60.0%), MUFU 30.0%" in text
    with pytest.raises(ValueError):
        ncu_source.read_source("no header here")


def test_fa4_rounds_pairs_each_round_and_says_what_did_not_run():
    """tools/fa4_rounds.py's ratio is peer / ours within the same round (median, min, max), not a ratio of medians,
    and a peer that did not run prints "-" instead of a number."""
    from tools import fa4_rounds
    row = dict(mode="bwd", n=4096, d=64, causal=True,
               impls={"fast": dict(ms=2.0, ms_all=[2.0, 1.0, 4.0]), "fa4": dict(ms=1.8, ms_all=[1.8, 1.1, 3.2]),
                      "sdpa-cudnn": dict(error="RuntimeError: no cuDNN")})
    med, lo, hi = fa4_rounds.ratios(row, "fa4")
    assert (round(med, 6), round(lo, 6), round(hi, 6)) == (0.9, 0.8, 1.1)
    assert fa4_rounds.ratios(row, "sdpa-cudnn") is None
    text = fa4_rounds.line(row)
    assert text.startswith("bwd N=4096 d=64 causal=1: fast 2.000  fa4 1.800  sdpa-cudnn - ms")
    assert "vs fa4 0.900 (0.800-1.100)" in text and text.endswith("vs sdpa-cudnn -")


def test_fa4_rounds_ab_measures_a_switch_against_a_peer_of_the_same_process():
    """--ab: per cell both recordings ran, (ours / peer) with the switch off over (ours / peer) with it on, so a
    machine 10 % slower in the second process moves the peer too and cancels; cells or peers missing on either side
    are left out, and the line gives the pair's geometric mean."""
    from tools import fa4_rounds

    def rec(ours, peer, fa4=None):
        impls = {"fast": dict(ms=ours), "sdpa-cudnn": dict(ms=peer)}
        if fa4:
            impls["fa4"] = dict(ms=fa4)
        return dict(rows=[dict(mode="fwd", n=4096, d=64, causal=False, impls=impls),
                          dict(mode="fwd", n=4096, d=128, causal=True, impls={"fast": dict(error="x")})])
    off, on = rec(1.0, 1.2, fa4=0.9), rec(0.99, 1.32)                  # on: ours 10 % slower machine, 10 % faster
    off["switches"], on["switches"] = {"FLASHVIZ_WS_X": "0"}, {"FLASHVIZ_WS_X": "1"}
    got = fa4_rounds.ab(off, on, "sdpa-cudnn")
    assert [c for c, _ in got] == ["fwd N=4096 d=64 causal=0"]
    assert got[0][1] == pytest.approx((1 / 1.2) / (0.99 / 1.32))
    assert fa4_rounds.ab(off, on, "fa4") == []                         # FA4 ran on one side only
    text = fa4_rounds.ab_text([(off, on)])
    assert text == f"pair 1 against sdpa-cudnn: geomean {got[0][1]:.4f}; fwd N=4096 d=64 causal=0 {got[0][1]:.3f}"
    same = fa4_rounds.ab_text([(off, on), (off, dict(off))])              # OFF ON OFF OFF: the second is no A/B
    assert same.splitlines()[0] == text and same.splitlines()[1].startswith("pair 2: both recordings ran the same")


def test_ncu_pair_takes_the_parked_warps_share_out_of_barrier_stalls():
    """barrier_unparked: a kernel in PARKED loses parked / active warps of its warp cycles per issued instruction
    from its barrier stalls; any other keeps its own; missing metrics give None. PARKED's 3 per CTA is what the
    recorded launches hold: block size minus the warps Gluon's partitions run (consumers of 4, one producer warp)."""
    from tools import ncu_pair

    def k(name, barrier, active, cycles):
        return dict(name=name, stalls=dict(barrier=barrier),
                    details={"Occupancy": {"Achieved Active Warps Per SM (warp)": str(active)},
                             "Warp State Statistics": {"Warp Cycles Per Issued Instruction (cycle)": str(cycles)}})
    assert ncu_pair.barrier_unparked(k("ws_bwd", 4.0, 12.0, 12.0)) == pytest.approx(4.0 - 3 / 12 * 12)
    assert ncu_pair.barrier_unparked(k("peer", 1.5, 9.8, 7.0)) == 1.5
    assert ncu_pair.barrier_unparked(dict(name="ws_bwd", stalls={}, details={})) is None
    text = ncu_pair.table(dict(cells={"c": dict(kernels=[k("ws_bwd", 4.0, 12.0, 12.0), k("peer", 1.5, 9.8, 7.0)])}))
    assert text.splitlines()[-1].split()[-2:] == ["1.000", "1.500"]
    rec = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "assets", "benchmarks", "ncu",
                                      "nvidia-h200-ncu-2026-12-03.json")))
    from flashviz_kernels import ws
    for cell, c in rec["cells"].items():
        for kern in c["kernels"]:
            if kern["name"] in ncu_pair.PARKED:
                warps = int(kern["details"]["Launch Statistics"]["Block Size"]) // 32
                consumers = ws.CONFIGS[(int(cell.split()[2]), cell.split()[3] == "1")][6] \
                    if kern["name"] == "ws_fwd" else 2
                assert warps - (4 * consumers + 1) == ncu_pair.PARKED[kern["name"]], (cell, warps)


def test_fa4_rounds_switch_times_ours_both_ways_in_each_round(monkeypatch):
    """--switch ENV: ours runs as "fast" with ENV=0 and "fast ENV=1" (set only during each call, a bwd runner's saved
    state shared), and the line gives the switch's speed-up round by round (off ms / on ms) before the peers'."""
    from tools import fa4_rounds
    monkeypatch.delenv("FLASHVIZ_WS_X", raising=False)
    seen = []

    def fn():
        seen.append(__import__("os").environ.get("FLASHVIZ_WS_X"))
        return 1
    fn.saved = {}
    on = fa4_rounds.with_env(fn, "FLASHVIZ_WS_X", "1")
    assert on() == 1 and on.saved is fn.saved and seen == ["1"]
    assert "FLASHVIZ_WS_X" not in __import__("os").environ
    assert fa4_rounds.impls("FLASHVIZ_WS_X") == ("fast", "fast FLASHVIZ_WS_X=1", "fa4", "sdpa-cudnn")
    row = dict(mode="fwd", n=4096, d=64, causal=True,
               impls={"fast": dict(ms=2.0, ms_all=[2.0, 2.2, 1.8]), "fast FLASHVIZ_WS_X=1": dict(ms=1.9,
                      ms_all=[1.6, 2.0, 2.0]), "fa4": dict(ms=1.8, ms_all=[1.9, 1.8, 1.9]),
                      "sdpa-cudnn": dict(ms=2.1, ms_all=[2.1, 2.1, 2.1])})
    text = fa4_rounds.line(row)
    assert "speed-up of FLASHVIZ_WS_X=1 over 0 1.100 (0.900-1.250)" in text      # 2/1.6, 2.2/2, 1.8/2
    assert "vs fa4 0.950 (0.818-1.056)" in text                               # against "fast" (ENV=0)


def test_fa4_rounds_switch_takes_two_other_values():
    """--switch ENV=OFF,ON: "fast" runs with ENV=OFF and "fast ENV=ON" with ON (e.g. the consumer warpgroups, 3
    against 2); the line says over which value; a spec without two distinct values, or not FLASHVIZ_, is refused."""
    from tools import fa4_rounds
    assert fa4_rounds.parse_switch("FLASHVIZ_WS_X") == ("FLASHVIZ_WS_X", "0", "1")
    assert fa4_rounds.parse_switch("FLASHVIZ_WS_CONSUMERS=3,2") == ("FLASHVIZ_WS_CONSUMERS", "3", "2")
    assert fa4_rounds.impls("FLASHVIZ_WS_CONSUMERS=3,2") == ("fast", "fast FLASHVIZ_WS_CONSUMERS=2", "fa4",
                                                             "sdpa-cudnn")
    for bad in ("FLASHVIZ_WS_X=3", "FLASHVIZ_WS_X=3,3", "FLASHVIZ_WS_X=1,2,3", "FLASHVIZ_WS_X=,2", "WS_X=0,1"):
        with pytest.raises(ValueError, match="--switch"):
            fa4_rounds.parse_switch(bad)
    row = dict(mode="fwd", n=4096, d=64, causal=True, switch=dict(name="FLASHVIZ_WS_CONSUMERS", off="3", on="2"),
               impls={"fast": dict(ms=2.0, ms_all=[2.0, 2.0]), "fast FLASHVIZ_WS_CONSUMERS=2": dict(ms=1.6,
                      ms_all=[1.6, 2.5])})
    assert "speed-up of FLASHVIZ_WS_CONSUMERS=2 over 3 1.025 (0.800-1.250)" in fa4_rounds.line(row)


def _smi_lines(t0: str, rows) -> str:
    """nvidia-smi loop lines (tools.gpu_clocks.FIELDS) at 100 ms steps from t0 ("YYYY/MM/DD HH:MM:SS")."""
    import datetime
    start = datetime.datetime.strptime(t0, "%Y/%m/%d %H:%M:%S")
    return "".join(f"{(start + datetime.timedelta(milliseconds=100 * k)).strftime('%Y/%m/%d %H:%M:%S.%f')[:-3]}, "
                   f"{mhz}, {w}, {c}, {bits}\n" for k, (mhz, w, c, bits) in enumerate(rows))


def test_gpu_clocks_parses_a_loop_line_and_names_the_reasons():
    """tools.gpu_clocks.parse: the timestamp as unix time, numbers, "[N/A]" as None, the reasons' hex bits; what
    is not a sample (a header, an error) is None."""
    import datetime

    from tools import gpu_clocks
    t, mhz, w, c, bits = gpu_clocks.parse("2026/12/06 16:40:56.250, 1755, 612.48, 61, 0x0000000000000004\n")
    assert t == datetime.datetime(2026, 12, 6, 16, 40, 56, 250000).timestamp()
    assert (mhz, w, c, bits) == (1755.0, 612.48, 61.0, 4)
    assert gpu_clocks.parse("2026/12/06 16:40:56.250, 1980, [N/A], 40, [N/A]")[1:] == (1980.0, None, 40.0, None)
    assert gpu_clocks.parse("timestamp, clocks.current.sm [MHz], power.draw [W], temperature.gpu, x") is None
    assert gpu_clocks.parse('Field "clocks_event_reasons.active" is not a valid field to query.') is None
    from flashviz.bench.rounds_tables import reason_names
    assert reason_names(0x4 | 0x20) == ["power cap", "software thermal"]
    assert reason_names(0) == [] and reason_names(0x10000) == ["0x10000"]


def test_gpu_clocks_sampler_gives_each_window_its_own_samples(tmp_path):
    """Sampler reads a child's loop lines (here a script printing fixed ones) and summary() takes, per window, the
    median of the samples inside it and the OR of their reasons; a window with no sample has None and 0."""
    import datetime
    import sys
    import time

    from tools import gpu_clocks
    rows = [(1980, 500, 50, "0x0")] * 3 + [(1755, 700, 60, "0x4"), (1740, 690, 61, "0x4"), (1800, 680, 62, "0x20")]
    (tmp_path / "smi.txt").write_text("not a sample\n" + _smi_lines("2026/01/02 03:04:05", rows))
    # like nvidia-smi's loop, the child runs until the sampler ends it: wait for its lines (however slow it starts)
    cmd = [sys.executable, "-c", f"import time; print(open({str(tmp_path / 'smi.txt')!r}).read(), end='', "
           "flush=True); time.sleep(600)"]
    with gpu_clocks.Sampler(cmd=cmd) as s:
        while len(s.samples) < 6 and s._proc.poll() is None:
            time.sleep(0.01)
    assert len(s.samples) == 6 and s.error == "not a sample"
    t0 = datetime.datetime(2026, 1, 2, 3, 4, 5).timestamp()
    s.windows = [("fa4", t0 - 0.05, t0 + 0.25), ("fast", t0 + 0.25, t0 + 0.55), ("fast", t0 + 9, t0 + 10)]
    got = s.summary()
    assert got["fa4"] == dict(sm_mhz=[1980.0], power_w=[500.0], temp_c=[50.0], reasons=[0], samples=[3])
    assert got["fast"] == dict(sm_mhz=[1755.0, None], power_w=[690.0, None], temp_c=[61.0, None],
                               reasons=[0x24, 0], samples=[3, 0])


def test_gpu_clocks_without_nvidia_smi_says_why_and_times_on():
    from tools import gpu_clocks
    with gpu_clocks.Sampler(cmd=["/nonexistent/nvidia-smi"]) as s:
        with s.window("fast"):
            pass
    assert "nvidia-smi" in s.error and s.summary()["fast"]["sm_mhz"] == [None]


def test_fa4_rounds_line_adds_each_impls_median_clock():
    """--clocks: line() ends with each impl's median SM clock over its rounds (rounds without samples left out)."""
    from tools import fa4_rounds
    row = dict(mode="fwd", n=16384, d=128, causal=False,
               impls={"fast": dict(ms=30.0, ms_all=[30.0, 27.0, 31.0], clocks=dict(sm_mhz=[1700.0, 1980.0, None])),
                      "fa4": dict(ms=26.5, ms_all=[26.5, 26.4, 26.6], clocks=dict(sm_mhz=[1980.0, 1980.0, 1965.0])),
                      "sdpa-cudnn": dict(ms=29.0, ms_all=[29.0, 28.0, 30.0])})
    assert fa4_rounds.line(row).endswith(" | SM MHz fast 1840 fa4 1980")
    del row["impls"]["fast"]["clocks"], row["impls"]["fa4"]["clocks"]
    assert "SM MHz" not in fa4_rounds.line(row)


def test_fa4_rounds_call_timer_keeps_each_rounds_percentiles(monkeypatch):
    """--timer calls: a round's time is the median of its calls (the bench's own per-call timer, faked here with
    known times), and each round's 10th / 50th / 90th percentiles are kept, so a bimodal impl shows as a wide round."""
    from flashviz.bench import measure
    from tools import fa4_rounds
    rounds = iter([[1.0, 2.0, 3.0, 4.0, 5.0], [10.0, 10.0, 30.0]])
    seen = []
    monkeypatch.setattr(measure, "time_calls", lambda fn, device, warmup_ms, rep_ms, min_reps, est_ms:
                        seen.append((device, rep_ms)) or next(rounds))
    q = []
    assert fa4_rounds.call_bench(lambda: None, 300.0, q) == 3.0
    assert fa4_rounds.call_bench(lambda: None, 300.0, q) == 10.0
    assert seen == [("cuda", 300.0)] * 2
    assert q == [[1.4, 3.0, 4.6], [10.0, 10.0, 26.0]]


def test_fa4_rounds_drops_the_warm_rounds_everywhere():
    """--warm-rounds: the first rounds' times, call percentiles and clock samples are dropped for every run (a run
    that raised keeps its error), so a board that idled while the cell compiled does not favour whoever ran first."""
    from tools import fa4_rounds
    times = {"fast": [1.0, 2.0, 3.0], "fa4": "RuntimeError: boom", "sdpa-cudnn": [4.0, 5.0, 6.0]}
    quantiles = {"fast": [[0.9, 1.0, 1.1], [1.9, 2.0, 2.1], [2.9, 3.0, 3.1]], "sdpa-cudnn": []}
    clocks = {"fast": dict(sm_mhz=[1815.0, 1560.0, 1545.0], power_w=[248.0, 698.0, 699.0], reasons=[4, 4, 4],
                           samples=[20, 20, 21])}
    fa4_rounds.drop_warm(times, quantiles, clocks, 1)
    assert times == {"fast": [2.0, 3.0], "fa4": "RuntimeError: boom", "sdpa-cudnn": [5.0, 6.0]}
    assert quantiles == {"fast": [[1.9, 2.0, 2.1], [2.9, 3.0, 3.1]], "sdpa-cudnn": []}
    assert clocks == {"fast": dict(sm_mhz=[1560.0, 1545.0], power_w=[698.0, 699.0], reasons=[4, 4], samples=[20, 21])}
    fa4_rounds.drop_warm(times, quantiles, clocks, 0)
    assert times["fast"] == [2.0, 3.0] and clocks["fast"]["sm_mhz"] == [1560.0, 1545.0]


@pytest.mark.parametrize("argv", [["--warm-rounds", "-1"], ["--rounds", "0"]])
def test_fa4_rounds_refuses_rounds_it_cannot_time(monkeypatch, capsys, argv):
    """A negative warm-up or no counted round is refused before anything is timed (argparse's exit 2)."""
    from tools import fa4_rounds
    monkeypatch.setattr("sys.argv", ["fa4_rounds", *argv])
    with pytest.raises(SystemExit) as e:
        fa4_rounds.main()
    assert e.value.code == 2 and "--warm-rounds 0 or more" in capsys.readouterr().err
