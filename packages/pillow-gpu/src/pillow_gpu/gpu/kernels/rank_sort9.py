"""3x3 sorting-network rank kernel: RankFilter(3, rank) for ranks 1-3 and 5-7.

``rank_sort9.wgsl`` sorts the nine window samples per lane with a 25-comparator network and
takes the rank-th. Dispatched by :func:`pillow_gpu.gpu.kernels.rank.lower`.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import rank_lanes
from pillow_gpu.gpu.kernels.rank_lanes import sample_loads

__all__ = ["COMPARATORS", "invocation_work", "lower"]

#: Compare-exchanges of the network (each a four-lane min and max).
COMPARATORS = 25


def invocation_work(packing: int = 0) -> int:
    """Units of one invocation: nine samples' word loads and two four-lane steps (min, max)
    per comparator."""
    return 9 * sample_loads(packing) + 2 * COMPARATORS


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    rank: int,
    byte_mask: int,
    packing: int,
    invert: int = 0,
) -> int:
    """The ``rank``-th smallest per lane of each 3x3 neighbourhood."""
    if not 0 <= rank < 9:
        msg = f"a 3x3 window has ranks 0..8; observed {rank}"
        raise ValueError(msg)
    dst = rank_lanes.output(program, size, packing)
    program.dispatch(
        "rank_sort9",
        words=(*size, 3, rank, byte_mask, packing, 0, 0, 0),
        bindings=(src, dst),
        grid=rank_lanes.invocation_grid(size, packing),
        invocation_work=invocation_work(packing),
        constants={"PACKING": packing, "INVERT": invert},
    )
    return dst
