"""Row groups of packed L for the horizontal box-blur passes (``interleave_l.wgsl``).

Packed L in rows of whole words (``gpu._packed_l``; ``pad_l`` where the width does not divide
by four: rows of :func:`row_words` words) holds four pixels of one row in a word; a horizontal
running sum needs four pixels at the same x instead. :func:`to_groups` writes rows
``4q .. 4q + 3`` as row q of a ``4 * row_words`` x ``groups(height)`` image (pixel x of row
``4q + j`` is lane j of word ``q * 4 * row_words + x``; words past the width are padding),
which ``boxblur`` blurs along its rows like any four-byte image, and :func:`to_rows` packs
that image back into rows. Both read and write consecutive words across neighbouring
invocations.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["INVOCATION_WORK", "groups", "row_words", "to_groups", "to_rows"]

#: Shader-work units of one 4x4 tile (four word loads, the byte shuffle, four stores), besides
#: the per-invocation overhead. Measured on lavapipe (L 1024x1024, in one process): a tile takes
#: 3.2-3.4x an ``unpack`` invocation (one load and one store: 1 + 8 units), i.e. ~30 in all.
INVOCATION_WORK = 22


def groups(height: int) -> int:
    """Row groups of an image ``height`` rows high: ceil(height / 4)."""
    return -(-height // 4)


def row_words(width: int) -> int:
    """Words of one row of whole words of an L image ``width`` pixels wide: ceil(width / 4)."""
    return -(-width // 4)


def _transpose(program: Program, src: int, size: tuple[int, int], *, to_rows: bool) -> int:
    width, height = size
    words = row_words(width)
    tiles = words * groups(height)
    dst = program.words(words * height if to_rows else 4 * tiles)
    program.dispatch(
        "interleave_l",
        words=(words, height, tiles),
        bindings=(src, dst),
        grid=(tiles, 1),
        invocation_work=INVOCATION_WORK,
        linear=True,
        constants={"TO_ROWS": int(to_rows)},
    )
    return dst


def to_groups(program: Program, src: int, size: tuple[int, int]) -> int:
    """The row-group image (``4 * row_words(width)`` x ``groups(height)``) of ``src``."""
    return _transpose(program, src, size, to_rows=False)


def to_rows(program: Program, src: int, size: tuple[int, int]) -> int:
    """The whole-word rows of the row-group image ``src`` of an L image of ``size``."""
    return _transpose(program, src, size, to_rows=True)
