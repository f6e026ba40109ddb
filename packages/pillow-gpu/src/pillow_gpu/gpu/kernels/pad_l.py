"""Packed L of any width <-> rows of whole words (``pad_l.wgsl``).

Packed L (``gpu._packed_l``) keeps Pillow's bytes, rows back to back, so a row whose width does
not divide by four starts inside a word. The packed blur and rank passes (``kernels.boxblur``,
``kernels.rank``) want every row to start a word: :func:`to_rows` copies the image into rows of
``interleave_l.row_words(width)`` words and :func:`to_pillow` copies such rows back into
Pillow's bytes. The bytes past a row's end repeat its last pixel: a rank filter run over the
padded width, clamping its columns there, reads for every real pixel exactly the columns
Pillow's clamp at the real width gives (the blurs never read them).
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels.interleave_l import row_words

__all__ = ["INVOCATION_WORK", "row_words", "to_pillow", "to_rows"]

#: Shader-work units of one output word: at most four word loads (two where its bytes lie in
#: one row), the shifts and one store, besides the per-invocation overhead.
INVOCATION_WORK = 6


def _copy(program: Program, src: int, size: tuple[int, int], count: int, *, to_flat: bool) -> int:
    width, height = size
    dst = program.words(count)
    program.dispatch(
        "pad_l",
        words=(width, height, row_words(width), count),
        bindings=(src, dst),
        grid=(count, 1),
        invocation_work=INVOCATION_WORK,
        linear=True,
        constants={"TO_FLAT": int(to_flat)},
    )
    return dst


def to_rows(program: Program, src: int, size: tuple[int, int]) -> int:
    """The whole-word rows of the packed L image ``src`` of ``size``."""
    return _copy(program, src, size, row_words(size[0]) * size[1], to_flat=False)


def to_pillow(program: Program, rows: int, size: tuple[int, int], words: int) -> int:
    """Pillow's packed bytes (a buffer of ``words`` words) of the whole-word rows ``rows``."""
    return _copy(program, rows, size, words, to_flat=True)
