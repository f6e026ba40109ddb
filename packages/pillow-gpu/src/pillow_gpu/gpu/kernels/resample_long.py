"""Resampling pass for windows too long for resample.wgsl's uniform table.

Chosen by :func:`pillow_gpu.gpu.kernels.resample._dispatch` when a block of four outputs reads
more inputs than one uniform binding holds (downscales by several hundred), or a pass would
need more than ``MAX_CHUNKS`` dispatches. The table is a storage binding of any length: per
output its first input and tap count, then ``ksize`` weights. Four outputs per invocation
across the pass axis share one weight load per tap; outputs past the image's edge are
computed from its last line, never written.
"""

from __future__ import annotations

import numpy as np

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels.resample_coeffs import Coefficients

__all__ = ["lower"]


def lower(
    program: Program,
    src: int,
    *,
    src_width: int,
    axis: int,
    coefficients: Coefficients,
    shift: int,
    offset: int,
    size: tuple[int, int],
    mask: int,
) -> int:
    """Record one pass along ``axis`` (0 horizontal) into a new image of ``size``.

    ``shift`` is subtracted from the first inputs (the previous pass's crop) and ``offset`` is
    the first row (axis 0) or column (axis 1) of ``src`` the pass reads.
    """
    bounds = coefficients.bounds - np.array([shift, 0])
    table = program.table(np.concatenate([bounds.reshape(-1), coefficients.weights.reshape(-1)]))
    dst = program.image(size)
    width, height = size
    program.dispatch(
        "resample_long",
        words=(*size, src_width, axis, offset, coefficients.ksize, mask, len(bounds)),
        bindings=(src, dst, table),
        grid=(-(-width // 4), height) if axis == 1 else (width, -(-height // 4)),
        invocation_work=max(1, 5 * coefficients.max_taps),  # per tap: a weight, four words
        loop_steps=coefficients.max_taps,
        constants={"AXIS": axis},
    )
    return dst
