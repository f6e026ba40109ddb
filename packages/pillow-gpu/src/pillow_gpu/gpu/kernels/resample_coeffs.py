"""Pillow's resampling filters and coefficient tables (double, and fixed point for 8-bit
images), computed on the host.

A transcription of ``precompute_coeffs`` and ``normalize_coeffs_8bpc`` (Pillow's
src/libImaging/Resample.c) in the C evaluation order: Python floats are IEEE doubles, the box
edges arrive as C floats (float32), ``(int)`` truncates toward zero, and the windowed filters
call ``math.sin``/``math.cos`` (the same libm Pillow uses). Results are checked byte for byte
against live Pillow by the parity tests.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "FILTERS",
    "PRECISION_BITS",
    "Coefficients",
    "kernel_size",
    "precompute",
    "precompute_doubles",
]

#: Fixed-point fraction bits of the 8-bit coefficients (32 - 8 - 2).
PRECISION_BITS = 22

_F054 = float(np.float32(0.54))  # the C source writes 0.54f and 0.46f
_F046 = float(np.float32(0.46))
_Vector = npt.NDArray[np.float64]


def _box(x: _Vector) -> _Vector:
    return np.where((x > -0.5) & (x <= 0.5), 1.0, 0.0)


def _bilinear(x: _Vector) -> _Vector:
    x = np.abs(x)
    return np.where(x < 1.0, 1.0 - x, 0.0)


def _bicubic(x: _Vector) -> _Vector:
    a = -0.5
    x = np.abs(x)
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


def _hamming_one(x: float) -> float:
    x = abs(x)
    if x == 0.0:
        return 1.0
    if x >= 1.0:
        return 0.0
    x = x * math.pi
    return math.sin(x) / x * (_F054 + _F046 * math.cos(x))


def _sinc(x: float) -> float:
    if x == 0.0:
        return 1.0
    x = x * math.pi
    return math.sin(x) / x


def _lanczos_one(x: float) -> float:
    if -3.0 <= x < 3.0:
        return _sinc(x) * _sinc(x / 3)
    return 0.0


def _elementwise(function: Callable[[float], float]) -> Callable[[_Vector], _Vector]:
    # libm sin/cos per element (numpy's vectorised sin may differ from libm in the last bit).
    def apply(x: _Vector) -> _Vector:
        return np.fromiter((function(v) for v in x.tolist()), dtype=np.float64, count=x.size)

    return apply


#: Pillow filter id -> (filter function on a vector of doubles, support).
FILTERS: dict[int, tuple[Callable[[_Vector], _Vector], float]] = {
    4: (_box, 0.5),  # BOX
    2: (_bilinear, 1.0),  # BILINEAR
    5: (_elementwise(_hamming_one), 1.0),  # HAMMING
    3: (_bicubic, 2.0),  # BICUBIC
    1: (_elementwise(_lanczos_one), 3.0),  # LANCZOS
}


@dataclass(frozen=True, slots=True)
class Coefficients:
    """One axis: per output ``bounds`` (first input, tap count) and ``ksize`` weights: i32
    fixed point with :data:`PRECISION_BITS` (:func:`precompute`) or Pillow's doubles
    (:func:`precompute_doubles`)."""

    ksize: int
    bounds: npt.NDArray[np.int64]  # (out, 2)
    weights: npt.NDArray[np.int64] | npt.NDArray[np.float64]  # (out, ksize)

    @property
    def max_taps(self) -> int:
        """The most taps any output reads."""
        return int(self.bounds[:, 1].max(initial=0))


def _scale(in0: float, in1: float, out_size: int) -> float:
    # (double)(in1 - in0) / outSize with in0/in1 C floats: the difference is a float32.
    return float(np.float32(np.float32(in1) - np.float32(in0))) / out_size


def kernel_size(resample: int, in0: float, in1: float, out_size: int) -> int:
    """``ksize`` of Pillow's coefficient buffer (cheap: no coefficients computed)."""
    support = FILTERS[resample][1] * max(_scale(in0, in1, out_size), 1.0)
    return math.ceil(support) * 2 + 1


@functools.lru_cache(maxsize=256)
def precompute_doubles(
    resample: int, in_size: int, in0: float, in1: float, out_size: int
) -> Coefficients:
    """``precompute_coeffs`` for one axis: the double weights the 16/32-bit passes use.

    Cached like :func:`precompute`; the returned arrays are read-only.
    """
    function, filter_support = FILTERS[resample]
    scale = _scale(in0, in1, out_size)
    filterscale = max(scale, 1.0)
    support = filter_support * filterscale
    ksize = math.ceil(support) * 2 + 1
    start = float(np.float32(in0))
    center = start + (np.arange(out_size, dtype=np.float64) + 0.5) * scale
    ss = 1.0 / filterscale
    xmin = np.maximum(np.trunc(center - support + 0.5), 0).astype(np.int64)
    xmax = np.minimum(np.trunc(center + support + 0.5), in_size).astype(np.int64) - xmin
    raw = np.zeros((out_size, ksize), dtype=np.float64)
    total = np.zeros(out_size, dtype=np.float64)
    for x in range(ksize):  # vectorised over outputs, sequential over taps (C order)
        live = x < xmax
        if not live.any():
            break
        w = function(((x + xmin[live]) - center[live] + 0.5) * ss)
        raw[live, x] = w
        total[live] += w
    divisor = np.where(total != 0.0, total, 1.0)
    raw = np.where((total != 0.0)[:, None], raw / divisor[:, None], raw)
    raw[np.arange(ksize)[None, :] >= xmax[:, None]] = 0.0
    bounds = np.stack([xmin, xmax], axis=1)
    bounds.flags.writeable = False
    raw.flags.writeable = False
    return Coefficients(ksize=ksize, bounds=bounds, weights=raw)


@functools.lru_cache(maxsize=256)
def precompute(resample: int, in_size: int, in0: float, in1: float, out_size: int) -> Coefficients:
    """``precompute_coeffs`` + ``normalize_coeffs_8bpc`` for one axis: the 8-bit passes'
    fixed-point weights.

    Cached (a batch usually resizes many images between the same sizes; the tables dominate
    planning time otherwise); the returned arrays are read-only.
    """
    doubles = precompute_doubles(resample, in_size, in0, in1, out_size)
    raw = doubles.weights
    scaled = raw * float(1 << PRECISION_BITS)
    fixed = np.trunc(np.where(raw < 0, -0.5 + scaled, 0.5 + scaled)).astype(np.int64)
    fixed.flags.writeable = False
    return Coefficients(ksize=doubles.ksize, bounds=doubles.bounds, weights=fixed)
