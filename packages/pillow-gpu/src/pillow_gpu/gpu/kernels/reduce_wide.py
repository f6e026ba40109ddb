"""Block averages of I images: ``Image.reduce(factor, box)`` in Pillow's double arithmetic.

Pillow reduces I images in doubles (``ImagingReduceNxN_32bpc`` and the edge blocks of
``ImagingReduceCorners_32bpc``), then rounds ``ss * (1.0 / pixels)`` with ``ROUND_UP``; the
kernel keeps the sums exact as 64-bit integers (the groups Pillow adds as C ints wrap as
they do) and multiplies and rounds in software binary64 (``binary64.wgsli``).
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import remap
from pillow_gpu.gpu.kernels.binary64 import double_words
from pillow_gpu.gpu.kernels.reduce import output_size

__all__ = ["MAX_BLOCK", "lower"]

#: Most pixels of one block: every partial sum then stays an integer below 2**53, exact in
#: Pillow's doubles and in the kernel's 64-bit integers.
MAX_BLOCK = (1 << 21) - 1


def lower(
    program: Program,
    src: int,
    src_size: tuple[int, int],
    *,
    factor: tuple[int, int],
    box: tuple[int, int, int, int],
    out_of_range: tuple[int, int],
) -> int:
    """``ImagingReduce`` of an I image ``src``; 1x1 is a crop. ``out_of_range``: what this
    platform's C cast gives for results at or above 2**31 and below -2**31."""
    if factor == (1, 1):  # _imaging.c crops: every stored word kept
        return remap.crop(program, src, src_size, box)
    fx, fy = factor
    width, height = box[2] - box[0], box[3] - box[1]
    edge_x, edge_y = width % fx or fx, height % fy or fy
    multipliers = double_words(
        [1.0 / (fx * fy), 1.0 / (edge_x * fy), 1.0 / (fx * edge_y), 1.0 / (edge_x * edge_y)]
    ).tolist()
    size = output_size(factor, box)
    shape = (*size, src_size[0], fx, fy, box[0], box[1], width, height)
    dst = program.image(size)
    program.dispatch(
        "reduce_wide",
        words=(*shape, *out_of_range, 0, *multipliers),
        bindings=(src, dst),
        grid=size,
        invocation_work=fx * fy + 6,  # a word per block pixel; the double multiply and round
        loop_steps=fx * fy + fy,  # the block's groups and rows
    )
    return dst
