#!/usr/bin/env bash
# GPU checks of pixtreme-infer's CUDA Graph components, in one go on a lent NVIDIA machine.
#
# Usage:
#   bash tools/device-check.sh --fetch-wheels   # here, before a device run: fills .whl/
#   bash tools/device-check.sh                  # on the device machine: runs everything
#
# --fetch-wheels (on the development machine, with pip and network access to the registry)
#   downloads the wheels the device machine lacks into .whl/ and ignores that folder in
#   .git/info/exclude: pixtreme (the version in .venv, else 1.8.0), pydantic, pydantic-core,
#   annotated-types and typing-inspection, each at the version installed in .venv. The
#   device machine already has Python 3.12, cupy-cuda13x, numpy, pytest and onnxruntime.
#
# The run (device tool: carry [".whl"], timeout_s about 480) does:
#   1. installs .whl/*.whl into /tmp/site when pixtreme or pydantic is missing;
#   2. records the machine (nvidia-smi, CuPy, driver) in $OUT/machine.txt;
#   3. pytest -m 'gpu and not performance' on packages/pixtreme-infer/tests
#      ($OUT/pytest-gpu.log and $OUT/pytest-gpu.xml);
#   4. pytest -m 'gpu and performance' -s, printing median and p90 ($OUT/pytest-performance.log);
#   5. benchmarks/cuda_graph_bench.py ($OUT/cuda_graph_bench.json and $OUT/bench.log);
#   6. $OUT/summary.txt with each step's exit status.
# It exits non-zero when any step failed. Without $OUT it writes to ./device-out/.
set -uo pipefail

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
    sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
fi

cd "$(dirname "$0")/.."
root=$PWD

fetch_wheels() {
    set -e
    local python=.venv/bin/python
    [[ -x $python ]] || python=python3
    version_of() {
        "$python" -c "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))" "$1" \
            2>/dev/null || echo "$2"
    }
    local specs=(
        "pixtreme==$(version_of pixtreme 1.8.0)"
        "pydantic==$(version_of pydantic 2.12.5)"
        "pydantic-core==$(version_of pydantic-core 2.41.5)"
        "annotated-types==$(version_of annotated-types 0.7.0)"
        "typing-inspection==$(version_of typing-inspection 0.4.2)"
    )
    mkdir -p .whl
    grep -qxF '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >>.git/info/exclude
    local platforms=()
    for tag in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 \
        manylinux2014_x86_64 manylinux1_x86_64; do
        platforms+=(--platform "$tag")
    done
    python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp "${platforms[@]}" -d .whl "${specs[@]}"
    ls -l .whl
    du -sh .whl
}

if [[ "${1:-}" == "--fetch-wheels" ]]; then
    fetch_wheels
    exit $?
fi

out=${OUT:-$root/device-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
summary=$out/summary.txt
: >"$summary"
failed=0

step() {  # step NAME LOG COMMAND... : run, log, record the exit status, keep going
    local name=$1 log=$2
    shift 2
    echo "=== $name: $*"
    "$@" 2>&1 | tee "$log"
    local status=${PIPESTATUS[0]}
    echo "$name: exit $status" >>"$summary"
    [[ $status -eq 0 ]] || failed=1
    return 0
}

# 1. Dependencies the device image lacks, from carried wheels.
if ! "$python" -c "import pixtreme.core, pydantic" >/dev/null 2>&1; then
    if compgen -G ".whl/*.whl" >/dev/null; then
        "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/site .whl/*.whl || { echo "wheel install failed" >>"$summary"; exit 1; }
        export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
    else
        echo "pixtreme/pydantic missing and no .whl/ carried: run --fetch-wheels here first" \
            | tee -a "$summary"
        exit 1
    fi
fi
# The workspace's own sources (namespace packages under pixtreme/infer).
export PYTHONPATH=$root/packages/pixtreme-infer/src:$root/packages/pixtreme-arch-example/src:${PYTHONPATH:-}

# 2. The machine.
{
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
    "$python" - <<'EOF'
import platform
import cupy
import pixtreme
props = cupy.cuda.runtime.getDeviceProperties(0)
print("python", platform.python_version(), "cupy", cupy.__version__, "pixtreme", pixtreme.__version__)
print("device", props["name"], "cc", f"{props['major']}.{props['minor']}",
      "driver", cupy.cuda.runtime.driverGetVersion(), "runtime", cupy.cuda.runtime.runtimeGetVersion())
EOF
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"

tests=packages/pixtreme-infer/tests
# 3. Correctness (gpu, not performance). Other modules' import errors must not hide these.
step pytest-gpu "$out/pytest-gpu.log" "$python" -m pytest "$tests" -p no:cacheprovider \
    -m 'gpu and not performance' --continue-on-collection-errors -rA \
    --junitxml="$out/pytest-gpu.xml"
# 4. Performance cases: print median and p90, no threshold.
step pytest-performance "$out/pytest-performance.log" "$python" -m pytest "$tests" \
    -p no:cacheprovider -m 'gpu and performance' --continue-on-collection-errors -s -rA
# 5. The benchmark table and JSON.
step bench "$out/bench.log" "$python" packages/pixtreme-infer/benchmarks/cuda_graph_bench.py \
    --output "$out/cuda_graph_bench.json"

echo "=== summary"
cat "$summary"
exit $failed
