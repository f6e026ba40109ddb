"""Convolution kernel for ImageFilter.Kernel 3x3/5x5 on the 16-bit modes, with host tables of
f32(v * k) for every 16-bit value of each distinct coefficient (``convolve16.wgsl``)."""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from pillow_gpu.gpu._program import Program

__all__ = ["VALUES", "coefficients", "invocation_work", "lower", "replay", "start", "table_words"]

#: Entries of one coefficient's products: every 16-bit value.
VALUES = 1 << 16
#: Words before the products: one per tap of a 5x5 kernel.
_HEADER = 25


def invocation_work(ksize: int) -> int:
    """Work units of one invocation: ``ksize``² taps of one source load and two table reads."""
    return 3 * ksize * ksize


def coefficients(kernel: Sequence[float], scale: float) -> np.ndarray:
    """The kernel's float32 coefficients as Pillow forms them: each weight and the scale in
    float32, one division (a zero or tiny scale gives IEEE's infinities and NaN, as Pillow's)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.asarray(kernel, dtype=np.float32) / np.float32(scale)


def start(offset: float) -> np.float32:
    """Pillow's first partial sum: the offset in float32, plus 0.5 for rounding."""
    return np.float32(np.float32(offset) + np.float32(0.5))


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
    kernels (``convolve16``, ``convolve_int``) and the live-Pillow probes are held to."""
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
) -> int:
    """Filter the 16-bit values of ``src`` (one per word); the border keeps its values."""
    start_bits = struct.unpack("<I", struct.pack("<f", float(start(offset))))[0]
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
