"""Radix-select rank kernel: 5x5 and 7x7 RankFilter/MedianFilter ranks other than min and max.

Dispatched by :func:`pillow_gpu.gpu.kernels.rank.lower` (the rank filters' only entry point);
``rank_select.wgsl`` counts, per lane and bit, the window samples above a candidate prefix.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["SIZES", "invocation_work", "lower"]

#: Window edges the kernel holds (its private arrays are 25 and 49 samples).
SIZES = (5, 7)

#: Word loads one ``lanes()`` sample issues: lavapipe runs every branch of a shader, so the
#: word (1), LA (2) and L (4) packings' loads all execute, whichever the dispatch uses.
_SAMPLE_LOADS = 7


def invocation_work(window: int) -> int:
    """Units of one invocation: per window sample its word loads, its split into two SWAR
    words (2 steps) and 8 passes of 2 counting steps."""
    return window * window * (_SAMPLE_LOADS + 2 + 8 * 2)


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    window: int,
    rank: int,
    byte_mask: int,
    packing: int,
) -> int:
    """The ``rank``-th smallest per lane of each ``window``-square (5 or 7) neighbourhood."""
    if window not in SIZES or not 0 <= rank < window * window:
        msg = f"rank_select holds 5x5 or 7x7 windows and their ranks; observed {window}, {rank}"
        raise ValueError(msg)
    dst = program.image(size)
    program.dispatch(
        "rank_select",
        words=(*size, window, rank, byte_mask, packing, 0, 0, 0),
        bindings=(src, dst),
        grid=(-(-size[0] // (1 << packing)), size[1]),
        invocation_work=invocation_work(window),
    )
    return dst
