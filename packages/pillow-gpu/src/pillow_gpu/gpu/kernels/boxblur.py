"""Box-blur line-pass kernel: ImageFilter.BoxBlur (n = 1) and GaussianBlur (n = 3)."""

from __future__ import annotations

import math

import numpy as np

from pillow_gpu.gpu._program import Program

__all__ = ["gaussian_box_radius", "invocation_work", "lower", "weights"]


def gaussian_box_radius(radius: float, passes: int = 3) -> float:
    """Pillow's box radius (float32) for a Gaussian ``radius`` approximated by ``passes`` boxes.

    As BoxBlur.c's ``_gaussian_blur_radius``: sigma2, L, l and a are C floats, so every step
    rounds to float32 (only the sqrt and floor arguments are doubles). A non-finite radius
    gives ``inf`` (callers reject it).
    """
    f32 = np.float32
    with np.errstate(over="ignore", invalid="ignore"):
        sigma2 = f32(f32(radius) * f32(radius)) / f32(passes)
        if not math.isfinite(sigma2):
            return math.inf
        big_l = f32(math.sqrt(12.0 * float(sigma2) + 1.0))
        small_l = f32(math.floor((float(big_l) - 1.0) / 2.0))
        a = (f32(2) * small_l + f32(1)) * (small_l * (small_l + f32(1)) - f32(3) * sigma2)
        a = a / (f32(6) * (sigma2 - (small_l + f32(1)) * (small_l + f32(1))))
        return float(small_l + a)


def weights(radius: float) -> tuple[int, int, int]:
    """(r, ww, fw) of one pass: integer radius and Pillow's 24-bit fixed-point weights."""
    fr = np.float32(radius)
    r = int(fr)
    ww = int(np.float32(16777216.0) / (fr * np.float32(2) + np.float32(1)))
    fw = (16777216 - (2 * r + 1) * ww) // 2
    return r, ww, fw


def invocation_work(r: int) -> int:
    """Samples one pass invocation reads: the 2r + 1 window taps plus the two edge taps."""
    return 2 * r + 3


def lower(
    program: Program, src: int, size: tuple[int, int], radius: tuple[float, float], passes: int
) -> int:
    """``passes`` horizontal passes then ``passes`` vertical passes; zero radii skip an axis."""
    current = src
    for horizontal, axis_radius in ((1, radius[0]), (0, radius[1])):
        if axis_radius == 0:
            continue
        r, ww, fw = weights(axis_radius)
        for _ in range(passes):
            dst = program.image(size)
            program.dispatch(
                "boxblur",
                words=(*size, horizontal, r, ww, fw),
                bindings=(current, dst),
                grid=size,
                invocation_work=invocation_work(r),
            )
            current = dst
    if current == src:  # both radii zero: Pillow returns a copy
        dst = program.image(size)
        program.dispatch(
            "boxblur",
            words=(*size, 1, 0, 16777216, 0),
            bindings=(src, dst),
            grid=size,
            invocation_work=invocation_work(0),
        )
        current = dst
    return current
