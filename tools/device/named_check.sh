#!/usr/bin/env bash
# NAMED (ws_switches.named_turn_default: PINGPONG's turns through named barriers) on a lent GPU, one call carrying
# .whl/t38 (tools/device/pack.sh triton 3.8.0):
#   export FLASHVIZ_GIT_COMMIT=<full hash>; bash tools/device/named_check.sh [ab] [windows] [suite]
# 1. its switch in same-process rounds over the dense cells (fa4_rounds --switch; FA4 where it is installed; each
#    impl's maxerr against the reference; a wrong turn protocol hangs: cut at 200 s);
# 2. the d = 128 windows with both sides in the same rounds (window_fit --switch);
# 3. the ws forward's GPU files with it forced, dense and variants (windows: HALF's half steps take turns too;
#    cut at 170 s).
# NAMED_ROUNDS, NAMED_WROUNDS, NAMED_SUITE_S: fewer rounds or seconds where the call has less time (5, 6, 170).
# Arguments pick parts (ab, windows, suite; none: all three), so a call with little device time left finishes one.
# Files land in $OUT (named-*.json, wf-named-{0,1}.json); name them assets/benchmarks/tune/<gpu>-... when committed.
set -u
. tools/device/env.sh
fv_parts "ab windows suite" "$@" || exit 2
fv_start .whl/t38 || exit 1
if [[ $FV_PARTS == *" ab "* ]]; then
    timeout 200 python3 -m tools.fa4_rounds --switch FLASHVIZ_WS_NAMED=0,1 --mode fwd --d 64 128 --causal 0 1 \
        --n 4096 16384 --rounds "${NAMED_ROUNDS:-5}" --out "$OUT/named-switch.json" > "$OUT/named-switch.log" 2>&1
    echo "rounds rc $?"; tail -12 "$OUT/named-switch.log"
fi
if [[ $FV_PARTS == *" windows "* ]]; then
    timeout 150 python3 -m tools.window_fit --switch FLASHVIZ_WS_NAMED --d 128 --windows 512 1024 2048 \
        --rounds "${NAMED_WROUNDS:-6}" \
        --out "$OUT/wf-named-0.json" "$OUT/wf-named-1.json" > "$OUT/wf-named.log" 2>&1
    echo "window rc $?"; tail -12 "$OUT/wf-named.log"
fi
if [[ $FV_PARTS == *" suite "* ]]; then
    FLASHVIZ_WS_NAMED=1 FV_SUITE_S=${NAMED_SUITE_S:-170} fv_suite named-ws-gpu tests/kernels/test_ws_gpu.py \
        tests/kernels/test_ws_variants_gpu.py
fi
