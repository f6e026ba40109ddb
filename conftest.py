"""Markers shared by every package's tests: gpu, performance, extras(...) and req(id).

`gpu` and `performance` are deselected by default (see pyproject.toml addopts); selected `gpu`
tests skip with the reason when no CUDA GPU is usable. `extras("module", ...)` skips with the
install command when an optional module is absent.
"""

from __future__ import annotations

import functools
import importlib.util
import os

import pytest

# Optional module -> the install command that provides it.
_EXTRA_HINTS = {
    "onnxruntime": "pip install 'pixtreme-infer[ort]'",
    "onnx": "pip install 'pixtreme-infer[ort]'",
    "pynvml": "pip install 'pixtreme-infer[verify]'",
    "tensorrt": "pip install tensorrt-cu13 (from NVIDIA's package index)",
}


@functools.cache
def cuda_gpu_reason() -> str | None:
    """Return why no CUDA GPU is usable here, or None when one is."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) == "":
        return "needs a CUDA GPU: CUDA_VISIBLE_DEVICES is empty"
    try:
        import cupy
    except ImportError as error:
        return f"needs a CUDA GPU through CuPy: cupy does not import ({error})"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:
        return f"needs a CUDA GPU: the CUDA runtime reports {type(error).__name__}: {error}"
    if count < 1:
        return "needs a CUDA GPU: the CUDA runtime reports 0 devices"
    return None


def _missing_modules(names: tuple[str, ...]) -> list[str]:
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            reason = cuda_gpu_reason()
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
        for marker in item.iter_markers("extras"):
            missing = _missing_modules(tuple(marker.args))
            if missing:
                hints = sorted({_EXTRA_HINTS.get(name, f"pip install {name}") for name in missing})
                item.add_marker(
                    pytest.mark.skip(
                        reason=f"needs optional module(s) {', '.join(missing)}: {'; '.join(hints)}"
                    )
                )
        for marker in item.iter_markers("req"):
            if len(marker.args) != 1 or not isinstance(marker.args[0], str):
                raise pytest.UsageError(
                    f"{item.nodeid}: req(id) takes exactly one string id, got {marker.args!r}"
                )


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = []
    try:
        import cupy

        lines.append(f"cupy {cupy.__version__}; CUDA GPU: {cuda_gpu_reason() or 'available'}")
    except ImportError:
        lines.append("cupy: not installed")
    from importlib.metadata import PackageNotFoundError, version

    installed = []
    for dist in ("pillow-gpu", "pixtreme-infer", "pixtreme-arch-example", "pixtreme", "wgpu"):
        try:
            installed.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            installed.append(f"{dist} absent")
    lines.append("distributions: " + ", ".join(installed))
    return lines
