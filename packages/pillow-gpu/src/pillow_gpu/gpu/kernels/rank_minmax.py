"""Min/max rank kernel: MinFilter, MaxFilter and RankFilter at rank 0 or size² - 1.

Separable min/max (``rank_minmax.wgsl``): a row pass then a column pass over clamped edges,
which is exact because the clamped window is the product of its clamped rows and columns.
Dispatched by :func:`pillow_gpu.gpu.kernels.rank.lower`.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import rank_lanes
from pillow_gpu.gpu.kernels.rank_lanes import sample_loads

__all__ = ["invocation_work", "lower"]


def invocation_work(window: int, packing: int = 0) -> int:
    """Units of one line-pass invocation: per sample its word loads and one min/max step."""
    return window * (sample_loads(packing) + 1)


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    window: int,
    maximum: bool,
    byte_mask: int,
    packing: int,
    invert: int = 0,
) -> int:
    """The per-lane min (or max) of each ``window``-square neighbourhood: two line passes
    (one for a 1x1 window, which only masks the bytes)."""
    steps = [(1, 0), (0, 1)] if window > 1 else [(0, 0)]
    current = src
    for index, (step_x, step_y) in enumerate(steps):
        last = index == len(steps) - 1
        dst = rank_lanes.output(program, size, packing)
        program.dispatch(
            "rank_minmax",
            words=(*size, window, 0, byte_mask, packing, int(maximum), step_x, step_y),
            bindings=(current, dst),
            grid=rank_lanes.invocation_grid(size, packing),
            invocation_work=invocation_work(window, packing),
            constants={"PACKING": packing, "INVERT": invert if last else 0},
        )
        current = dst
    return current
