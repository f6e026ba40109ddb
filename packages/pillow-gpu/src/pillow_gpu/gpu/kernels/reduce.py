"""Block-average kernel: ``Image.reduce(factor, box)`` (Pillow's Reduce.c, exact).

Blocks of more than :data:`SPLIT_BLOCK` pixels are summed in two dispatches (reduce.wgsl's
STAGE 1 and 2), the same integer sums.
"""

from __future__ import annotations

import numpy as np

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import remap
from pillow_gpu.gpu.kernels.resample import BAND_MASKS

__all__ = ["SPLIT_BLOCK", "lower", "multiplier", "output_size"]

#: Blocks of more pixels are summed in two dispatches (row sums, then block sums): one
#: invocation then loops over fx or fy steps, not fx * fy.
SPLIT_BLOCK = 4096


def multiplier(count: int) -> int:
    """``division_UINT32(count, 8)``: (UINT32)(4294967296.0f / (float)(256 * count))."""
    return int(np.float32(4294967296.0) / np.float32(256 * count))


def output_size(factor: tuple[int, int], box: tuple[int, int, int, int]) -> tuple[int, int]:
    """The reduced size: the box size divided by the factor, rounded up."""
    return (-(-(box[2] - box[0]) // factor[0]), -(-(box[3] - box[1]) // factor[1]))


def lower(
    program: Program,
    src: int,
    mode: str,
    src_size: tuple[int, int],
    *,
    factor: tuple[int, int],
    box: tuple[int, int, int, int],
) -> int:
    """``ImagingReduce`` of ``src`` (already premultiplied for LA/RGBA); 1x1 is a crop."""
    if factor == (1, 1):  # _imaging.c crops: every stored byte kept
        return remap.crop(program, src, src_size, box)
    fx, fy = factor
    width, height = box[2] - box[0], box[3] - box[1]
    edge_x, edge_y = width % fx or fx, height % fy or fy
    multipliers = (
        multiplier(fx * fy),
        multiplier(edge_x * fy),
        multiplier(fx * edge_y),
        multiplier(edge_x * edge_y),
    )
    size = output_size(factor, box)
    mask = BAND_MASKS.get(mode, 0b1111)
    shape = (*size, src_size[0], mask, fx, fy, box[0], box[1], width, height)
    words = (*shape, 0, 0, *multipliers)
    dst = program.image(size)
    if fx * fy <= SPLIT_BLOCK:
        program.dispatch(
            "reduce",
            words=words,
            bindings=(src, dst),
            grid=size,
            invocation_work=fx * fy,  # one word per block pixel
            loop_steps=fx * fy + fy + 4,  # the block's pixels, its rows, the per-byte loop
        )
        return dst
    rows = program.image((4 * size[0], height))  # four u32 sums per block row
    program.dispatch(
        "reduce",
        words=words,
        bindings=(src, rows),
        grid=(size[0], height),
        invocation_work=fx,
        constants={"STAGE": 1},
    )
    program.dispatch(
        "reduce",
        words=words,
        bindings=(rows, dst),
        grid=size,
        invocation_work=4 * fy,  # four words per block row
        loop_steps=fy + 4,
        constants={"STAGE": 2},
    )
    return dst
