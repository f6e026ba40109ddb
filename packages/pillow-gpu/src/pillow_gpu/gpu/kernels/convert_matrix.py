"""Matrix conversion kernel: Pillow's ``convert("L" or "RGB", matrix)`` of an RGB image."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._program import Program

__all__ = ["coefficients", "lower", "products"]


def coefficients(matrix: Sequence[float], bands: int) -> npt.NDArray[np.float32]:
    """The ``(bands, 4)`` float32 matrix Pillow's C layer reads (``float m[12]``)."""
    values = np.array([float(v) for v in matrix[: 4 * bands]], dtype=np.float64)
    with np.errstate(over="ignore"):
        return values.astype(np.float32).reshape(bands, 4)


def products(coeffs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``table[(k*3 + c)*256 + v] = float32(m[k][c] * v)``: Pillow's float32 products."""
    values = np.arange(256, dtype=np.float32)
    return (coeffs[:, :3, None] * values[None, None, :]).astype(np.float32).reshape(-1)


def lower(
    program: Program, src: int, size: tuple[int, int], matrix: Sequence[float], bands: int
) -> int:
    """``convert(mode, matrix)`` of an RGB buffer: ``bands`` 1 (L) or 3 (RGB)."""
    coeffs = coefficients(matrix, bands)
    dst = program.image(size)
    table = program.table(products(coeffs), "<f4")
    offsets = np.zeros(4, dtype=np.float32)
    offsets[:bands] = coeffs[:, 3]
    program.dispatch(
        "convert_matrix",
        words=(*size, bands, 0, *(int(w) for w in offsets.view(np.uint32))),
        bindings=(src, dst, table),
        grid=size,
        invocation_work=bands,
    )
    return dst
