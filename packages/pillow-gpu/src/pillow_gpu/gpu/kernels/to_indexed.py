"""Conversion to P or 1 as a fixed per-pixel function (Pillow's ``dither=NONE`` results).

Pillow converts an RGB-like pixel to the WEB palette through its palette cache: the closest
colour is kept per cell ``(r >> 2, g >> 2, b >> 2)``, and each cell's entry is computed from
the cell alone (``ImagingPaletteCacheUpdate`` fills a whole 8 x 8 x 8 box of cells at a
time), so the result is a 64^3-entry table. :func:`web_cells` reads that table off live
Pillow once per process (one pixel per cell); the device keeps it as a resident buffer. The
parity suite checks it over all 2^24 inputs. Bilevel results are Pillow's ``rgb2bit`` (a
luma threshold computed in the kernel) or a 256-entry table of byte 0.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt
from PIL import Image as PILImage

from pillow_gpu.gpu._program import Program

__all__ = ["RGB2BIT_THRESHOLD", "WEB_CELLS", "lower_byte_table", "lower_rgb2bit", "lower_web"]

#: Name of the per-device resident buffer holding :func:`web_cells` (64^3 bytes).
WEB_CELLS = "web_cells"
#: Pillow's ``rgb2bit``: 255 where ``r * 299 + g * 587 + b * 114`` reaches this, else 0.
RGB2BIT_THRESHOLD = 128000
_CELL_EDGE = 64


@functools.cache
def web_cells() -> bytes:
    """Pillow's WEB-palette index of each cell ``(r >> 2) << 12 | (g >> 2) << 6 | b >> 2``."""
    cells = np.arange(_CELL_EDGE**3, dtype=np.int64)
    lowest = np.stack([(cells >> 12) << 2, ((cells >> 6) & 63) << 2, (cells & 63) << 2], 1)
    image = PILImage.fromarray(lowest.astype(np.uint8).reshape(512, 512, 3), "RGB")
    converted = image.convert("P", dither=PILImage.Dither.NONE, palette=PILImage.Palette.WEB)
    return converted.tobytes()


def _dispatch(program: Program, src: int, size: tuple[int, int], table: int, kind: int) -> int:
    dst = program.image(size)
    program.dispatch(
        "to_indexed",
        words=size,
        bindings=(src, dst, table),
        grid=size,
        invocation_work=1,
        constants={"KIND": kind},
    )
    return dst


def lower_web(program: Program, src: int, size: tuple[int, int]) -> int:
    """The WEB-palette index of stored bytes 0..2 of each word (RGB, RGBX, RGBa -> P)."""
    table = program.resident(WEB_CELLS, _CELL_EDGE**3, web_cells)
    return _dispatch(program, src, size, table, 0)


def lower_byte_table(
    program: Program, src: int, size: tuple[int, int], values: npt.ArrayLike
) -> int:
    """``values[byte 0]`` of each word (256 values 0..255)."""
    table = np.asarray(values, dtype=np.uint8)
    if table.shape != (256,):
        msg = f"a byte table has 256 entries; observed shape {table.shape}"
        raise ValueError(msg)
    return _dispatch(program, src, size, program.table(table.view("<u4")), 1)


def lower_rgb2bit(program: Program, src: int, size: tuple[int, int]) -> int:
    """Pillow's ``rgb2bit`` of stored bytes 0..2 of each word (0 or 255)."""
    return _dispatch(program, src, size, program.table([RGB2BIT_THRESHOLD]), 2)
