#!/usr/bin/env bash
# The checks CI runs, one step per call, shared by .ci/run and .github/workflows/ci.yml.
#
# Usage: bash tools/ci.sh STEP [TARGET]
#
# Steps:
#   lock                 uv lock --check (the lock matches every pyproject.toml)
#   lint [PACKAGE]       ruff check and ruff format --check (whole repo, or one package)
#   types [PACKAGE]      mypy (strict for pixtreme-infer and pixtreme-arch-example)
#   test [PACKAGE]       pytest for one package's tests/, 'integration' for tests-integration/,
#                        or everything (the README's test command) when no target is given
#   build [PACKAGE]      uv build wheels (+ sdists) into dist/ and check their contents
#
# PACKAGE is one of: pillow-gpu, pixtreme-infer, pixtreme-arch-example.
# Run tools/bootstrap.sh first. pytest's exit code 5 ("no tests collected") is a failure.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
[[ $# -ge 1 ]] || { usage >&2; exit 2; }
[[ "$1" == "-h" || "$1" == "--help" ]] && { usage; exit 0; }

cd "$(dirname "$0")/.."
# uv commands (lock check, build) use the workspace interpreter unless told otherwise.
if [[ -z "${UV_PYTHON:-}" && -x .venv/bin/python ]]; then export UV_PYTHON="$PWD/.venv/bin/python"; fi
step=$1
target=${2:-}
packages=(pillow-gpu pixtreme-infer pixtreme-arch-example)

check_package() {
    local name=$1
    for known in "${packages[@]}"; do [[ "$known" == "$name" ]] && return 0; done
    echo "ci.sh: unknown package '$name'; expected one of: ${packages[*]}" >&2
    exit 2
}

run_mypy() {
    # -p with MYPYPATH maps each src/ folder to module names (pixtreme is a namespace package
    # spread over several src/ folders in this workspace).
    local name=$1
    case $name in
        pillow-gpu) MYPYPATH=packages/pillow-gpu/src uv run --no-sync mypy -p pillow_gpu ;;
        pixtreme-infer) MYPYPATH=packages/pixtreme-infer/src \
            uv run --no-sync mypy --strict -p pixtreme.infer ;;
        pixtreme-arch-example)
            MYPYPATH=packages/pixtreme-arch-example/src:packages/pixtreme-infer/src \
                uv run --no-sync mypy --strict -p pixtreme.infer.example ;;
    esac
}

run_pytest() {
    local status=0
    uv run --no-sync python -m pytest "$@" || status=$?
    if [[ $status -eq 5 ]]; then
        echo "ci.sh: pytest collected no tests for '$*'; every package must have tests" >&2
        exit 1
    fi
    return $status
}

case $step in
    lock)
        uv lock --check
        ;;
    lint)
        if [[ -n "$target" ]]; then check_package "$target"; paths=("packages/$target"); else paths=(.); fi
        uv run --no-sync ruff check "${paths[@]}"
        uv run --no-sync ruff format --check "${paths[@]}"
        ;;
    types)
        if [[ -n "$target" ]]; then check_package "$target"; run_mypy "$target"
        else for name in "${packages[@]}"; do run_mypy "$name"; done; fi
        ;;
    test)
        if [[ -z "$target" ]]; then run_pytest
        elif [[ "$target" == integration ]]; then run_pytest tests-integration
        else check_package "$target"; run_pytest "packages/$target/tests"; fi
        ;;
    build)
        rm -rf dist
        if [[ -n "$target" ]]; then check_package "$target"; uv build --package "$target" --out-dir dist
        else uv build --all-packages --out-dir dist; fi
        uv run --no-sync python tools/check_wheels.py dist
        ;;
    *)
        echo "ci.sh: unknown step '$step'" >&2; usage >&2; exit 2
        ;;
esac
