#!/usr/bin/env bash
# Issue 32's window target (a causal window of 1024 at N = 16384 within 0.9 of its key-tile bound over dense causal)
# on a lent GPU under the carried triton 3.8 (.whl/t38: tools/device/pack.sh triton 3.8.0); FA4 is not needed:
#   export FLASHVIZ_GIT_COMMIT=<full hash of the committed tree>
#   bash tools/device/window_check.sh fit                 (~3 min)
#   bash tools/device/window_check.sh switches [PASSES]   (~1 min a process, 4 settings a pass, 2 passes; no
#                                                         process starts past FV_WIN_S seconds, 470)
#   bash tools/device/window_check.sh ab VAR [PAIRS]      (one 1 / 0 switch in alternating processes, 3 pairs)
# "fit": tools.window_fit at today's defaults, d 128 and 64, 6 interleaved rounds (the H200's last fit under 3.8
# predates SKIP, LPT and HALF in dense causal). "switches": the import-time ws switches never timed on a window
# (EARLY_RESCALE, SPLIT_BARS, THREAD_ARRIVE: each timed on dense launches only) against none, d = 128, windows 512,
# 1024 and 2048, one process each, the settings' order reversed every other pass (a drifting board then favours
# none); each process times dense causal too, so its shares are against its own dense run (a switch also moves
# dense causal: compare the window's ms across processes as well). "ab": the same for one 1 / 0 switch VAR, its two
# sides in PAIRS pairs of processes (0 first in odd pairs, 1 first in even ones). Files land in $OUT (switches:
# $OUT/win-ab.tgz; ab: $OUT/win-ab-NAME.tgz); commit them as assets/benchmarks/tune/nvidia-h100-window-... (or
# -h200-: the script runs on either)
set -u
stage=${1:?fit, switches or ab}
. tools/device/env.sh
fv_start .whl/t38 || exit 1

# run_fit FILE [VAR=VALUE]: one process of the d = 128 windows' fit into FILE.json (its output in FILE.log), the
# switch set for it alone; the file joins $files where the process wrote it
run_fit() {
    local f=$1; shift
    env "$@" timeout 100 python3 -m tools.window_fit --d 128 --windows 512 1024 2048 --rounds 4 --no-fa4 \
        --out "$f.json" > "$f.log" 2>&1
    echo "rc $?"
    [ -e "$f.json" ] && files+=("$f.json")
}

case "$stage" in
fit)
    timeout 400 python3 -m tools.window_fit --d 128 64 --rounds 6 --no-fa4 --out "$OUT/window-fit-t38.json" \
        > "$OUT/window-fit-t38.log" 2>&1
    echo "fit rc $?"; grep -v "^{" "$OUT/window-fit-t38.log" | tail -20
    ;;
switches)
    mkdir -p "$OUT/win"
    settings=(none FLASHVIZ_WS_EARLY_RESCALE=1 FLASHVIZ_WS_SPLIT_BARS=1 FLASHVIZ_WS_THREAD_ARRIVE=1)
    files=()
    for p in $(seq 1 "${2:-2}"); do
        order=("${settings[@]}")
        [ $((p % 2)) = 0 ] && order=(FLASHVIZ_WS_THREAD_ARRIVE=1 FLASHVIZ_WS_SPLIT_BARS=1 \
            FLASHVIZ_WS_EARLY_RESCALE=1 none)
        for s in "${order[@]}"; do
            [ "$SECONDS" -gt "${FV_WIN_S:-470}" ] && { echo "== $s pass $p not run: ${SECONDS} s gone"; continue; }
            name=$(echo "$s" | sed 's/FLASHVIZ_WS_//; s/=1//' | tr 'A-Z_' 'a-z-')
            f="$OUT/win/window-fit-d128-$name-pass$p-t38"
            echo "== pass $p $s"
            # shellcheck disable=SC2046
            run_fit "$f" $([ "$s" = none ] || echo "$s")
        done
    done
    python3 -m tools.window_fit --shares "${files[@]}"
    (cd "$OUT/win" && tar czf "$OUT/win-ab.tgz" ./* && rm -rf "$OUT/win")
    ;;
ab)
    var=${2:?ab VAR [PAIRS]}; name=$(echo "${var#FLASHVIZ_WS_}" | tr 'A-Z_' 'a-z-')
    mkdir -p "$OUT/win"
    files=()
    for p in $(seq 1 "${3:-3}"); do
        for e in $([ $((p % 2)) = 1 ] && echo 0 1 || echo 1 0); do
            [ "$SECONDS" -gt "${FV_WIN_S:-470}" ] && { echo "== $var=$e pair $p not run: ${SECONDS} s gone"; continue; }
            f="$OUT/win/window-fit-d128-$name$e-pair$p-t38"
            echo "== pair $p $var=$e"
            run_fit "$f" "$var=$e"
        done
    done
    python3 -m tools.window_fit --shares "${files[@]}"
    (cd "$OUT/win" && tar czf "$OUT/win-ab-$name.tgz" ./* && rm -rf "$OUT/win")
    ;;
*) echo "stage is fit, switches or ab, not $stage"; exit 1 ;;
esac
