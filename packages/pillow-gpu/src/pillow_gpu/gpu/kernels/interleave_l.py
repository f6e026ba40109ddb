"""Row groups of packed L for the horizontal box-blur passes (``interleave_l.wgsl``).

Packed L (``gpu._packed_l``, rows of ``width / 4`` words) holds four pixels of one row in a
word; a horizontal running sum needs four pixels at the same x instead. :func:`to_groups`
writes rows ``4q .. 4q + 3`` as row q of a ``width`` x ``groups(height)`` image (pixel x of
row ``4q + j`` is lane j of word ``q * width + x``), which ``boxblur`` blurs along its rows
like any four-byte image, and :func:`to_rows` packs that image back into Pillow's rows. Both
read and write consecutive words across neighbouring invocations.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["INVOCATION_WORK", "groups", "to_groups", "to_rows"]

#: Shader-work units of one 4x4 tile (four word loads, the byte shuffle, four stores), besides
#: the per-invocation overhead. Measured on lavapipe (L 1024x1024, in one process): a tile takes
#: 3.2-3.4x an ``unpack`` invocation (one load and one store: 1 + 8 units), i.e. ~30 in all.
INVOCATION_WORK = 22


def groups(height: int) -> int:
    """Row groups of an image ``height`` rows high: ceil(height / 4)."""
    return -(-height // 4)


def _transpose(program: Program, src: int, size: tuple[int, int], *, to_rows: bool) -> int:
    width, height = size
    if width % 4:
        msg = f"packed L row groups need a width divisible by 4; observed {width}"
        raise ValueError(msg)
    row_words = width // 4
    tiles = row_words * groups(height)
    dst = program.words(row_words * height if to_rows else 4 * tiles)
    program.dispatch(
        "interleave_l",
        words=(row_words, height, tiles),
        bindings=(src, dst),
        grid=(tiles, 1),
        invocation_work=INVOCATION_WORK,
        linear=True,
        constants={"TO_ROWS": int(to_rows)},
    )
    return dst


def to_groups(program: Program, src: int, size: tuple[int, int]) -> int:
    """The ``width`` x ``groups(height)`` row-group image of the packed L image ``src``."""
    return _transpose(program, src, size, to_rows=False)


def to_rows(program: Program, src: int, size: tuple[int, int]) -> int:
    """Pillow's packed rows of the row-group image ``src`` of an L image of ``size``."""
    return _transpose(program, src, size, to_rows=True)
