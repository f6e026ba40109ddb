"""Convolution kernel for ImageFilter.Kernel 3x3/5x5 on I images: each int32's float32
product formed exactly in integer arithmetic (``convolve_int.wgsl``)."""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels.convolve16 import coefficients, start

__all__ = ["MAX_COEFFICIENT", "MIN_COEFFICIENT", "admits", "invocation_work", "lower"]

#: Smallest and largest magnitude of a nonzero coefficient the kernel takes: every product of
#: an int32 is then a normal float32, and a 5x5 sum stays below 2^127 (no infinity minus
#: infinity, whose NaN clip32 casts as the platform does).
MIN_COEFFICIENT = 2.0**-100
MAX_COEFFICIENT = 2.0**90


def admits(kernel: Sequence[float], scale: float, offset: float) -> bool:
    """Whether every coefficient is 0 or within :data:`MIN_COEFFICIENT` ..
    :data:`MAX_COEFFICIENT` in magnitude and the offset is not NaN."""
    magnitudes = np.abs(coefficients(kernel, scale).astype(np.float64))
    inside = (magnitudes == 0) | ((magnitudes >= MIN_COEFFICIENT) & (magnitudes < MAX_COEFFICIENT))
    return bool(inside.all()) and not np.isnan(np.float32(offset))


def invocation_work(ksize: int) -> int:
    """Work units of one invocation: per tap a load, a coefficient read and about 40 integer
    operations forming the product."""
    return 8 * ksize * ksize


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    ksize: int,
    kernel: Sequence[float],
    scale: float,
    offset: float,
) -> int:
    """Filter the int32 values of ``src``; the border keeps its values (see :func:`admits`)."""
    start_bits = struct.unpack("<I", struct.pack("<f", float(start(offset))))[0]
    dst = program.image(size)
    taps = program.table(coefficients(kernel, scale).view(np.uint32))
    program.dispatch(
        "convolve_int",
        words=(*size, ksize, start_bits),
        bindings=(src, dst, taps),
        grid=size,
        invocation_work=invocation_work(ksize),
    )
    return dst
