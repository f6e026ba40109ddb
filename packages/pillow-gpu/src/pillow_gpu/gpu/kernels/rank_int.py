"""Rank filters of I images (``rank_int.wgsl``): each window's ``rank``-th smallest int32."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["invocation_work", "lower"]


def invocation_work(window: int, rank: int) -> int:
    """Units of one invocation (:mod:`pillow_gpu.gpu._work`): the window's loads, then one
    unit a comparison of the partial selection sort from the nearer end."""
    samples = window * window
    passes = min(rank, samples - 1 - rank) + 1
    return samples + passes * samples


def lower(program: Program, src: int, size: tuple[int, int], *, window: int, rank: int) -> int:
    """The ``rank``-th smallest value of each ``window``-square clamped neighbourhood."""
    dst = program.image(size)
    program.dispatch(
        "rank_int",
        words=(*size, window, rank),
        bindings=(src, dst),
        grid=size,
        invocation_work=invocation_work(window, rank),
    )
    return dst
