#!/usr/bin/env bash
# Every GPU check of the workspace in one run on an NVIDIA GPU machine.
#
# Usage:
#   bash tools/device-check.sh --fetch       # with network: fill .whl/ and .gl/ and print what to
#                                            # copy to the GPU machine (--fetch-wheels: wheels only)
#   bash tools/device-check.sh               # on the GPU machine: every check, results in $OUT
#   PYTHON=.venv/bin/python bash tools/device-check.sh --dry-run
#                                            # here: the same steps; CUDA steps skip with reasons
#
# --fetch downloads, for CPython 3.12 on manylinux x86_64, the wheels the device image lacks or
# holds at another version (pinned to what .venv has): pixtreme (repacked without its two bundled
# CJK font files, which no check uses, to fit the 64 MiB transfer), pydantic, pydantic-core,
# annotated-types, typing-inspection, typing-extensions, wgpu, cffi, pycparser, rendercanvas and
# pillow (parity is judged against the same Pillow as here), and pyvips with pyvips-binary (the
# benchmark's CPU lane); into .whl/pillow-rs/ the benchmark's peer, pillow-rs, with the numpy it
# needs (installed into a venv of its own there, as pillow-rs replaces PIL). It replaces every
# *.whl in .whl/ and .whl/pillow-rs/, downloads the Vulkan loader debs into .gl/ (the device
# README's recipe), adds /.whl/ and /.gl/ to .git/info/exclude and prints the transfer size and
# what to run on the GPU machine.
#
# The GPU machine needs no network: copy the working tree with .whl/ and .gl/ to it, run
# `bash tools/device-check.sh` there (allow about 10 minutes), and copy $OUT back.
#
# On the GPU machine the run installs .whl/*.whl into $DEVICE_SITE (default /tmp/device-check-site),
# unpacks .gl/*.deb when no libvulkan is present, then runs, most important first, each step under
# its own cap and all of them within DEVICE_CHECK_BUDGET_S (default 540 s; a step that cannot get
# 20 s is skipped and reported):
#   1. pixtreme-infer       pytest -m 'gpu and not performance'        -> infer-gpu.log
#   2. pixtreme-arch-example pytest -m gpu (TensorRT cases skip)       -> example-gpu.log
#   3. pillow-gpu           Vulkan adapter, then the parity suite      -> pillow-gpu-parity.log
#                           (cap DEVICE_CHECK_PARITY_CAP_S, default 380 s)
#   4. pillow-gpu bench     the issue's H200 cases (--cases), with     -> performance.log,
#                           the pillow-rs lane (.whl/pillow-rs/)          pillow-gpu-bench.json/.md
#   5. executor_profile.py  where the executor's time goes             -> performance.log,
#                                                                         executor-profile.json
#  5b. pillow_gpu.bench.files photos, with and without worker decoding -> performance.log,
#                                                                         files-bench.json/.md
#  5c. the same with 24 MP photos (6000x4000) and a full-size blur      -> performance.log,
#                                                                         files-bench-24mp.json/.md
#   6. pixtreme-infer       pytest -m 'gpu and performance' -s         -> performance.log
#   7. cuda_graph_bench.py  copy/replay table and JSON                 -> performance.log,
#                                                                         cuda_graph_bench.json
# and writes summary.txt (machine, each step's status and time, the figures). That is at most
# 13 files under $OUT (without $OUT: out/device-check/). Exit status 1 when any step failed or a
# GPU step ran on a CPU adapter; 0 otherwise (--dry-run: skips are expected, not failures).
#
# DEVICE_CHECK_ONLY=pillow-gpu-bench,executor-profile,files-bench,files-bench-24mp (step names as
# the summary prints them, comma-separated) runs only those steps, for a session with little
# device time; the others are reported as not selected.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

cd "$(dirname "$0")/.."
root=$PWD
mode=run
case "${1:-}" in
    -h | --help) usage; exit 0 ;;
    --fetch) mode=fetch ;;
    --fetch-wheels) mode=fetch-wheels ;;
    --dry-run) mode=dry-run ;;
    "") ;;
    *) echo "device-check.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac

# ---------------------------------------------------------------------------------------------
# --fetch (development machine)

# Distributions carried as wheels, with the version used when .venv does not have them.
wheel_specs=(
    pixtreme=1.8.0 pydantic=2.14.4 pydantic-core=2.50.5 annotated-types=0.8.0
    typing-inspection=0.4.5 typing-extensions=4.16.0 wgpu=0.31.1 cffi=2.1.1 pycparser=3.12
    rendercanvas=2.7.2 pillow=13.0.0 pyvips=2.1.0 pyvips-binary=8.18.7
)
# The benchmark's peer lane, at the lane's PILLOW_RS_VERSION: pillow-rs replaces PIL, so its
# wheels (with the numpy it needs) go to .whl/pillow-rs/, installed into a venv of their own on
# the GPU machine, never beside Pillow.
peer_specs=(
    "pillow-rs=$(sed -n 's/^PILLOW_RS_VERSION = "\(.*\)"$/\1/p' \
        packages/pillow-gpu/src/pillow_gpu/bench/_pillow_rs.py)"
    numpy=2.5.5
)
gl_debs=(libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
run_timeout_s=590

exclude() {
    mkdir -p .git/info
    grep -qxF "$1" .git/info/exclude 2>/dev/null || echo "$1" >>.git/info/exclude
}

# pinned SPEC...: each name==version, the version .venv has where it has the distribution.
pinned() {
    local venv=.venv/bin/python item name fallback version
    for item in "$@"; do
        name=${item%%=*}
        fallback=${item#*=}
        version=$fallback
        if [[ -x $venv ]]; then
            version=$("$venv" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' \
                "$name" 2>/dev/null) || version=$fallback
        fi
        echo "$name==$version"
    done
}

# download DIR SPEC...: CPython 3.12 manylinux x86_64 wheels, without dependencies.
download() {
    local dir=$1 platforms=()
    shift
    for tag in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 \
        manylinux2014_x86_64 manylinux1_x86_64; do
        platforms+=(--platform "$tag")
    done
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp "${platforms[@]}" -d "$dir" "$@"
}

fetch_wheels() {
    local specs=()
    mapfile -t specs < <(pinned "${wheel_specs[@]}")
    exclude /.whl/
    mkdir -p .whl/pillow-rs
    rm -f .whl/*.whl .whl/pillow-rs/*.whl
    download .whl "${specs[@]}" || return 1
    mapfile -t specs < <(pinned "${peer_specs[@]}")
    download .whl/pillow-rs "${specs[@]}" || return 1
    # pixtreme without data/fonts/*.otf (59 MB unpacked; font paths are resolved lazily).
    python3 - .whl/pixtreme-*.whl <<'EOF' || return 1
import sys
import zipfile
from pathlib import Path

wheel = Path(sys.argv[1])
slim = wheel.with_suffix(".slim")
dropped = 0
with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(slim, "w", zipfile.ZIP_DEFLATED) as target:
    for info in source.infolist():
        if info.filename.startswith("pixtreme/data/fonts/") and info.filename.endswith(".otf"):
            dropped += info.file_size
            continue
        data = source.read(info)
        if info.filename.endswith(".dist-info/RECORD"):
            lines = data.decode().splitlines(keepends=True)
            data = "".join(
                line for line in lines
                if not (line.startswith("pixtreme/data/fonts/") and ".otf," in line)
            ).encode()
        target.writestr(info, data)
slim.replace(wheel)
print(f"{wheel.name}: dropped {dropped / 1e6:.1f} MB of bundled fonts")
EOF
    ls -l .whl .whl/pillow-rs
}

fetch_gl() {
    exclude /.gl/
    mkdir -p .gl /tmp/amd64/partial
    local o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
    apt-get "${o[@]}" update >/dev/null || return 1
    (cd .gl && apt-get "${o[@]}" download "${gl_debs[@]}") || return 1
    ls -l .gl
}

print_run_call() {
    local tracked untracked carried
    tracked=$(git ls-files -z | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
    untracked=$(git ls-files -z --others --exclude-standard | du -cb --files0-from=- 2>/dev/null \
        | tail -1 | cut -f1)
    carried=$(du -cb .whl .gl 2>/dev/null | tail -1 | cut -f1)
    echo
    echo "Transfer: tree $(((${tracked:-0} + ${untracked:-0}) / 1048576)) MiB +" \
        "carried $((${carried:-0} / 1048576)) MiB (limit 64 MiB)"
    echo "On the GPU machine: copy this working tree with .whl/ and .gl/, then run"
    echo "  OUT=<results folder> bash tools/device-check.sh"
    echo "It stops itself within $((run_timeout_s / 60)) minutes; read <results folder>/summary.txt" \
        "first, then record the figures as tools/README.md describes."
}

if [[ $mode == fetch-wheels ]]; then
    fetch_wheels
    exit $?
fi
if [[ $mode == fetch ]]; then
    fetch_wheels || { echo "device-check.sh: downloading wheels failed" >&2; exit 1; }
    fetch_gl || { echo "device-check.sh: downloading the Vulkan loader debs failed" >&2; exit 1; }
    print_run_call
    exit 0
fi

# ---------------------------------------------------------------------------------------------
# The run (device machine, or --dry-run here)

out=${OUT:-$root/out/device-check}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
budget=${DEVICE_CHECK_BUDGET_S:-540}
summary=$out/summary.txt
performance=$out/performance.log
: >"$summary"
: >"$performance"
failed=0
note() { echo "$*" | tee -a "$summary"; }

# Dependencies and the Vulkan loader (not in --dry-run: .venv has everything here).
if [[ $mode == run ]]; then
    if compgen -G ".whl/*.whl" >/dev/null; then
        site=${DEVICE_SITE:-/tmp/device-check-site}
        if "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
            --upgrade --target "$site" .whl/*.whl >"$out/pip.tmp" 2>&1; then
            export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
        else
            note "wheel install: FAILED"; cat "$out/pip.tmp" >>"$summary"; failed=1
        fi
        rm -f "$out/pip.tmp"
    else
        note "no .whl/ carried: run 'bash tools/device-check.sh --fetch' here first"
    fi
    if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; then
        if [[ ! -d /usr/local/nvidia || $(id -u) -ne 0 ]]; then
            note "no libvulkan: .gl/*.deb are unpacked into / only on the device machine (root)"
        elif compgen -G ".gl/*.deb" >/dev/null; then
            for deb in .gl/*.deb; do dpkg -x "$deb" /; done
            ldconfig
        else
            note "no libvulkan and no .gl/ carried: pillow-gpu will find no Vulkan adapter"
        fi
    fi
    icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    [[ -z "${VK_DRIVER_FILES:-}" && -f $icd ]] && export VK_DRIVER_FILES=$icd
    egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
    [[ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" && -f $egl ]] &&
        export __EGL_VENDOR_LIBRARY_FILENAMES=$egl
fi
src=$root/packages
export PYTHONPATH=$src/pixtreme-infer/src:$src/pixtreme-arch-example/src:$src/pillow-gpu/src${PYTHONPATH:+:$PYTHONPATH}

# The machine and the versions the checks ran with.
{
    echo "# device-check $(date -u +%Y-%m-%dT%H:%M:%SZ) mode=$mode python=$python"
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
            --format=csv,noheader 2>&1 | head -2
    else
        echo "nvidia-smi: not on PATH"
    fi
    timeout 60 "$python" - <<'EOF'
import importlib
import importlib.metadata as metadata
import platform

print("python", platform.python_version(), platform.machine())
found = []
for dist in ("cupy-cuda13x", "cupy-cuda12x", "pixtreme", "pydantic", "numpy", "pillow", "wgpu",
             "pytest", "onnxruntime", "nvidia-ml-py"):
    try:
        found.append(f"{dist} {metadata.version(dist)}")
    except metadata.PackageNotFoundError:
        pass
print("packages:", ", ".join(found))
try:
    cupy = importlib.import_module("cupy")
    runtime = cupy.cuda.runtime
    props = runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"cuda device 0: {name}, cc {props['major']}.{props['minor']}, "
          f"driver {runtime.driverGetVersion()}, runtime {runtime.runtimeGetVersion()}")
except Exception as error:  # reported, and the CUDA steps skip with their own reasons
    print(f"cuda: unavailable ({type(error).__name__}: {error})")
EOF
} >>"$summary" 2>&1
cat "$summary"

remaining() { echo $((budget - SECONDS)); }

# selected NAME: whether DEVICE_CHECK_ONLY (if set) names step NAME.
selected() { [[ -z ${DEVICE_CHECK_ONLY:-} || ",$DEVICE_CHECK_ONLY," == *",$1,"* ]]; }

# pillow_rs_venv: print the path of a venv holding .whl/pillow-rs/ (pillow-rs and its numpy),
# made afresh; pillow-rs replaces PIL, so it never goes beside Pillow in $DEVICE_SITE. Fails,
# with the reason in the summary, where nothing was carried or the venv cannot be made.
pillow_rs_venv() {
    local venv=${DEVICE_PILLOW_RS_VENV:-/tmp/device-check-pillow-rs} purelib log=$out/venv.tmp
    if ! compgen -G ".whl/pillow-rs/*.whl" >/dev/null; then
        note "pillow-rs lane: no .whl/pillow-rs/ carried (run 'bash tools/device-check.sh" \
            "--fetch' here first)" >&2
        return 1
    fi
    # pip installs the carried wheels where the interpreter has it (the GPU machine), else uv.
    local install=("$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir
        --target)
    if ! "$python" -m pip --version >/dev/null 2>&1 && command -v uv >/dev/null; then
        install=(uv pip install -q --offline --no-index --no-deps --python "$venv/bin/python"
            --target)
    fi
    if "$python" -m venv --clear --without-pip "$venv" >"$log" 2>&1 &&
        purelib=$("$venv/bin/python" -E -c 'import sysconfig; print(sysconfig.get_path("purelib"))' \
            2>>"$log") &&
        "${install[@]}" "$purelib" .whl/pillow-rs/*.whl >>"$log" 2>&1; then
        note "pillow-rs lane: venv $venv ($(ls .whl/pillow-rs | tr '\n' ' '))" >&2
        rm -f "$log"
        echo "$venv"
        return 0
    fi
    note "pillow-rs lane: making the venv $venv FAILED: $(tail -3 "$log" | tr '\n' ' ')" >&2
    rm -f "$log"
    return 1
}

# step NAME CAP LOG MODE COMMAND...: run under min(CAP, budget left); MODE is new|append.
step() {
    local name=$1 cap=$2 log=$3 how=$4
    shift 4
    local left limit status started
    if ! selected "$name"; then
        note "$name: not selected (DEVICE_CHECK_ONLY=$DEVICE_CHECK_ONLY)"
        return 0
    fi
    left=$(remaining)
    limit=$((cap < left - 5 ? cap : left - 5))
    if ((limit < 20)); then
        note "$name: SKIPPED (device-check budget of ${budget}s used up)"
        failed=1
        return 0
    fi
    echo "=== $name (cap ${limit}s): $*"
    [[ $how == new ]] && : >"$log"
    echo "=== $name: $*" >>"$log"
    local first_line
    first_line=$(($(wc -l <"$log") + 1))
    started=$SECONDS
    timeout --kill-after=10 "$limit" "$@" >>"$log" 2>&1
    status=$?
    local verdict="exit $status"
    ((status == 124 || status == 137)) && verdict="TIMED OUT after ${limit}s"
    note "$name: $verdict ($((SECONDS - started))s)"
    # This step's pytest counts line, if it ran pytest.
    tail -n "+$first_line" "$log" \
        | grep -E '(passed|failed|skipped|errors?|deselected|no tests ran)[^=]* in [0-9.]+s' \
        | tail -1 | sed -E 's/^=+ //; s/ =+$//; s/^/    /' | tee -a "$summary"
    ((status == 0)) || failed=1
    return 0
}

pytest_args=(-m pytest -p no:cacheprovider --continue-on-collection-errors
    -W "always::DeprecationWarning" -W "always::PendingDeprecationWarning")

# 1. pixtreme-infer: CUDA Graph components, Frame boundary, NVML telemetry.
step pixtreme-infer-gpu 120 "$out/infer-gpu.log" new "$python" "${pytest_args[@]}" \
    packages/pixtreme-infer/tests -m 'gpu and not performance' -rA

# 2. pixtreme-arch-example: CuPy backend, instances, CUDA Graph paths, published evidence.
step pixtreme-arch-example-gpu 150 "$out/example-gpu.log" new "$python" "${pytest_args[@]}" \
    packages/pixtreme-arch-example/tests -m gpu -rA

# 3. pillow-gpu: which adapter wgpu picks (must be the GPU, not a CPU rasterizer), then parity.
parity_log=$out/pillow-gpu-parity.log
timeout 60 "$python" - >"$parity_log" 2>&1 <<'EOF'
import json

import wgpu

adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
print("wgpu adapter:", json.dumps(dict(adapter.info), sort_keys=True, default=str))
EOF
adapter=$(grep -m1 '^wgpu adapter:' "$parity_log" || echo "wgpu adapter: none ($(tail -1 "$parity_log"))")
note "$adapter"
if [[ $adapter == *'"adapter_type": "CPU"'* || $adapter == *'none ('* ]]; then
    if [[ $mode == run ]]; then
        note "pillow-gpu: the parity suite below did not run on the GPU (see the adapter above)"
        failed=1
    fi
fi
# The suite needs about 360 s on the H200 machine (2026-12-04: 150 s reached 54 %, 300 s 84 %).
step pillow-gpu-parity "${DEVICE_CHECK_PARITY_CAP_S:-380}" "$parity_log" append "$python" "${pytest_args[@]}" \
    packages/pillow-gpu/tests/gpu -q -rfEs

# 4. pillow-gpu's benchmark, short form (the module may not exist yet in this checkout).
bench_help=$(timeout 60 "$python" -m pillow_gpu.bench --help 2>&1)
if [[ $? -ne 0 ]]; then
    note "pillow-gpu-bench: SKIPPED (python -m pillow_gpu.bench is not usable here:" \
        "$(echo "$bench_help" | tail -1))"
else
    bench_args=()
    # the issue's H200 targets: invert -> MedianFilter(3) RGB 1024^2 x64 and L 256^2 x64, with
    # the peer (pillow-rs), reference and transfer-bound lanes beside ours
    if [[ $bench_help == *--pillow-rs-venv* ]] && selected pillow-gpu-bench; then
        peer_venv=$(pillow_rs_venv) && bench_args+=(--pillow-rs-venv "$peer_venv")
    fi
    if [[ $bench_help == *--cases* ]]; then
        bench_args+=(--cases=invert_median3:RGB:1024:64,invert_median3:L:256:64,chops_invert:L:256:64
            --repeats=3 --sweep-max-jobs=)
    elif [[ $bench_help == *--quick* ]]; then
        bench_args+=(--quick)
    fi
    [[ $bench_help == *--no-plot* ]] && bench_args+=(--no-plot)
    [[ $bench_help == *--output* ]] && bench_args+=(--output "$out/pillow-gpu-bench")
    [[ $bench_help == *--quick* || $bench_help == *--cases* ]] ||
        note "pillow-gpu-bench: no --cases or --quick option; full default run"
    step pillow-gpu-bench 210 "$performance" append "$python" -m pillow_gpu.bench "${bench_args[@]}"
fi

# 5. Where the executor's time goes on this host: back-to-back windows, windows after an idle
#    gap, and a cProfile of the driving thread (tools/executor_profile.py).
step executor-profile 90 "$performance" append "$python" tools/executor_profile.py \
    --seconds 2 --output "$out/executor-profile"

# 5b. Photos through the executor with and without worker decoding, beside Pillow on one and on
#     every core (pillow_gpu.bench.files; every lane's bytes checked against Pillow's).
step files-bench 90 "$performance" append "$python" -m pillow_gpu.bench.files \
    --files 48 --repeats 3 --output "$out/files-bench"

# 5c. Camera-sized photos (24 MP) blurred at full size before the thumbnail: the GPU route for
#     images past 4096 x 4096 (lavapipe, 2 cores: docs/bench-files-24mp-lavapipe-2core.md).
step files-bench-24mp 120 "$performance" append "$python" -m pillow_gpu.bench.files \
    --size 6000x4000 --files 4 --repeats 2 \
    --chain exif_transpose,gaussian_blur:1,thumbnail:1600x1600 --output "$out/files-bench-24mp"

# 6. pixtreme-infer performance cases (median and p90, no thresholds).
step pixtreme-infer-performance 90 "$performance" append "$python" "${pytest_args[@]}" \
    packages/pixtreme-infer/tests -m 'gpu and performance' -s -rA

# 7. The CUDA Graph benchmark: table and JSON (needs a CUDA GPU; without one, said so).
probe='import cupy; assert cupy.cuda.runtime.getDeviceCount() > 0'
if gpu_probe=$(timeout 60 "$python" -c "$probe" 2>&1); then
    gpu_reason=""
else
    gpu_reason=$(echo "$gpu_probe" | tail -1)
fi
if [[ -z $gpu_reason || (-n ${DEVICE_CHECK_ONLY:-} && ",$DEVICE_CHECK_ONLY," != *,cuda-graph-bench,*) ]]; then
    step cuda-graph-bench 90 "$performance" append "$python" \
        packages/pixtreme-infer/benchmarks/cuda_graph_bench.py \
        --output "$out/cuda_graph_bench.json"
else
    note "cuda-graph-bench: SKIPPED (no CUDA GPU: $gpu_reason)"
    [[ $mode == run ]] && failed=1
fi

# The figures, for the summary.
{
    echo "--- figures"
    grep -hE '^\[cuda-graph|^target |^replay of |^# ' "$performance" 2>/dev/null
    grep -hE '^(invert|[a-z_0-9]+ (L|RGB|RGBA) )|^    [a-z_-]+: [0-9.]+ img/s' "$performance" \
        2>/dev/null | head -40
    grep -hE '^files benchmark: |^\| (pillow|ours)' "$performance" 2>/dev/null | head -24
} >>"$summary"
echo "=== summary ($out)"
cat "$summary"
ls -l "$out"
exit $failed
