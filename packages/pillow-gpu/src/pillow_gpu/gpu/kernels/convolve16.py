"""Convolution kernel for ImageFilter.Kernel 3x3/5x5 on the 16-bit modes, with host tables of
f32(v * k) for every 16-bit value of each distinct coefficient (``convolve16.wgsl``)."""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from pillow_gpu.gpu._program import Program

__all__ = ["VALUES", "invocation_work", "lower", "replay", "table_words"]

#: Entries of one coefficient's products: every 16-bit value.
VALUES = 1 << 16
#: Words before the products: one per tap of a 5x5 kernel.
_HEADER = 25


def invocation_work(ksize: int) -> int:
    """Work units of one invocation: ``ksize``² taps of one source load and two table reads."""
    return 3 * ksize * ksize


def table_words(kernel: Sequence[float], scale: float) -> np.ndarray:
    """The kernel's table: per tap the first word of its coefficient's products, then each
    distinct coefficient's 65536 products (float32 bits), as Pillow forms them: the weights
    and the scale in float32, one division, and each product rounded to float32."""
    # IEEE's infinities and NaN where Pillow's float32 arithmetic makes them: a zero or tiny
    # scale, products past float32's range, 0 x inf.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        coefficients = np.asarray(kernel, dtype=np.float32) / np.float32(scale)
        bits, taps = np.unique(coefficients.view(np.uint32), return_inverse=True)
        values = np.arange(VALUES, dtype=np.float32)
        products = values[None, :] * bits.view(np.float32)[:, None]
    header = np.zeros(_HEADER, dtype=np.uint32)
    header[: len(taps)] = _HEADER + np.asarray(taps, dtype=np.uint32).reshape(-1) * VALUES
    return np.concatenate([header, products.astype(np.float32).reshape(-1).view(np.uint32)])


def _start(offset: float) -> np.float32:
    return np.float32(np.float32(offset) + np.float32(0.5))


def replay(
    values: np.ndarray, *, ksize: int, kernel: Sequence[float], scale: float, offset: float
) -> np.ndarray:
    """What the kernel computes, on the host: the filtered 16-bit ``values`` (rows x columns)
    in float32 additions of the table's products, in Pillow's order (the border copied)."""
    table = table_words(kernel, scale)
    values = np.asarray(values, dtype=np.int64)
    height, width = values.shape
    out = values.copy()
    m = ksize // 2
    if width < ksize or height < ksize:
        return out
    inner = (slice(m, height - m), slice(m, width - m))
    total = np.full((height - 2 * m, width - 2 * m), _start(offset), dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):  # a zero scale's infinities, as Pillow
        for ky in range(ksize):
            row = np.zeros_like(total)
            for kx in range(ksize):
                first = int(table[ky * ksize + kx])
                window = values[2 * m - ky : height - ky, kx : width - 2 * m + kx]
                row = row + table[first + window].view(np.float32)
            total = total + row
        clipped = np.where(total >= 65535, 65535, np.where(total > 0, total, 0))
    out[inner] = clipped.astype(np.int64)
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
) -> int:
    """Filter the 16-bit values of ``src`` (one per word); the border keeps its values."""
    start_bits = struct.unpack("<I", struct.pack("<f", float(_start(offset))))[0]
    dst = program.image(size)
    lookup = program.table(table_words(kernel, scale))
    program.dispatch(
        "convolve16",
        words=(*size, ksize, start_bits),
        bindings=(src, dst, lookup),
        grid=size,
        invocation_work=invocation_work(ksize),
    )
    return dst
