"""Rank-filter kernels: MedianFilter, MinFilter, MaxFilter and RankFilter (size <= 7).

:func:`lower` picks the method per window and rank, each a kernel of its own (lavapipe runs
every branch of a shader, so one kernel holding every method would pay for all of them):

* min and max (rank 0 or size² - 1, any size): separable min/max, :mod:`.rank_minmax`;
* 3x3 median: the column-sort selection network of ``rank.wgsl`` (this module), several
  pixels of four rows per invocation (their windows share rows and columns of samples; LA runs
  as a word mode);
* other 3x3 ranks: a 25-comparator sorting network, :mod:`.rank_sort9`;
* other 5x5 and 7x7 ranks: bitwise radix select (8 counting passes), :mod:`.rank_select`.

Every kernel works on four 8-bit lanes: one pixel's stored bytes, or the bands of two LA (the
kernels other than the median) or four L pixels (so an L invocation produces four pixels; an
L image kept as Pillow's packed bytes is filtered as it is, ``packed=True``).
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import rank_lanes, rank_minmax, rank_select, rank_sort9
from pillow_gpu.gpu.kernels.invert import inversion_mask
from pillow_gpu.gpu.kernels.rank_lanes import sample_loads

__all__ = ["MAX_SIZE", "invocation_work", "lower"]

#: Largest window edge the kernels handle (the radix select holds 49 samples).
MAX_SIZE = 7

#: Four-lane min/max steps of one invocation's two 3x3 medians: per column a shared pair (2)
#: and two merges (4 each); per output max and min of three (2 + 2) and two med3 of 4.
_MEDIAN9_STEPS = 3 * (2 + 2 * 4) + 2 * (4 + 2 * 4)


def invocation_work(packing: int = 0) -> int:
    """Units of one 3x3-median invocation (two pixel columns of four rows: a word mode's two
    pixels, or two groups of four L pixels): four times the units of the earlier two-row
    invocation, twelve samples' word loads plus the network's four-lane min/max steps.

    Measured on lavapipe (2 cores, 2048x2048, with the earlier one-row kernel): 0.7 ns per
    unit for RGBA, 1.3 for L; the other rank kernels 0.5-1.1; :mod:`pillow_gpu.gpu._work`'s
    bound allows up to 2.0. The two-row kernel took 20-25 % less time per image on lavapipe for
    21 % fewer units, and the four-row one loads each sample word about half as often again and
    takes about 25 % less time per image (lavapipe, 2048x2048): the estimate stays on the safe
    side.
    """
    return 4 * (12 * sample_loads(packing) + _MEDIAN9_STEPS)


def _median_grid(columns: int, rows: int) -> tuple[int, int]:
    """Invocations of the 3x3 median: two columns of four rows each."""
    return -(-columns // 2), -(-rows // 4)


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    window: int,
    rank: int,
    mask: int,
    packed: bool = False,
) -> int:
    """Per byte in ``mask``: the ``rank``-th smallest of each ``window``-square neighbourhood.

    ``packed``: ``src`` is L four pixels to a word in rows of ``size[0] / 4`` words (Pillow's
    bytes, ``gpu._packed_l``, or ``kernels.pad_l``'s rows, ``size`` then the padded size), and
    so is the result.
    """
    if packed:
        packing, byte_mask = rank_lanes.PACKED_L, 0xFFFFFFFF
    else:
        packing = rank_lanes.packing(mask)
        byte_mask = sum(0xFF << (8 * j) for j in range(4) if mask >> j & 1)
    invert = 0
    prior = program.lookups.get(src)
    folded = None if prior is None else inversion_mask(prior[1])
    if prior is not None and folded is not None and folded & byte_mask == byte_mask:
        # rank filters commute with 255 - v (rank k of the inverse is the inverse of rank
        # n-1-k): read the inversion's source and invert the result in the kernel instead
        src, invert, rank = prior[0], 1, window * window - 1 - rank
    if rank in (0, window * window - 1):
        return rank_minmax.lower(
            program,
            src,
            size,
            window=window,
            maximum=rank > 0,
            byte_mask=byte_mask,
            packing=packing,
            invert=invert,
        )
    if window == 3 and rank != 4:
        return rank_sort9.lower(
            program, src, size, rank=rank, byte_mask=byte_mask, packing=packing, invert=invert
        )
    if window != 3:
        return rank_select.lower(
            program,
            src,
            size,
            window=window,
            rank=rank,
            byte_mask=byte_mask,
            packing=packing,
            invert=invert,
        )
    if packing == 1:
        # LA as a word mode, its bytes 1 and 2 masked to 0: two pixels of four rows per
        # invocation, against two LA pixels of two rows 35-40 % less time (lavapipe, 1024^2)
        packing = 0
    dst = rank_lanes.output(program, size, packing)
    columns, rows = rank_lanes.invocation_grid(size, packing)
    program.dispatch(
        "rank",
        words=(*size, window, rank, byte_mask, packing, 0, 0, 0),
        bindings=(src, dst),
        grid=_median_grid(columns, rows),
        invocation_work=invocation_work(packing),
        constants={"PACKING": packing, "INVERT": invert},
    )
    return dst
