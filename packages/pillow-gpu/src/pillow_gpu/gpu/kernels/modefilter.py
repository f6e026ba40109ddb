"""Mode-filter kernel: ImageFilter.ModeFilter (most frequent value of a clipped window)."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["MAX_SIZE", "half_window", "invocation_work", "lower"]

#: Largest filter size admitted: its 7 x 7 window fills the kernel's 49-sample private array.
MAX_SIZE = 7


def half_window(size: int) -> int:
    """Pillow's ``size / 2`` in C (truncating toward zero); <= 0 means the pixel is kept."""
    return abs(size) // 2 if size >= 0 else -(abs(size) // 2)


def invocation_work(half: int) -> int:
    """Work units of one invocation (:mod:`pillow_gpu.gpu._work`): the window loads, then every
    sample counted against every sample (one unit per pair, on up to four bytes, like rank)."""
    samples = (2 * max(half, 0) + 1) ** 2
    return samples + samples * samples


def lower(program: Program, src: int, size: tuple[int, int], *, half: int, mask: int) -> int:
    """Per byte in ``mask``: the mode of the ``2 * half + 1`` square window clipped to the image."""
    dst = program.image(size)
    half = max(half, 0)
    program.dispatch(
        "modefilter",
        words=(*size, half, mask),
        bindings=(src, dst),
        grid=size,
        invocation_work=invocation_work(half),
    )
    return dst
