"""Convolution kernel for ImageFilter.Kernel 3x3/5x5 with host f32(v * k) tables."""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from pillow_gpu.gpu._program import Program

__all__ = ["coefficients", "invocation_work", "lower", "start", "start_bits"]

#: Entries of the kernel's table binding (``table`` in convolve.wgsl): 5x5 taps x 256 values.
_TABLE_ENTRIES = 5 * 5 * 256


def invocation_work(ksize: int, mask: int) -> int:
    """Work units of one invocation: per filtered byte in ``mask``, ``ksize``² taps of one
    source load and one table read each (the kernel loads each tap's word once for all bytes,
    so this overstates it; it is kept as the bound the work limit was measured with)."""
    return max(1, 2 * ksize * ksize * bin(mask & 0b1111).count("1"))


def coefficients(kernel: Sequence[float], scale: float) -> np.ndarray:
    """The kernel's float32 coefficients as Pillow forms them: each weight and the scale in
    float32, one division (a zero or tiny scale gives IEEE's infinities and NaN, as Pillow's)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.asarray(kernel, dtype=np.float32) / np.float32(scale)


def start(offset: float) -> np.float32:
    """Pillow's first partial sum: the offset in float32, plus 0.5 for rounding."""
    return np.float32(np.float32(offset) + np.float32(0.5))


def start_bits(offset: float) -> int:
    """:func:`start` as the float32 bits a kernel's parameter word carries."""
    return int(struct.unpack("<I", struct.pack("<f", float(start(offset))))[0])


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    ksize: int,
    kernel: Sequence[float],
    scale: float,
    offset: float,
    mask: int,
    packed: bool = False,
    columns: int | None = None,
) -> int:
    """Filter the bytes in ``mask`` (bit j = stored byte j); other bytes become 0.

    ``packed``: ``src`` is L four pixels to a word, ``columns`` words to a row (default
    ``width / 4``: Pillow's bytes; more for ``kernels.pad_l``'s rows of whole words), filtered
    four pixels per word, and so is the result (``mask`` unused).
    """
    if columns is None:
        columns = size[0] // 4
    values = np.arange(256, dtype=np.float32)
    with np.errstate(invalid="ignore"):
        table = (values[None, :] * coefficients(kernel, scale)[:, None]).astype(np.float32)
    dst = program.words(columns * size[1]) if packed else program.image(size)
    padded = np.zeros(_TABLE_ENTRIES, dtype=np.float32)  # the kernel's uniform table size
    padded[: table.size] = table.reshape(-1)
    lookup = program.table(padded, dtype="<f4")
    program.dispatch(
        "convolve",
        words=(*size, ksize, mask, start_bits(offset), columns if packed else 0),
        bindings=(src, dst, lookup),
        grid=(columns, size[1]) if packed else size,
        invocation_work=invocation_work(ksize, 0b1111 if packed else mask),
        constants={"PACKED": 1} if packed else None,
    )
    return dst
