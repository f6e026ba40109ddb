"""Box-blur line-pass kernel: ImageFilter.BoxBlur (n = 1) and GaussianBlur (n = 3)."""

from __future__ import annotations

import math

import numpy as np

from pillow_gpu.gpu._program import Program

__all__ = ["gaussian_box_radius", "lower", "weights"]


def gaussian_box_radius(radius: float, passes: int = 3) -> float:
    """Pillow's box radius (float32) for a Gaussian ``radius`` approximated by ``passes`` boxes."""
    sigma2 = np.float32(np.float32(radius) * np.float32(radius) / np.float32(passes))
    big_l = math.sqrt(12.0 * float(sigma2) + 1.0)
    small_l = math.floor((big_l - 1.0) / 2.0)
    a = (2 * small_l + 1) * (small_l * (small_l + 1) - 3 * float(sigma2))
    a /= 6 * (float(sigma2) - (small_l + 1) * (small_l + 1))
    return float(np.float32(small_l + a))


def weights(radius: float) -> tuple[int, int, int]:
    """(r, ww, fw) of one pass: integer radius and Pillow's 24-bit fixed-point weights."""
    fr = np.float32(radius)
    r = int(fr)
    ww = int(np.float32(16777216.0) / (fr * np.float32(2) + np.float32(1)))
    fw = (16777216 - (2 * r + 1) * ww) // 2
    return r, ww, fw


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
                "boxblur", words=(*size, horizontal, r, ww, fw), bindings=(current, dst), grid=size
            )
            current = dst
    if current == src:  # both radii zero: Pillow returns a copy
        dst = program.image(size)
        program.dispatch(
            "boxblur", words=(*size, 1, 0, 16777216, 0), bindings=(src, dst), grid=size
        )
        current = dst
    return current
