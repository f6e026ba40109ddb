"""Radix-select rank kernel: 5x5 and 7x7 RankFilter/MedianFilter ranks other than min and max.

Dispatched by :func:`pillow_gpu.gpu.kernels.rank.lower` (the rank filters' only entry point);
``rank_select.wgsl`` counts, per lane and bit, the window samples above a candidate prefix.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import rank_lanes
from pillow_gpu.gpu.kernels.rank_lanes import sample_loads

__all__ = ["SIZES", "invocation_work", "lower"]

#: Window edges the kernel holds (its private arrays are 25 and 49 samples).
SIZES = (5, 7)


def invocation_work(window: int, packing: int = 0) -> int:
    """Units of one invocation: per window sample its word loads, its split into two SWAR
    words (2 steps) and 8 passes of 2 counting steps."""
    return window * window * (sample_loads(packing) + 2 + 8 * 2)


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    window: int,
    rank: int,
    byte_mask: int,
    packing: int,
    invert: int = 0,
) -> int:
    """The ``rank``-th smallest per lane of each ``window``-square (5 or 7) neighbourhood."""
    if window not in SIZES or not 0 <= rank < window * window:
        msg = f"rank_select holds 5x5 or 7x7 windows and their ranks; observed {window}, {rank}"
        raise ValueError(msg)
    dst = rank_lanes.output(program, size, packing)
    program.dispatch(
        "rank_select",
        words=(*size, window, rank, byte_mask, packing, 0, 0, 0),
        bindings=(src, dst),
        grid=rank_lanes.invocation_grid(size, packing),
        invocation_work=invocation_work(window, packing),
        constants={"PACKING": packing, "INVERT": invert, "WINDOW": window},
    )
    return dst
