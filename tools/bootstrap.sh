#!/usr/bin/env bash
# Set up the development environment of this workspace on a fresh machine.
#
# Usage: bash tools/bootstrap.sh [--help]
#
# - installs Mesa lavapipe (software Vulkan) with apt-get when running as root on Debian/Ubuntu
#   and no Vulkan driver is present, so wgpu can run pillow-gpu's compute shaders on CPUs;
# - installs uv with pip when it is missing;
# - finds a Python 3.12 interpreter (UV_PYTHON if set; pyenv's newest 3.12 if pyenv exists;
#   otherwise whatever uv finds or downloads);
# - installs the locked workspace (all three distributions, all extras, dev tools) into .venv;
# - makes .venv-pillow-rs, the benchmark's peer: pillow-rs at the lane's PILLOW_RS_VERSION
#   (pillow_gpu/bench/_pillow_rs.py; pillow-rs replaces PIL, so it never goes into .venv)
#   with .venv's numpy; its parity tests and `pillow-gpu bench
#   --pillow-rs-venv .venv-pillow-rs` use it. Where it cannot be installed (no network) a
#   warning says so and those tests skip with the reason. BOOTSTRAP_PEER=0 leaves it out.
#
# TensorRT's packages (tensorrt-cu13*) stay in the lock and in pixtreme-arch-example's
# metadata but are not installed here: their wheel comes only from NVIDIA's own index. Code
# that needs TensorRT skips with that reason. On an NVIDIA machine with that index configured,
# run `uv sync --locked --all-packages --all-extras` instead to get them.
set -euo pipefail

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
fi

cd "$(dirname "$0")/.."

have_vulkan_driver() {
    compgen -G "/usr/share/vulkan/icd.d/*.json" >/dev/null 2>&1 \
        || compgen -G "/etc/vulkan/icd.d/*.json" >/dev/null 2>&1
}

if ! have_vulkan_driver; then
    if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
        echo "bootstrap: installing Mesa lavapipe (software Vulkan) for wgpu"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            mesa-vulkan-drivers libvulkan1 >/dev/null
    else
        echo "bootstrap: no Vulkan driver found; pillow-gpu needs one (on Debian/Ubuntu:" \
            "sudo apt-get install mesa-vulkan-drivers libvulkan1)" >&2
    fi
fi

if ! command -v uv >/dev/null 2>&1; then
    echo "bootstrap: installing uv with pip"
    python3 -m pip install --quiet uv
    hash -r
    if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
fi

if [[ -z "${UV_PYTHON:-}" ]] && command -v pyenv >/dev/null 2>&1; then
    newest=$(ls "$(pyenv root)/versions" 2>/dev/null | grep -E '^3\.12\.[0-9]+$' | sort -V | tail -n 1 || true)
    if [[ -n "$newest" ]]; then
        export UV_PYTHON="$(pyenv root)/versions/$newest/bin/python3.12"
    fi
fi
if [[ -n "${UV_PYTHON:-}" ]]; then
    echo "bootstrap: using Python at $UV_PYTHON"
fi

uv sync --locked --all-packages --all-extras \
    --no-install-package tensorrt-cu13 \
    --no-install-package tensorrt-cu13-libs \
    --no-install-package tensorrt-cu13-bindings
if [[ "${BOOTSTRAP_PEER:-1}" != 0 && ! -x .venv-pillow-rs/bin/python ]]; then
    numpy_version=$(.venv/bin/python -c 'import numpy; print(numpy.__version__)')
    peer_version=$(sed -n 's/^PILLOW_RS_VERSION = "\(.*\)"$/\1/p' \
        packages/pillow-gpu/src/pillow_gpu/bench/_pillow_rs.py)
    echo "bootstrap: making .venv-pillow-rs (pillow-rs $peer_version, numpy $numpy_version)"
    if ! { uv venv -q -p .venv/bin/python .venv-pillow-rs &&
        uv pip install -q --python .venv-pillow-rs/bin/python "pillow-rs==$peer_version" \
            "numpy==$numpy_version"; }; then
        rm -rf .venv-pillow-rs
        echo "bootstrap: WARNING: could not install pillow-rs into .venv-pillow-rs; the" \
            "pillow-rs parity tests will skip and the benchmark's peer lane reads unavailable" >&2
    fi
fi
echo "bootstrap: ready; run commands with 'uv run --no-sync ...' (a plain 'uv run' would try to install TensorRT)"
