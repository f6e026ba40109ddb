"""Resampling pass of 16/32-bit images (I;16, I;16B, I;16L, I): Pillow's double arithmetic.

Pillow resamples these modes in doubles (``ImagingResample*_16bpc`` / ``_32bpc``): each output
sums ``value * k`` over its taps in order, then rounds with ``ROUND_UP`` (the 16-bit modes
clamped to 0..65535; I;16B's bytes are read and written little-endian, as Pillow does on
little-endian machines). The kernel does that arithmetic in software binary64
(``binary64.wgsli``), so every rounding is Pillow's. The table is a storage binding: per output
its first input and tap count, then ``ksize`` doubles as their IEEE bits (two words each).
"""

from __future__ import annotations

import numpy as np

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels.binary64 import double_words
from pillow_gpu.gpu.kernels.resample_coeffs import Coefficients

__all__ = ["KINDS", "SMALLEST_WEIGHT", "TAP_WORK", "lower"]

#: Mode -> the kernel's KIND (how a word holds the value and how the result is stored).
KINDS = {"I;16": 0, "I;16L": 0, "I;16B": 1, "I": 2}
#: Nonzero weights must be at least this large (products and sums then stay normal doubles,
#: which the software arithmetic assumes; Pillow's filters give nothing near it).
SMALLEST_WEIGHT = 2.0**-900
#: Shader-work units of one tap, a software double multiply and add: measured 6 ns a tap on
#: lavapipe (2 cores; LANCZOS 1024 -> 512 over 512 rows), about 1 ns a unit as calibrated.
TAP_WORK = 6


def lower(
    program: Program,
    src: int,
    *,
    mode: str,
    src_width: int,
    axis: int,
    coefficients: Coefficients,
    shift: int,
    offset: int,
    size: tuple[int, int],
    out_of_range: tuple[int, int],
) -> int:
    """Record one pass along ``axis`` (0 horizontal) of a ``mode`` image into ``size``.

    ``coefficients`` hold Pillow's doubles (``precompute_doubles``); ``shift`` is subtracted
    from their first inputs and ``offset`` is the first row (axis 0) or column (axis 1) of
    ``src`` read. ``out_of_range`` is what this platform's C cast gives for an I result at or
    above 2**31 and below -2**31.
    """
    bounds = (coefficients.bounds - np.array([shift, 0])).astype("<u4")
    weights = double_words(coefficients.weights)
    table = program.table(np.concatenate([bounds.reshape(-1), weights]))
    dst = program.image(size)
    taps = coefficients.max_taps
    program.dispatch(
        "resample_wide",
        words=(*size, src_width, offset, coefficients.ksize, len(bounds), *out_of_range),
        bindings=(src, dst, table),
        grid=size,
        invocation_work=max(1, TAP_WORK * taps),
        loop_steps=taps,
        constants={"AXIS": axis, "KIND": KINDS[mode]},
    )
    return dst
