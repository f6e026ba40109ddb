"""Convolution kernel for ImageFilter.Kernel 3x3/5x5 of the wide integer modes
(``convolve_wide.wgsl``): the 16-bit modes through host tables of f32(v * k) for every 16-bit
value of each distinct coefficient, I through each int32's float32 product formed exactly in
integer arithmetic. :func:`replay` is the host model both are held to (tests, and the
live-Pillow probes of ``lowering._platform``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels.convolve import coefficients, start, start_bits

__all__ = [
    "MAX_COEFFICIENT",
    "MIN_COEFFICIENT",
    "VALUES",
    "admits",
    "invocation_work",
    "lower",
    "replay",
    "table_words",
]

#: Entries of one coefficient's products in a 16-bit table: every 16-bit value.
VALUES = 1 << 16
#: Words before the products: one per tap of a 5x5 kernel.
_HEADER = 25
#: Smallest and largest magnitude of a nonzero coefficient the I kernel takes: every product of
#: an int32 is then a normal float32, and a 5x5 sum stays below 2^127 (no infinity minus
#: infinity, whose NaN clip32 casts as the platform does).
MIN_COEFFICIENT = 2.0**-100
MAX_COEFFICIENT = 2.0**90


def invocation_work(ksize: int, *, int32: bool) -> int:
    """Work units of one invocation: per tap a source load and two table reads (16-bit), or a
    load, a coefficient read and about 40 integer operations forming the product (I)."""
    return (8 if int32 else 3) * ksize * ksize


def admits(kernel: Sequence[float], scale: float, offset: float) -> bool:
    """Whether the I kernel takes these: every coefficient 0 or within
    :data:`MIN_COEFFICIENT` .. :data:`MAX_COEFFICIENT` in magnitude, an offset that is not NaN."""
    magnitudes = np.abs(coefficients(kernel, scale).astype(np.float64))
    inside = (magnitudes == 0) | ((magnitudes >= MIN_COEFFICIENT) & (magnitudes < MAX_COEFFICIENT))
    return bool(inside.all()) and not np.isnan(np.float32(offset))


def table_words(kernel: Sequence[float], scale: float) -> np.ndarray:
    """The kernel's table: per tap the first word of its coefficient's products, then each
    distinct coefficient's 65536 products (float32 bits), each rounded to float32."""
    bits, taps = np.unique(coefficients(kernel, scale).view(np.uint32), return_inverse=True)
    values = np.arange(VALUES, dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):  # 0 x inf, products past float32
        products = values[None, :] * bits.view(np.float32)[:, None]
    header = np.zeros(_HEADER, dtype=np.uint32)
    header[: len(taps)] = _HEADER + np.asarray(taps, dtype=np.uint32).reshape(-1) * VALUES
    return np.concatenate([header, products.astype(np.float32).reshape(-1).view(np.uint32)])


def replay(
    values: np.ndarray,
    *,
    ksize: int,
    kernel: Sequence[float],
    scale: float,
    offset: float,
    high: int = 65535,
) -> np.ndarray:
    """Pillow's float32 convolution of the integer ``values`` (rows x columns), on the host:
    each value to float32 (rounded to nearest), each product rounded, a row's products and then
    the rows added in its order, the sum clamped to 0..``high`` and truncated (``high``
    2**31 - 1: clip32, whose float32 bound is 2**31); the border copied. The model the GPU
    kernel (both kinds) and the live-Pillow probes are held to."""
    k = coefficients(kernel, scale)
    values = np.asarray(values, dtype=np.int64)
    height, width = values.shape
    out = values.copy()
    m = ksize // 2
    if width < ksize or height < ksize:
        return out
    total = np.full((height - 2 * m, width - 2 * m), start(offset), dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):  # a zero scale's infinities, as Pillow
        for ky in range(ksize):
            row = np.zeros_like(total)
            for kx in range(ksize):
                window = values[2 * m - ky : height - ky, kx : width - 2 * m + kx]
                row = row + window.astype(np.float32) * k[ky * ksize + kx]
            total = total + row
        saturated = total >= np.float32(high)
        kept = np.where((total > 0) & ~saturated, total, 0).astype(np.int64)  # NaN: 0
    out[m : height - m, m : width - m] = np.where(saturated, high, kept)
    return out


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    ksize: int,
    kernel: Sequence[float],
    scale: float,
    offset: float,
    int32: bool,
) -> int:
    """Filter the 16-bit (or, ``int32``, the I) values of ``src``, one per word; the border
    keeps its values. The caller checks :func:`admits` for I."""
    dst = program.image(size)
    if int32:
        table = program.table(coefficients(kernel, scale).view(np.uint32))
    else:
        table = program.table(table_words(kernel, scale))
    program.dispatch(
        "convolve_wide",
        words=(*size, ksize, start_bits(offset)),
        bindings=(src, dst, table),
        grid=size,
        invocation_work=invocation_work(ksize, int32=int32),
        constants={"INT32": 1} if int32 else None,
    )
    return dst
