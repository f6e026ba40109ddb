"""Table-free inversion kernel, chosen by :func:`pillow_gpu.gpu.kernels.lut.lower`.

A lookup whose every stored-byte row is ``255 - v`` (or all zero, a padding byte) is a
bitwise not under a byte mask: no table reads.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._program import Program

__all__ = ["inversion_mask", "lower"]

_INVERTED = 255 - np.arange(256, dtype=np.int64)
#: Words one invocation inverts (``VECTORS`` vec4 words in invert.wgsl).
_WORDS = 16


def inversion_mask(table: npt.NDArray[np.int64]) -> int | None:
    """The byte mask of a (4, 256) table that inverts or zeroes each byte; None otherwise."""
    mask = 0
    for byte, row in enumerate(table):
        if np.array_equal(row, _INVERTED):
            mask |= 0xFF << (8 * byte)
        elif row.any():
            return None
    return mask


def lower(program: Program, src: int, size: tuple[int, int], mask: int) -> int:
    """Record ``dst = ~src & mask`` over ``size``; return the output buffer."""
    dst = program.image(size)
    words = size[0] * size[1]
    program.dispatch(
        "invert",
        words=(words, mask, 0),
        bindings=(src, dst),
        grid=(-(-words // _WORDS), 1),
        invocation_work=_WORDS,
        linear=True,
    )
    return dst
