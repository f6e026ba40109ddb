"""Unsharp-mask kernel: ImageFilter.UnsharpMask as Pillow's exact Gaussian blur + a combine."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import boxblur
from pillow_gpu.gpu.kernels.interleave_l import row_words

__all__ = ["MAX_PERCENT", "lower"]

#: Largest |percent| for which Pillow's C ``diff * percent`` (|diff| <= 255) cannot overflow int.
MAX_PERCENT = 2**23


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    box_radius: float,
    percent: int,
    threshold: int,
    packed: bool = False,
) -> int:
    """Blur with three ``box_radius`` box passes per axis, then sharpen every stored byte.

    ``packed``: ``src`` is L four pixels to a word in rows of whole words (``boxblur.lower``);
    the combine is per byte, so it runs on those words as they are.
    """
    # A zero box radius blurs to a copy of the source, so the source itself is the blur.
    blurred = (
        src
        if box_radius == 0
        else boxblur.lower(program, src, size, (box_radius,) * 2, 3, packed=packed)
    )
    grid = (row_words(size[0]), size[1]) if packed else size
    dst = program.image(grid)
    program.dispatch(
        "unsharp",
        words=(*grid, percent, threshold),
        bindings=(src, blurred, dst),
        grid=grid,
        invocation_work=4,  # the per-byte loop, as in chops
    )
    return dst
