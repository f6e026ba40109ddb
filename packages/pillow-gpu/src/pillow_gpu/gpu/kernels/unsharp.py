"""Unsharp-mask kernel: ImageFilter.UnsharpMask as Pillow's exact Gaussian blur + a combine."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import boxblur

__all__ = ["MAX_PERCENT", "lower"]

#: Largest |percent| for which Pillow's C ``diff * percent`` (|diff| <= 255) cannot overflow int.
MAX_PERCENT = 2**23


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    box_radius: float,
    percent: int,
    threshold: int,
) -> int:
    """Blur with three ``box_radius`` box passes per axis, then sharpen every stored byte."""
    # A zero box radius blurs to a copy of the source, so the source itself is the blur.
    blurred = src if box_radius == 0 else boxblur.lower(program, src, size, (box_radius,) * 2, 3)
    dst = program.image(size)
    program.dispatch(
        "unsharp",
        words=(*size, percent, threshold),
        bindings=(src, blurred, dst),
        grid=size,
        invocation_work=4,  # the per-byte loop, as in chops
    )
    return dst
