"""CUDA context helpers shared by the CUDA Graph components: lazy CuPy, device, stream, errors.

CuPy is imported only when a component touches the GPU, so importing
``pixtreme.infer.cuda_graph`` never initialises CUDA.
"""

from __future__ import annotations

import importlib
from typing import Any

from pixtreme.infer.errors import InferError

# Stream handles that are not an explicit stream: CuPy's null stream (0), CUDA's legacy default
# stream (cudaStreamLegacy, 1) and the per-thread default stream (cudaStreamPerThread, 2).
_DEFAULT_STREAM_HANDLES = frozenset({0, 1, 2})


class CudaGraphStateError(InferError, RuntimeError, ValueError):
    """A CUDA Graph component is closed, or used on another device or stream than its own.

    It is both a RuntimeError (what 0.15.1 raises for a closed component) and a ValueError
    (what it raises for another device or stream), so either ``except`` keeps working.
    """


def _cupy() -> Any:
    """Return the cupy module, imported on first use."""
    return importlib.import_module("cupy")


def _current_device_id() -> int:
    return int(_cupy().cuda.runtime.getDevice())


def _current_stream() -> Any:
    return _cupy().cuda.get_current_stream()


def _is_default_stream(stream: Any) -> bool:
    return int(stream.ptr) in _DEFAULT_STREAM_HANDLES


def _stream_label(stream: Any) -> str:
    handle = int(stream.ptr)
    if handle == 0:
        return "the null (default) stream"
    if handle == 1:
        return "the legacy default stream"
    if handle == 2:
        return "the per-thread default stream"
    return f"stream 0x{handle:x}"


def _closed_error(component: str, operation: str) -> CudaGraphStateError:
    return CudaGraphStateError(
        why=f"{component} was closed; its graphs, storage and references are released",
        what=f"{operation} was called after close()",
        how=f"open a new {component} (and the module instance that owns it) for further requests",
    )
