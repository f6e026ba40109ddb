"""Rank-filter kernel: MedianFilter, MinFilter, MaxFilter and RankFilter (size <= 7)."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["MAX_SIZE", "invocation_work", "lower"]

#: Largest window edge the kernel's private window (49 samples) holds.
MAX_SIZE = 7


def invocation_work(window: int) -> int:
    """Work units of one invocation: ``window``² loads, then every sample counted against every
    sample, (``window``²)² pair comparisons (each on all four bytes, one unit per pair)."""
    samples = window * window
    return samples + samples * samples


def lower(
    program: Program, src: int, size: tuple[int, int], *, window: int, rank: int, mask: int
) -> int:
    """Per byte in ``mask``: the ``rank``-th smallest of each ``window``-square neighbourhood."""
    dst = program.image(size)
    program.dispatch(
        "rank",
        words=(*size, window, rank, mask),
        bindings=(src, dst),
        grid=size,
        invocation_work=invocation_work(window),
    )
    return dst
