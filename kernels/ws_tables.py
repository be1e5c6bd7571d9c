"""The ws kernel's measured tables: its schedule switches per (d, causal) (CONFIGS) and where impl="fast" sends
work to it (FAST_USES_WS, WINDOW_WS_DIMS with WINDOW_SCHEDULE, ALIBI_WS_DIMS with ALIBI_OVERLAP, DOCS_WS_DIMS),
each next to the H200 runs that set it. kernels/ws.py imports these names and is the one that reads them (tests
patch them there)."""

# (d, causal) -> (block_m, block_n, num_stages, OVERLAP, PINGPONG, PERSISTENT, NC); block_m = NC consumers x 64 rows
# (NC 2 or 3 consumer warpgroups; a test holds block_m == 64 * NC).
# Before 2026-12-01 (the single K/V barrier and the older OVERLAP order): OVERLAP off, 2 stages. Measured
# (`python -m flashviz_kernels.tune_ws --d 128` then `--d 64`, H200, N=8192, B=4,
# H=32, fp16, ms; cuDNN d=128 6.98 / 4.06, d=64 4.84 / 2.55 in the same runs; bn 128 and 2 stages unless said):
#   d=128 non-causal  overlap+pingpong 9.100, overlap only 9.810, pingpong only 7.744, neither 7.757, bn=64 x3 8.142
#   d=128 causal      overlap+pingpong 4.963, overlap only 5.203, pingpong only 4.214, neither 4.132, bn=64 x3 4.148
#   d=64  non-causal  overlap+pingpong x3 5.061, neither 5.011, pingpong only 5.151, neither x3 5.180
#   d=64  causal      overlap+pingpong x3 2.755, neither 2.552, pingpong only 2.697, neither x3 2.679
# (that OVERLAP kept tile j-1's fp32 P live across tile j's Q.K^T issue, 8 B of spills, and with one barrier per
# stage K_{j+2} could load only after P_j.V_j finished; these measurements said it cost more than it won).
# PERSISTENT (grid = the SM count, each program walking query tiles longest first). Timed once against the one-tile
# grid (H200, commit 400f9b0, assets/benchmarks/tune/nvidia-h200-ws-persistent-2026-11-30.json as written by
# `python -m flashviz_kernels.tune_ws --variants default --persistent both --rounds 2
# --groups auto --n 8192 16384 --d 128 64 --causal both`, B=4, H=32, fp16; median of 2 rounds, persistent /
# one-tile ms):  d=128 non-causal N=8192 7.586 / 7.862 (0.965), N=16384 31.06 / 32.41 (0.958);  d=128 causal
# 4.251 / 4.255 (0.999), 17.04 / 16.11 (1.058);  d=64 non-causal 5.006 / 5.189 (0.965), 20.85 / 20.83 (1.001,
# rounds 19.96 and 21.74);  d=64 causal 2.579 / 2.699 (0.956), 10.48 / 10.31 (1.017). Faster by ~4 % at d=128
# without a mask in both cells, mixed elsewhere. Then (commit a9cc937) the whole persistent matrix of
# tests/test_ws_gpu.py passed on the H200 (`pytest -m gpu tests/test_ws_gpu.py -k persistent`: 64 passed, 17 skipped
# as not applying) and a second timing with 3 rounds at d=128 without a mask (same command with --rounds 3 --n 4096
# 8192 16384 --d 128 --causal off; tune/nvidia-h200-ws-persistent-2026-11-30b.json) gave persistent / one-tile
# 1.955 / 2.028 ms (0.964), 7.806 / 8.009 (0.975), 31.23 / 31.26 (0.999): never slower. So PERSISTENT is on at
# d=128 without a mask only; causal and d=64 stay one tile per program (mixed there).
# NC = 3 (192 x block_n tiles) at d=64, timed against NC = 2 (H200, commit 3371e9e,
# assets/benchmarks/tune/nvidia-h200-ws-nc3-2026-12-01.json as written by `python -m flashviz_kernels.tune_ws --d 64
# --n 8192 16384 --causal both --variants consumers --persistent config --rounds 2`, B=4, H=32, fp16; median ms of 2
# rounds, NC=3 bn=128 3 stages OVERLAP/PINGPONG off vs NC=2 as configured then; cuDNN in the same run):
#   non-causal N=8192 4.491 vs 5.157 (0.871; cuDNN 4.895)  N=16384 18.15 vs 20.72 (0.876; cuDNN 19.39)
#   causal     N=8192 2.477 vs 2.692 (0.920; cuDNN 2.558)  N=16384 9.474 vs 10.63 (0.891; cuDNN 10.11)
# 2 stages measured within 1 % of 3 except non-causal 16384 (2.4 % slower); PINGPONG on was faster only at
# non-causal 16384 (1.3 %) and slower in the other three; bn=64 was 5-20 % slower. So d=64: 192 x 128, 3 stages.
# OVERLAP on everywhere since commit 02c62b8 (K and V each with their own ring barriers, FA3's order: O rescaled while
# Q·K_jᵀ runs, P converted right after its softmax; ptxas spills with OVERLAP at d=128: 8 B -> 0). Measured with
# `python -m flashviz_kernels.tune_ws --variants overlap --d 128 64 --n 4096 8192 16384 --causal both
# --persistent both --rounds 2` (H200, tree of commit 02c62b8: the file's git_commit says 935d129 because the device
# read its own stale git metadata; assets/benchmarks/tune/nvidia-h200-ws-overlap-2026-12-01.json;
# B=4, H=32, fp16; median ms of 2 rounds at N = 4096 / 8192 / 16384, x = cuDNN ms / ms in the same run):
#   d=128 non-causal  ov+persistent 1.845 / 7.358 / 29.29 (1.008 / 1.007 / 1.017x)   old CONFIGS (pp+persistent)
#                     1.886 / 7.612 / 31.44 (0.986 / 0.974 / 0.948x); ov+pp+persistent 1.962 / 7.394 / 29.11
#   d=128 causal      ov+pp one tile 1.059 / 3.906 / 14.93 (1.024 / 1.050 / 1.065x)   old CONFIGS (one tile, neither)
#                     1.164 / 4.320 / 16.68 (0.931 / 0.949 / 0.954x); ov+pp persistent 1.191 / 4.200 / 16.51
#   d=64 (NC=3, 3 stages) non-causal ov one tile 1.166 / 4.540 / 17.95 vs old 1.164 / 4.669 / 18.24;
#                     causal ov one tile 0.707 / 2.499 / 9.247 vs old 0.719 / 2.581 / 9.470
#                     (ov+pp 0.703 / 2.571 / 9.442)
# 3 stages (one tile per program only: with two Q buffers d=128 needs 256 KB) were no faster than 2 at d=128.
# At three consumers OVERLAP stays off for persistent and window launches (ws.overlap_default): their 160 registers
# spill with it there (ptxas, triton 3.6: 16 / 308 B persistent non-causal / causal, 8 B a window) and persistent
# NC=3 with it measured mixed in that run (0.96-1.10x the time without). The default d=64 launches are one tile per
# program, and d=64 windows run NC = 2 (WINDOW_SCHEDULE), so this only touches launches the env switches force.
CONFIGS = {
    (64, False): (192, 128, 3, True, False, False, 3), (64, True): (192, 128, 3, True, False, False, 3),
    (128, False): (128, 128, 2, True, False, True, 2), (128, True): (128, 128, 2, True, True, False, 2),
}

# (d, causal) -> the least min(Nq, Nk) from which impl="fast" runs this kernel instead of the tl one: only where it
# measured faster. Measured 2026-11-30 on the H200 (assets/benchmarks/ws/nvidia-h200-ws-2026-11-30.json, commit
# a2b839f, CONFIGS above) with `FLASHVIZ_FAST_TL=1 python -m flashviz.bench --n 4096 8192 16384 --d 128 64 --causal
# both --batch 4 --heads 32 --dtype float16 --impls ws fast sdpa-cudnn --rep-ms 50` (ms, ws / tl fast / cuDNN):
#   d=64  N=4096   non-causal 1.276 / 1.3 / 1.209 causal 0.7172 / 0.7523 / 0.7086
#   d=64  N=8192   non-causal 4.937 / 5.198 / 4.432 causal 2.551 / 2.725 / 2.743
#   d=64  N=16384  non-causal 20.24 / 21.16 / 19.72 causal 10.46 / 10.57 / 10.92
#   d=128 N=4096   non-causal 1.81 / 1.996 / 1.897 causal 1.019 / 1.241 / 1.023
#   d=128 N=8192   non-causal 7.77 / 8.629 / 7.57 causal 4.278 / 4.558 / 4.292
#   d=128 N=16384  non-causal 30.96 / 33.68 / 29.73 causal 16.15 / 17.74 / 16.72
# ws is faster than tl in every cell (1.01-1.22x); d=64 keeps N >= 8192 (1.02-1.05x at 4096 is within the 5-9 %
# that cuDNN's own times moved between two runs that day).
# Below N = 4096 the calls are launch-bound, so the CUDA-graph column (GPU time, bench graph_ms) decides. Two forward
# recordings that timed ws next to the tl fast kernel (assets/benchmarks/nvidia-h200-fwd-2026-11-30.json at commit
# 0c7edb1, and the cut-short one before it at a2b839f), graph_ms, ws / tl / cuDNN:
#   d=128 N=1024  non-causal 0.1512 / 0.1629 / 0.1360 (0.1520 / 0.1622 / 0.1358)  causal 0.1068 / 0.1247 / 0.1078
#                 (0.1066 / 0.1249 / 0.1064);  N=2048 non-causal 0.5534 / 0.5958 / 0.5137 (0.5517 / 0.5944 / 0.5096)
#                 causal 0.3355 / 0.3795 / 0.3320 (0.3324 / 0.3793 / 0.3313)
# ws faster in all 8 at d=128 (1.07-1.17x), so d=128 starts at N = 1024; at d=64 tl was as fast or faster (1024
# non-causal 0.0946 tl vs 0.1022 ws): tl. Below N = 1024 nothing was measured: tl.
# Re-measured with three consumers at d=64 (commit 41fd54d; ws/nvidia-h200-ws-2026-12-01.json, same command):
# ws / tl ms at d=64 N=4096 1.136 / 1.271 non-causal, 0.701 / 0.730 causal; 8192 4.356 / 5.147, 2.473 / 2.726;
# 16384 17.97 / 21.28, 9.443 / 10.55; d=128 ws 1.08-1.12x tl. With three consumers ws is faster at d=64 N=4096
# too (1.04-1.12x tl in this file and in nvidia-h200-fwd-2026-12-01.json), so d=64 starts at 4096 (2026-12-01).
FAST_USES_WS: dict[tuple[int, bool], int] = {(64, False): 4096, (64, True): 4096, (128, False): 1024,
                                             (128, True): 1024}
# Causal sliding windows (window_left) go to ws at these head dims, each launch with WINDOW_SCHEDULE: a window's tiles
# are all about as long (band + edges), so walking them persistently hides each tile's Q load and epilogue under
# the previous tile, and at d=64 a 128-row tile (NC = 2) runs a narrower band edge than a 192-row one. Measured
# (`python -m flashviz_kernels.tune_fast --window 1024 --n 16384 --d 128 64`, H200, B=4, H=32, fp16, commit 4163b66,
# output in assets/benchmarks/tune/nvidia-h200-window-2026-12-01b.txt, ms): d=128 ws 2.578 (persistent, NC = 2;
# one tile per program 2.706), the tl kernel 2.970-3.142 (best tile / its default); d=64 ws 1.581 (persistent,
# NC = 2; persistent NC = 3 1.746, one tile NC = 3 2.013), tl 1.734-1.817. (Before the schedule, at commit ef784c8,
# d=64 windows ran NC = 3 one tile per program, 2.01 ms, slower than tl: they stayed there.)
# With OVERLAP on in CONFIGS (commit b0ba43b, same command, tune/nvidia-h200-window-2026-12-01c.txt, ms): d=128 ws
# 2.400 (OVERLAP off 2.633), tl 3.005-3.173 (best tile / (128, 64, 4, 2)); d=64 ws 1.656 (off 1.691), tl
# 1.579-1.822: tl's best tile (64, 128, 4, 2) was faster this time (1.734 in the run before), its usual tiles not.
WINDOW_WS_DIMS = (64, 128)
# d -> (PERSISTENT, NC) of causal windows and packed documents (DOCS_WS_DIMS); other switches: CONFIGS[(d, causal)]
WINDOW_SCHEDULE = {64: (True, 2), 128: (True, 2)}
# Causal ALiBi goes to ws at these head dims (with the causal CONFIGS schedule; a window's when it has one too).
# `python -m flashviz_kernels.tune_fast --alibi --n 16384 --d 128 64` (H200, B=4, H=32, fp16, commit 1604305,
# assets/benchmarks/tune/nvidia-h200-alibi-2026-12-01.txt, ms): d=128 ws 17.88 vs the tl kernel's 19.22-19.77
# (best tile / its default); d=64 ws 10.94 vs 12.37-13.54. Dense causal on ws took 16.22 / 9.41 in the same run.
ALIBI_WS_DIMS: tuple[int, ...] = (64, 128)
# d -> OVERLAP of ALiBi launches (other switches: CONFIGS[(d, True)]). With OVERLAP on in CONFIGS (2026-12-01,
# commit b0ba43b) `python -m flashviz_kernels.tune_fast --alibi --n 16384 --d 128 64` timed (H200, ms,
# assets/benchmarks/tune/nvidia-h200-alibi-2026-12-01b.txt): d=128 OVERLAP on 16.98 / off 18.16 (tl best 19.58);
# d=64 on 11.78 / off 11.00 (tl best 12.65). At NC = 3's 160 registers, ALiBi with OVERLAP spills (ptxas, triton
# 3.6: 104 B stores / 88 B loads; none without OVERLAP, none at d=128's 240).
ALIBI_OVERLAP = {64: False, 128: True}
# Packed documents (seq_ids) go to ws at these head dims, with WINDOW_SCHEDULE too (like a window's, every query
# tile runs about as many key tiles: its document's; the host's tables give each query tile its key tiles and each
# row its keys). `python -m flashviz_kernels.tune_fast --docs --n 16384 --d 128 64` and `--n 4096` (H200, B=4,
# H=32, fp16, causal, documents of N/4, N/8, N/2 and the rest as the variants bench; commit 4e04284,
# assets/benchmarks/tune/nvidia-h200-docs-2026-12-01.txt; ms at N = 16384 / 4096):
#   d=128  tl as dispatched 6.569 / 0.576 (its best tile 6.568 / 0.536);  ws CONFIGS (one tile) 5.710 / 0.479;
#          ws persistent NC = 2 5.555 / 0.390  -> 1.18x / 1.48x the tl kernel
#   d=64   tl as dispatched 3.909 / 0.358 (best tile 3.792 / 0.308);  ws CONFIGS (NC = 3, one tile) 3.803 / 0.546;
#          ws persistent NC = 2 3.782 / 0.384;  one tile NC = 2 3.818 / 0.352  -> not faster than tl's best
# So d=128 only (d=64 documents stay on the tl kernel).
DOCS_WS_DIMS: tuple[int, ...] = (128,)
