"""RGB <-> YCbCr kernel: Pillow's fixed-point JFIF conversions, with host-built tables.

Pillow (``libImaging/ConvertYCbCr.c``) converts with twelve 256-entry tables of the JFIF
coefficients scaled by 64 (6 bits), each entry C's ``(int)(c * v * 64 + 0.5)``: ``v`` the byte
for the RGB -> YCbCr tables, ``v - 128`` for the YCbCr -> RGB ones. :func:`tables` rebuilds
them from the coefficients; the parity suite checks the result against live Pillow over all
2^24 inputs in each direction. The device keeps them as one resident buffer.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._program import Program

__all__ = ["TABLES", "lower", "tables"]

#: Name of the per-device resident buffer holding :func:`tables` (12 x 256 i32).
TABLES = "ycbcr_tables"

# (coefficient, offset subtracted from the byte), in the kernel's table order.
_COEFFICIENTS = (
    (0.29900, 0),  # Y_R
    (0.58700, 0),  # Y_G
    (0.11400, 0),  # Y_B
    (-0.16874, 0),  # Cb_R
    (-0.33126, 0),  # Cb_G
    (0.50000, 0),  # Cb_B, also Cr_R
    (-0.41869, 0),  # Cr_G
    (-0.08131, 0),  # Cr_B
    (1.40200, 128),  # R_Cr
    (-0.34414, 128),  # G_Cb
    (-0.71414, 128),  # G_Cr
    (1.77200, 128),  # B_Cb
)


@functools.cache
def tables() -> npt.NDArray[np.int32]:
    """The (12, 256) tables: C's truncation of ``coefficient * (byte - offset) * 64 + 0.5``."""
    values = np.arange(256, dtype=np.float64)
    rows = [np.trunc(c * (values - offset) * 64 + 0.5) for c, offset in _COEFFICIENTS]
    return np.stack(rows).astype(np.int32)


def _table_bytes() -> bytes:
    return tables().astype("<i4").tobytes()


def lower(program: Program, src: int, size: tuple[int, int], *, to_rgb: bool) -> int:
    """``convert("YCbCr")`` of RGB/RGBA/RGBX words, or ``convert("RGB")`` of YCbCr words."""
    dst = program.image(size)
    table = program.resident(TABLES, tables().size * 4, _table_bytes)
    program.dispatch(
        "convert_ycbcr",
        words=(*size, int(to_rgb)),
        bindings=(src, dst, table),
        grid=size,
        invocation_work=1,
    )
    return dst
