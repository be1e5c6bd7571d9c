#!/usr/bin/env bash
# Build the ignored .whl/ folders the device calls carry (tools/device/env.sh reads them), on the CPU machine:
#   tools/device/pack.sh triton 3.8.0     .whl/t38/triton-3.8.0.tar.xz (one call: ~46 MB)
#   tools/device/pack.sh triton 3.8.0 split  the same in two parts, .whl/t38s1/*.aa + .whl/t38s2/*.ab (fv_stash,
#                                         then fv_triton_parts): for a tree past ~20 MB, which one call cannot carry,
#                                         and for 3.9.0 (~49 MB: beside a 17.7 MB tree the device refused one call)
#   tools/device/pack.sh triton 3.9.0 full  the same with proton, CUPTI and instrumentation kept (the timeline's
#                                         tests need them), in two parts: .whl/t39f1/*.aa + .whl/t39f2/*.ab
#   tools/device/pack.sh proton 3.8.0     .whl/proton38/proton-3.8.0.tar.xz (~6 MB): proton alone (libproton.so,
#                                         the instrumentation passes) for the trimmed build (fv_proton; window_trace)
#   tools/device/pack.sh fa4              .whl/fa4s1, .whl/fa4s2, .whl/fa4b: three parts (~30, 18, 21 MB), one call
#                                         each, back to back (48 MB beside a 17.7 MB tree was refused on 2026-12-06)
#   tools/device/pack.sh fa4-cpu          .whl/fa4cpu/: FA4 unpacked for this machine's .venv (tools.sass_loops)
#   tools/device/pack.sh app              .whl/app/*.whl: streamlit, plotly and what the device image lacks (~33 MB)
# The triton tarball is the cp312 wheel without the AMD backend (its entry point dropped too), the ptxas it does not
# run for sm_90 (ptxas-blackwell before 3.9, the legacy CUDA 12.9 ptxas from 3.9), nvdisasm, cuobjdump, CUPTI (its
# headers too), FileCheck, proton, instrumentation, the plugin headers and sample plugins, with libtriton.so stripped
# of symbols (3.9.0 packed at -T2 -6 with those two kept: ~53 MB, one call beside a tree of ~13 MB). FA4 is
# flash-attn-4 4.0.0b36 and the wheels its Hopper path imports, unpacked into one tree (PLATFORM.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PIP="${PIP:-$ROOT/.venv/bin/pip} download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

case "${1:-}" in
triton)
    v=${2:?triton version, e.g. 3.8.0}
    full=${3:-}
    $PIP "triton==$v" -d "$TMP"
    python3 -m zipfile -e "$TMP"/triton-"$v"-*.whl "$TMP/x"
    cd "$TMP/x"
    # the ptxas triton does not run for sm_90: from 3.9 it runs its CUDA 13 one (bin/ptxas-blackwell) there too
    unused=ptxas-blackwell
    [ "$(printf '%s\n' 3.9.0 "$v" | sort -V | head -1)" = 3.9.0 ] && unused=ptxas
    [ "$full" = full ] || rm -rf triton/backends/nvidia/lib/cupti* triton/instrumentation triton/_C/libproton.so \
        triton/backends/nvidia/include/cupti* triton/FileCheck      # FileCheck: triton's own lit tests only
    rm -rf triton/backends/amd triton/include triton/plugins \
        "triton/backends/nvidia/bin/$unused" triton/backends/nvidia/bin/nvdisasm \
        triton/backends/nvidia/bin/cuobjdump
    sed -i '/^amd *=/d' "triton-$v.dist-info/entry_points.txt"
    strip --strip-unneeded triton/_C/libtriton.so
    chmod +x triton/backends/nvidia/bin/*
    out="$ROOT/.whl/t$(echo "$v" | cut -d. -f1,2 | tr -d .)"
    # x86 branch filter, one thread, a dictionary that spans libtriton.so: 3.8.0 45.6 MB against -T2 -6's 49.1 MB,
    # so one call carries it beside a tree of ~17.6 MB (about 1.5 minutes here)
    tar cf - triton "triton-$v.dist-info" | xz -T1 --x86 --lzma2=preset=9e,dict=192MiB > "$TMP/triton-$v.tar.xz"
    if [ -z "$full" ]; then
        mkdir -p "$out"
        mv "$TMP/triton-$v.tar.xz" "$out/"
        ls -la "$out"
    else                                 # env.sh: fv_stash "$out"f1 in one call, fv_triton_parts "$out"f2 in the next
        p=f; size=48M
        [ "$full" = full ] || { p=s; size=30M; }     # split: the trimmed build, halves of a call each
        mkdir -p "${out}${p}1" "${out}${p}2"
        (cd "$TMP" && split -b "$size" "triton-$v.tar.xz" "triton-$v.tar.xz.")
        mv "$TMP/triton-$v.tar.xz.aa" "${out}${p}1/"
        mv "$TMP/triton-$v.tar.xz.ab" "${out}${p}2/"
        ls -la "${out}${p}1" "${out}${p}2"
    fi ;;
proton)
    v=${2:?triton version, e.g. 3.8.0}
    $PIP "triton==$v" -d "$TMP"
    python3 -m zipfile -e "$TMP"/triton-"$v"-*.whl "$TMP/x"
    out="$ROOT/.whl/proton$(echo "$v" | cut -d. -f1,2 | tr -d .)"
    mkdir -p "$out"
    (cd "$TMP/x" && tar cf - triton/_C/libproton.so triton/instrumentation | xz -T2 -6 > "$out/proton-$v.tar.xz")
    ls -la "$out" ;;
fa4)
    $PIP flash-attn-4==4.0.0b36 nvidia-cutlass-dsl==4.8.1 nvidia-cutlass-dsl-libs-base==4.8.1 \
        nvidia-cutlass-dsl-libs-core==4.8.1 nvidia-cutlass-dsl-libs-cu13==4.8.1 "apache-tvm-ffi<0.2,>=0.1.11" \
        torch-c-dlpack-ext "quack-kernels>=0.5.3" -d "$TMP"
    for w in "$TMP"/*.whl; do python3 -m zipfile -e "$w" "$TMP/u"; done
    (cd "$TMP/u" && tar cf - . | xz -T2 -6 > "$TMP/fa4.tar.xz")
    (cd "$TMP" && split -b 48M fa4.tar.xz fa4part. && split -b 30M fa4part.aa fa4part.aa.)
    mkdir -p "$ROOT/.whl/fa4s1" "$ROOT/.whl/fa4s2" "$ROOT/.whl/fa4b"
    mv "$TMP/fa4part.aa.aa" "$ROOT/.whl/fa4s1/"
    mv "$TMP/fa4part.aa.ab" "$ROOT/.whl/fa4s2/"
    mv "$TMP/fa4part.ab" "$ROOT/.whl/fa4b/"
    ls -la "$ROOT/.whl/fa4s1" "$ROOT/.whl/fa4s2" "$ROOT/.whl/fa4b" ;;
fa4-cpu)
    # FA4 for this machine's .venv (tools.sass_loops --fa4-python .venv/bin/python --fa4-path .whl/fa4cpu): its wheels
    # for the .venv's Python, CUDA 12 libraries (the CPU build needs only their compiler), cuda-bindings 12, einops
    py=$("$ROOT/.venv/bin/python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    # shellcheck disable=SC2086
    ${PIP/--python-version 3.12/--python-version $py} flash-attn-4==4.0.0b36 nvidia-cutlass-dsl==4.8.1 \
        nvidia-cutlass-dsl-libs-base==4.8.1 nvidia-cutlass-dsl-libs-core==4.8.1 nvidia-cutlass-dsl-libs-cu12==4.8.1 \
        "apache-tvm-ffi<0.2,>=0.1.11" torch-c-dlpack-ext "quack-kernels>=0.5.3" "cuda-bindings>=12,<13" \
        cuda-pathfinder einops -d "$TMP"
    rm -rf "$ROOT/.whl/fa4cpu" && mkdir -p "$ROOT/.whl/fa4cpu"
    for w in "$TMP"/*.whl; do python3 -m zipfile -e "$w" "$ROOT/.whl/fa4cpu"; done
    du -sh "$ROOT/.whl/fa4cpu" ;;
app)
    # streamlit 1.67's and plotly's requirements that the device image (KINDS.md's package list) does not hold
    mkdir -p "$ROOT/.whl/app"
    $PIP -d "$ROOT/.whl/app" streamlit plotly altair pydeck starlette uvicorn python-multipart websockets \
        itsdangerous watchdog jsonschema referencing rpds-py jsonschema-specifications
    ls -la "$ROOT/.whl/app" ;;
*)
    echo "usage: $0 triton VERSION [full] | proton VERSION | fa4 | fa4-cpu | app" >&2
    exit 2 ;;
esac
