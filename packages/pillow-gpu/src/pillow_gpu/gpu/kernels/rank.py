"""Rank-filter kernel: MedianFilter, MinFilter, MaxFilter and RankFilter (size <= 7)."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["MAX_SIZE", "lower"]

#: Largest window edge the kernel's private window (49 samples) holds.
MAX_SIZE = 7


def lower(
    program: Program, src: int, size: tuple[int, int], *, window: int, rank: int, mask: int
) -> int:
    """Per byte in ``mask``: the ``rank``-th smallest of each ``window``-square neighbourhood."""
    dst = program.image(size)
    program.dispatch("rank", words=(*size, window, rank, mask), bindings=(src, dst), grid=size)
    return dst
