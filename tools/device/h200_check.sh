#!/usr/bin/env bash
# The H200 check of two triton-3.8-only forward defaults timed on H100s only (2026-12-06): HALF in dense causal
# launches (ws_schedule.HALF_DENSE_TRITONS) and SKIP (ws_switches.SKIP_TRITONS). Calls on a lent nvidia-h200, each
# carrying .whl/t38 (tools/device/pack.sh triton 3.8.0); FA4 is not needed (cuDNN is the A/B's peer):
#   export FLASHVIZ_GIT_COMMIT=<full hash of the committed tree>; bash tools/device/h200_check.sh PART...
# Parts (each useful alone, so a machine that comes late still finishes one): "half" (~4 min with start-up): HALF's
# switch in same-process rounds (the H100 file's command, 5 rounds); "skip" (~6 min): SKIP's A/B in alternating
# processes (fv_ab, 2 pairs); "time": both; "suite" (~8 min): the ws forward's GPU tests at 3.8's defaults. On
# another GPU it stops after unpacking triton: what it would record is about the H200. Files land in $OUT; name them
# assets/benchmarks/tune/nvidia-h200-... (the H100 files' names with h100 -> h200) when they are committed.
set -u
: "${1:?half, skip, time or suite}"
. tools/device/env.sh
fv_parts "half skip time suite" "$@" || exit 2
parts=${FV_PARTS/ time / half skip }
fv_start .whl/t38 || exit 1
gpu=$(python3 -c "import torch; print(torch.cuda.get_device_name(0))")
case "$gpu" in *H200*) ;; *) echo "not an H200 ($gpu): nothing run"; exit 0 ;; esac

if [[ $parts == *" half "* ]]; then
    timeout 200 python3 -m tools.fa4_rounds --switch FLASHVIZ_WS_HALF=0,1 --mode fwd --d 64 128 --causal 1 \
        --n 4096 8192 16384 --rounds 5 --out "$OUT/half-switch-t38.json" > "$OUT/half-switch-t38.log" 2>&1
    echo "half rc $?"; tail -8 "$OUT/half-switch-t38.log"
fi
if [[ $parts == *" skip "* ]]; then
    FV_AB_S=85 FV_AB_ARGS="--rounds 3 --rep-ms 60 --mode fwd --d 64 --n 4096 16384" fv_ab FLASHVIZ_WS_SKIP skip38 2 \
        > "$OUT/skip-ab.txt" 2>&1
    cat "$OUT/skip-ab.txt"                                              # its files: $OUT/ab-skip38.tgz
fi
if [[ $parts == *" suite "* ]]; then
    FV_SUITE_S=${FV_SUITE_S:-480} fv_suite ws-forward-h200-t38 tests/kernels/test_ws_gpu.py \
        tests/kernels/test_ws_variants_gpu.py tests/kernels/test_kernels_gpu.py tests/kernels/test_variants_gpu.py \
        tests/kernels/test_ws_skip.py tests/kernels/test_ws_half.py            # the H100 "ws-half" row's files
fi
