# Sourced first by every command sent to the lent GPU machine (the device tool runs it in the checkout's root).
# That machine has torch and triton but not this project installed, nor streamlit/plotly, and no network: this
# makes the checkout importable (`flashviz_kernels` is the folder kernels/) and puts packages carried in the
# ignored folder .whl/ (built by tools/device/pack.sh) first on PYTHONPATH. Functions:
#   fv_triton DIR     a trimmed triton build (DIR/triton-X.tar.xz, with its dist-info) instead of the image's
#   fv_triton_parts DIR  one in two parts (pack.sh's "full" or "split"): /tmp/stash's .aa (fv_stash) + DIR's .ab
#   fv_stash DIR      keep DIR's files in /tmp/stash for the next call (the machine stays warm for 30 s)
#   fv_proton         proton over the carried triton (after fv_triton): /tmp/stash's proton-X.tar.xz (pack.sh proton X,
#                     `fv_stash .whl/protonXY` in the call before), CUPTI from the image's own triton
#   fv_fa4 PART       FlashAttention-4: /tmp/stash's fa4part.* pieces + PART (an xz tar of its unpacked wheels)
#   fv_app DIR        streamlit, plotly and their missing dependencies from DIR/*.whl (the page tests)
#   fv_start DIR      a check script's start: FLASHVIZ_GIT_COMMIT set (fv_need_commit), fv_triton DIR, fv_versions
#   fv_ab VAR LABEL [PAIRS]  a 1 / 0 switch's A/B: tools.fa4_rounds in alternating processes (even pairs: 1 first)
# At most 8 files come back from $OUT (each fv_suite writes 3: .json, .xml, .log): a call that runs more, tars them.
# fv_stash's files live only while the machine stays warm (30 s idle): send the call that reads them right after.
# FA4 under the carried triton 3.8 (its parts and t38 exceed one call's 64 MiB beside the tree): four calls back to
# back, `fv_stash .whl/t38` (carry .whl/t38), `fv_stash .whl/fa4s1`, `fv_stash .whl/fa4s2` (each carrying its
# folder), then `fv_fa4 .whl/fa4b/fa4part.ab && fv_triton /tmp/stash` (carry .whl/fa4b) before the run (done so on
# 2026-12-06; fa4a's 48 MB in one piece beside the tree was refused that day).
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
FV_ROOT=$PWD
mkdir -p /tmp/fv && ln -sfn "$FV_ROOT/kernels" /tmp/fv/flashviz_kernels
export PYTHONPATH="$FV_ROOT:/tmp/fv${PYTHONPATH:+:$PYTHONPATH}"
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"

fv_triton() {
    local tar; tar=$(ls "$1"/triton-*.tar.xz) || return 1
    local v; v=$(basename "$tar" .tar.xz); mkdir -p "/tmp/$v"
    [ -d "/tmp/$v/triton" ] || tar xJf "$tar" -C "/tmp/$v" || return 1
    export PYTHONPATH="/tmp/$v:$PYTHONPATH"
}

fv_stash() { mkdir -p /tmp/stash && cp "$1"/* /tmp/stash/; }

# fv_triton_parts DIR: a full triton build (pack.sh triton X full) from /tmp/stash's first part + DIR's second
fv_triton_parts() {
    local b; b=$(basename "$(ls "$1"/triton-*.tar.xz.ab)" .tar.xz.ab) || return 1
    mkdir -p "/tmp/$b"
    [ -d "/tmp/$b/triton" ] || cat "/tmp/stash/$b.tar.xz.aa" "$1/$b.tar.xz.ab" | xz -dc | tar x -C "/tmp/$b" || return 1
    export PYTHONPATH="/tmp/$b:$PYTHONPATH"
}

fv_proton() {
    local p v cupti
    p=$(ls /tmp/stash/proton-*.tar.xz) || return 1
    v=$(basename "$p" .tar.xz); v=${v#proton-}
    [ -d "/tmp/triton-$v/triton" ] || { echo "fv_proton: fv_triton a triton-$v build first"; return 1; }
    tar xJf "$p" -C "/tmp/triton-$v" || return 1
    cupti=$(env -u PYTHONPATH python3 -c 'import importlib.util, os
print(os.path.dirname(importlib.util.find_spec("triton").origin))') || return 1
    export TRITON_CUPTI_LIB_PATH="$cupti/backends/nvidia/lib/cupti"
}

fv_fa4() {
    mkdir -p /tmp/fa4
    if [ ! -d /tmp/fa4/flash_attn ]; then
        cat /tmp/stash/fa4part.* "$1" | xz -dc | tar x -C /tmp/fa4 || return 1
    fi
    export PYTHONPATH="/tmp/fa4/nvidia_cutlass_dsl/dsl_packages:/tmp/fa4:$PYTHONPATH"
}

fv_app() {
    [ -d /tmp/app/streamlit ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/app \
        "$1"/*.whl || return 1
    export PYTHONPATH="$PYTHONPATH:/tmp/app"
}

fv_versions() {
    python3 - <<'PY'
import importlib.metadata as md, torch, triton
print("torch", torch.__version__, "| triton", triton.__version__, triton.__file__, "| metadata", md.version("triton"))
print("gpu", torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))
for d in ("flash-attn-4", "nvidia-cutlass-dsl", "streamlit", "plotly"):
    try:
        print(d, md.version(d))
    except md.PackageNotFoundError:
        print(d, "-")
PY
}

# fv_need_commit WHO: the recordings' commit must be named (the device copy's git HEAD is the last landed commit)
fv_need_commit() {
    [ -n "${FLASHVIZ_GIT_COMMIT:-}" ] || { echo "$1: export FLASHVIZ_GIT_COMMIT=<this tree's commit> first"; return 1; }
}

# fv_parts "ALLOWED ..." [PART ...]: a check script's parts into FV_PARTS as " a b " (each with a space either
# side, for [[ $FV_PARTS == *" a "* ]]; none given: all ALLOWED); an unknown part says so and returns 1, so the
# script can stop (exit 2) before fv_start unpacks anything
fv_parts() {
    local allowed=$1 p; shift
    FV_PARTS=" ${*:-$allowed} "
    for p in $FV_PARTS; do
        [[ " $allowed " == *" $p "* ]] || { echo "${0##*/}: unknown part $p (${allowed// /, })"; return 1; }
    done
}

# fv_start DIR: fv_need_commit (the calling script), fv_triton DIR, then fv_versions (printed, not required)
fv_start() { fv_need_commit "$0" && fv_triton "$1" || return 1; fv_versions || true; }

# fv_suite LABEL [pytest args]: the GPU tests in parallel over the machine's cores (pytest-xdist is in its image),
# interrupted after FV_SUITE_S seconds; the summary (tools/suite_summary.py) and the junit report go to $OUT.
# --dist load by default: with loadfile, test_ws_bwd_gpu.py's 210 tests sat on one worker and never finished
fv_suite() {
    local label=$1; shift
    fv_need_commit fv_suite || return 1
    python3 -m tools.suite_summary --out "$OUT/$label.json" --junit "$OUT/$label.xml" \
        --timeout-s "${FV_SUITE_S:-420}" -- -m gpu -p no:cacheprovider -q -n "${FV_WORKERS:-12}" --dist "${FV_DIST:-load}" \
        --continue-on-collection-errors "$@" > "$OUT/$label.log" 2>&1
    echo "exit $?" >> "$OUT/$label.log"
    tail -25 "$OUT/$label.log"
}

# fv_ab VAR LABEL [PAIRS]: a switch's A/B in alternating processes, PAIRS times (2), VAR=0 first in odd pairs and
# VAR=1 first in even ones (a machine that drifts through a pair then favours neither side over the pairs): each
# `python -m tools.fa4_rounds $FV_AB_ARGS` (default: --rounds 3 --rep-ms 60 --mode fwd), cut at FV_AB_S seconds
# (90), into $OUT/ab/LABEL-VAR{0,1}-run{1,2..}.json; then `python -m tools.fa4_rounds --ab` over the pairs; then
# packs those files and their logs into $OUT/ab-LABEL.tgz (a call brings back at most 8 files: 3 of 10 came, 12-07)
fv_ab() {
    local var=$1 label=$2 pairs=${3:-2} r e files=()
    mkdir -p "$OUT/ab"
    for r in $(seq 1 "$pairs"); do
        for e in $([ $((r % 2)) = 1 ] && echo 0 1 || echo 1 0); do
            local f="$OUT/ab/$label-$var$e-run$r"
            echo "== $label $var=$e run $r"
            # shellcheck disable=SC2086
            env "$var=$e" timeout "${FV_AB_S:-90}" python3 -m tools.fa4_rounds \
                ${FV_AB_ARGS:---rounds 3 --rep-ms 60 --mode fwd} --out "$f.json" > "$f.log" 2>&1
            echo "rc $?"
        done
        files+=("$OUT/ab/$label-${var}0-run$r.json" "$OUT/ab/$label-${var}1-run$r.json")    # --ab: OFF ON
    done
    python3 -m tools.fa4_rounds --ab "${files[@]}"
    local n names=()                               # exactly this A/B's files (a process cut short writes no json)
    for n in "${files[@]}" "${files[@]/%.json/.log}"; do [ -e "$n" ] && names+=("${n##*/}"); done
    (cd "$OUT/ab" && tar czf "$OUT/ab-$label.tgz" "${names[@]}" && rm -f "${names[@]}")
}
