"""Band-assembly kernel: ``Image.merge`` of L sources and ``putalpha`` (L or constant alpha)."""

from __future__ import annotations

from collections.abc import Sequence

from pillow_gpu.gpu._layout import BYTE_BANDS
from pillow_gpu.gpu._program import Program

__all__ = ["MERGE_BYTES", "PUTALPHA_MODES", "merge", "putalpha"]

_CONST = 16

#: Stored byte -> merged band, per output mode (None: Pillow's ImagingMerge writes 0 there;
#: checked against live Pillow's memory).
MERGE_BYTES = BYTE_BANDS

#: Source modes putalpha assembles directly, with the selectors of bytes 0..2 (source 0):
#: L -> LA repeats L as Pillow's convert does; the others keep their bytes and become LA/RGBA.
PUTALPHA_MODES: dict[str, tuple[int, int, int]] = {
    "L": (0, 0, 0),
    "LA": (0, 1, 2),
    "RGB": (0, 1, 2),
    "RGBA": (0, 1, 2),
    "RGBX": (0, 1, 2),
}


def _assemble(
    program: Program,
    sources: Sequence[int],
    size: tuple[int, int],
    selectors: tuple[int, ...],
    constants: tuple[int, ...],
) -> int:
    dst = program.image(size)
    slots = (*sources, *(sources[0],) * (4 - len(sources)))
    program.dispatch(
        "bands",
        words=(*size, 0, 0, *selectors, *constants),
        bindings=(*slots, dst),
        grid=size,
        invocation_work=8,  # four source reads, then the per-byte loop (4, as in convert)
    )
    return dst


def merge(program: Program, sources: Sequence[int], size: tuple[int, int], mode: str) -> int:
    """``Image.merge(mode, bands)`` of L sources (byte 0 of each), in band order."""
    layout = MERGE_BYTES[mode]
    selectors = tuple(_CONST if band is None else 4 * band for band in layout)
    return _assemble(program, sources, size, selectors, (0, 0, 0, 0))


def putalpha(
    program: Program,
    src: int,
    size: tuple[int, int],
    mode: str,
    *,
    alpha: int | None = None,
    value: int = 0,
) -> int:
    """``putalpha`` on a ``mode`` source: byte 3 from L buffer ``alpha`` or the byte ``value``."""
    base = PUTALPHA_MODES[mode]
    if alpha is None:
        return _assemble(program, (src,), size, (*base, _CONST), (0, 0, 0, value))
    return _assemble(program, (src, alpha), size, (*base, 4), (0, 0, 0, 0))
