"""Views of mapped buffers, without rebuilding the ctypes type wgpu-py makes for each view.

wgpu-py's ``read_mapped(copy=False)`` views mapped memory through a ``ctypes.c_uint8 * size``
array type. ctypes caches array types weakly, and a type is freed only by the garbage collector
(it sits in reference cycles), so after most collections the next view of a size builds its
type again: 30 to 240 us measured on a 2-core VM, paid by the executor once per submission.
:func:`read_view` and :func:`write_view` keep the types of the sizes they viewed recently
alive, so that the lookup wgpu-py makes finds them.
"""

from __future__ import annotations

import ctypes
from typing import Any

__all__ = ["read_view", "write_view"]

#: Array types kept alive, by byte count (cleared when it reaches :data:`_MAX_KEPT` sizes).
_KEPT: dict[int, type] = {}
_MAX_KEPT = 64


def read_view(buffer: Any, offset: int = 0, size: int | None = None) -> memoryview:
    """``buffer.read_mapped(offset, size, copy=False)``: a read-only view of mapped memory,
    valid until the buffer is unmapped (the whole mapped range from ``offset`` by default)."""
    _keep(buffer.size - offset if size is None else size)
    view: memoryview = buffer.read_mapped(offset, size, copy=False)
    return view


def write_view(buffer: Any, size: int) -> memoryview:
    """A writable view of the first ``size`` bytes of ``buffer``, mapped for writing, valid
    until the buffer is unmapped (wgpu-py's ``_experimental_get_mapped_range``: AttributeError
    where this wgpu-py lacks it)."""
    _keep(size)
    view: memoryview = buffer._experimental_get_mapped_range(0, size)
    return view


def _keep(nbytes: int) -> None:
    if nbytes not in _KEPT:
        if len(_KEPT) >= _MAX_KEPT:
            _KEPT.clear()
        _KEPT[nbytes] = ctypes.c_uint8 * nbytes
