"""The CuPy backend's CUDA source compiles with NVRTC (no GPU needed to compile)."""

from __future__ import annotations

import pytest
from pixtreme.infer.example._cupy_backend import _UPSCALE_SOURCE


def test_upscale_kernel_compiles_with_nvrtc() -> None:
    try:
        from cupy_backends.cuda.libs import nvrtc

        program = nvrtc.createProgram(_UPSCALE_SOURCE, "upscale_x2.cu", [], [])
    except Exception as error:  # the NVRTC library ships with CuPy's CUDA toolkit extra
        pytest.skip(f"needs NVRTC through CuPy: {type(error).__name__}: {error}")
    try:
        nvrtc.compileProgram(program, ["-arch=compute_80"])
    except Exception as error:
        pytest.fail(f"NVRTC rejected the kernel: {error}\n{nvrtc.getProgramLog(program)}")
    ptx = nvrtc.getPTX(program)
    assert b".entry upscale_x2" in (ptx if isinstance(ptx, bytes) else ptx.encode())
