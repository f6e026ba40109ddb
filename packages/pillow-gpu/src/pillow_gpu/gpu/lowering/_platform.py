"""What this Pillow build does where C leaves the result open, read off live Pillow once.

The GPU routes replay Pillow's C arithmetic; where the C standard leaves a result to the
platform (an out-of-range ``(int)`` cast, a signed ``int`` overflow) or Pillow changed between
versions (16-bit clamping), these probes run a tiny case through live Pillow and compare it
with the replay, and the lowerings refuse what a probe does not confirm.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image as PILImage
from PIL import ImageFilter

from pillow_gpu.gpu.kernels import convolve_wide
from pillow_gpu.gpu.kernels.resample_coeffs import precompute_doubles

__all__ = [
    "clamps_16bit",
    "convolves_16bit_values",
    "convolves_int32_values",
    "filters_16bit_bytes",
    "filters_wrap_int32",
    "int_out_of_range",
]


def _replayed_rounding(rows: list[list[int]], width: int) -> list[list[int]]:
    """``ROUND_UP`` of each output of a horizontal BICUBIC pass over ``rows`` to ``width``,
    unclipped: Pillow's double sums replayed in its order (Python floats are the same
    doubles), with C's truncating cast."""
    method = int(PILImage.Resampling.BICUBIC)
    weights = precompute_doubles(method, len(rows[0]), 0.0, float(len(rows[0])), width)
    out = []
    for row in rows:
        values = []
        for x, (first, taps) in enumerate(weights.bounds.tolist()):
            total = 0.0
            for t in range(taps):
                total += row[first + t] * float(weights.weights[x, t])
            values.append(math.trunc(total + 0.5 if total >= 0 else total - 0.5))
        out.append(values)
    return out


def _live_pass(rows: list[list[int]], mode: str, dtype: str, width: int) -> list[list[int]]:
    image = PILImage.frombytes(mode, (len(rows[0]), len(rows)), np.array(rows, dtype).tobytes())
    got = image.resize((width, len(rows)), PILImage.Resampling.BICUBIC).tobytes()
    return np.frombuffer(got, dtype).reshape(len(rows), width).tolist()


@functools.cache
def int_out_of_range() -> tuple[int, int] | None:
    """What this Pillow's ``ROUND_UP`` gives for I results at or above 2**31 and below -2**31
    (C leaves the cast undefined; x86-64 gives -2**31 for both), or None when live Pillow
    does not give one value per side: two rows that BICUBIC overshoots past each end."""
    top, bottom = 2**31 - 1, -(2**31)
    rows = [[bottom, top, top, bottom], [top, bottom, bottom, top]]
    sides: dict[bool, set[int]] = {True: set(), False: set()}
    replayed = _replayed_rounding(rows, 9)
    for want, got in zip(replayed, _live_pass(rows, "I", "<i4", 9), strict=True):
        for rounded, value in zip(want, got, strict=True):
            if not bottom <= rounded <= top:
                sides[rounded > 0].add(value)
    if len(sides[True]) != 1 or len(sides[False]) != 1:
        return None
    return sides[True].pop(), sides[False].pop()


@functools.cache
def clamps_16bit() -> bool:
    """True when live Pillow clamps a 16-bit resampling result to 0..65535, as 13.0 does (the
    older 16bpc pass clipped each byte, wrapping the low byte of results above 65535)."""
    rows = [[0, 65535, 65535, 0, 0, 65535, 12345, 0], [65535, 0, 0, 65535, 65535, 0, 7, 65535]]
    replayed = _replayed_rounding(rows, 19)
    clamped = [[min(max(value, 0), 65535) for value in row] for row in replayed]
    overshoots = any(not 0 <= value <= 65535 for row in replayed for value in row)
    return overshoots and clamped == _live_pass(rows, "I;16", "<u2", 19)


def _wrapped(value: int) -> int:
    """``value`` as a C int that wrapped around (two's complement, 32 bits)."""
    return (value + 2**31) % 2**32 - 2**31


def _clip(value: int, size: int) -> int:
    return min(max(value, 0), size - 1)


def _cubic(values: Sequence[float], d: float) -> float:
    """Pillow's BICUBIC macro of four doubles."""
    v1, v2, v3, v4 = values
    p1, p2 = v2, -v1 + v3
    p3, p4 = 2 * (v1 - v2) + v3 - v4, -v1 + v2 - v3 + v4
    return p1 + d * (p2 + d * (p3 + d * p4))


def _cubic_ints(values: Sequence[int], d: float) -> float:
    """The BICUBIC macro on one row of C ints: each p an int that may wrap."""
    v1, v2, v3, v4 = values
    p1, p2 = float(v2), float(_wrapped(-v1 + v3))
    p3 = float(_wrapped(2 * (v1 - v2) + v3 - v4))
    p4 = float(_wrapped(-v1 + v2 - v3 + v4))
    return p1 + d * (p2 + d * (p3 + d * p4))


def _replayed_filter(rows: list[list[int]], xin: float, yin: float, bicubic: bool) -> float:
    """Geometry.c's bilinear or bicubic filter of an I image at (xin, yin), inside it."""
    height, width = len(rows), len(rows[0])
    xin, yin = xin - 0.5, yin - 0.5
    x, y = math.floor(xin), math.floor(yin)
    dx, dy = xin - x, yin - y

    def inside(row: int) -> bool:
        return 0 <= row < height

    if not bicubic:

        def lerp(row: list[int]) -> float:
            a, b = row[_clip(x, width)], row[_clip(x + 1, width)]
            return a + _wrapped(b - a) * dx

        v1 = lerp(rows[_clip(y, height)])
        v2 = lerp(rows[y + 1]) if inside(y + 1) else v1
        return v1 + (v2 - v1) * dy
    x, y = x - 1, y - 1
    columns = [_clip(x + k, width) for k in range(4)]
    values = [_cubic_ints([rows[_clip(y, height)][c] for c in columns], dx)]
    for k in (1, 2, 3):
        row = y + k
        values.append(
            _cubic_ints([rows[row][c] for c in columns], dx) if inside(row) else values[-1]
        )
    return _cubic(values, dy)


@functools.cache
def filters_wrap_int32() -> bool:
    """Whether live Pillow's BILINEAR and BICUBIC filters of an I image compute a row's
    differences in C ints that wrap on overflow (x86-64 builds do; C leaves it undefined): a
    4 x 4 image of extreme values, shifted by a fraction, against the replay."""
    top, bottom = 2**31 - 1, -(2**31)
    rows = [[top, bottom, 5, -7], [bottom, top, 100, 3], [1, 2, 3, 4], [top, top, bottom, 0]]
    matrix = (1, 0, 0.3, 0, 1, 0.45)
    image = PILImage.fromarray(np.array(rows, dtype=np.int32), "I")
    for resample in (PILImage.Resampling.BILINEAR, PILImage.Resampling.BICUBIC):
        out = image.transform((4, 4), PILImage.Transform.AFFINE, matrix, resample)
        live = np.asarray(out).tolist()
        for y in range(4):
            for x in range(4):
                xin = matrix[0] * (x + 0.5) + matrix[1] * (y + 0.5) + matrix[2]
                yin = matrix[3] * (x + 0.5) + matrix[4] * (y + 0.5) + matrix[5]
                if not (0 <= xin < 4 and 0 <= yin < 4):
                    continue
                value = _replayed_filter(rows, xin, yin, resample == PILImage.Resampling.BICUBIC)
                if bottom <= value < top + 1 and math.trunc(value) != live[y][x]:
                    return False
    return True


def _first_bytes(image: PILImage.Image, fill: int) -> list[int]:
    """The 16-bit values whose first stored byte is each pixel of the L ``image`` and whose
    other byte is ``fill``'s (as a filter writing one byte over Image.new's fill leaves it)."""
    return (np.asarray(image, dtype=np.uint32).ravel() | (fill & 0xFF00)).tolist()


@functools.cache
def filters_16bit_bytes() -> bool:
    """Whether live Pillow's BILINEAR and BICUBIC transforms of an I;16 image run its 8-bit
    filters over the rows' stored bytes, writing each result as the pixel's first byte (as
    13.0's ``getfilter`` does: the 2-byte modes keep 8-bit rows): a 6 x 3 image of distinct
    bytes, rotated, against the same transform of the L image of its rows' first 6 bytes."""
    width, height = 6, 3
    stored = bytes(range(7, 7 + 2 * width * height * 5, 5))
    image = PILImage.frombytes("I;16", (width, height), stored)
    rows = PILImage.frombytes("L", (2 * width, height), stored).crop((0, 0, width, height))
    for resample in (PILImage.Resampling.BILINEAR, PILImage.Resampling.BICUBIC):
        for fill in (None, 0x2A51):
            low = None if fill is None else fill & 0xFF
            live = image.rotate(21.5, resample, fillcolor=fill)
            replayed = _first_bytes(rows.rotate(21.5, resample, fillcolor=low), fill or 0)
            if np.frombuffer(live.tobytes(), "<u2").tolist() != replayed:
                return False
    return True


#: The probes of :func:`convolves_16bit_values` and :func:`convolves_int32_values`: (size,
#: weights, scale, offset) of each kernel, with coefficients whose products and sums round
#: differently when a multiply and an add are fused (the probes' tests show a fused replay
#: fails them); the 16-bit one also with a zero scale (infinities and NaN).
_CONVOLUTION_PROBES = (
    (3, (1.1, -2.3, 3.7, -4.9, 5.3, -6.1, 7.9, -8.7, 9.3), 0.37, -1000.25),
    (5, tuple(math.sin(1.7 * i) * 3.1 for i in range(25)), 1.3, 33.3),
)
_ZERO_SCALE_PROBE = (3, (1, 1, 1, 1, -8, 1, 1, 1, 1), 0.0, 0.0)


def _convolves_like_replay(
    values: np.ndarray, modes: Sequence[tuple[str, str]], high: int, probes: Sequence[Any]
) -> bool:
    """Whether live Pillow's ``ImageFilter.Kernel`` of ``values`` in each (mode, dtype) is
    ``kernels.convolve_wide.replay`` clamped to 0..``high``, for every kernel of ``probes``."""
    height, width = values.shape
    for size, weights, scale, offset in probes:
        want = convolve_wide.replay(
            values, ksize=size, kernel=weights, scale=scale, offset=offset, high=high
        )
        for mode, dtype in modes:
            image = PILImage.frombytes(mode, (width, height), values.astype(dtype).tobytes())
            kernel = ImageFilter.Kernel((size, size), weights, scale=scale, offset=offset)
            live = np.frombuffer(image.filter(kernel).tobytes(), dtype).reshape(height, width)
            if not np.array_equal(live, want):
                return False
    return True


@functools.cache
def convolves_16bit_values() -> bool:
    """Whether live Pillow's ``ImageFilter.Kernel`` of I;16 and I;16B images is the float32
    replay (13.0's ``kernel_i16``: products rounded to float32, then added in order, no fused
    multiply-add): kernels of awkward coefficients over 40 x 9 images of spread values."""
    values = np.random.default_rng(16).integers(0, 65536, (9, 40))
    values[0, :8] = (0, 1, 2, 255, 256, 32767, 65534, 65535)
    modes = (("I;16", "<u2"), ("I;16B", ">u2"))
    return _convolves_like_replay(values, modes, 65535, (*_CONVOLUTION_PROBES, _ZERO_SCALE_PROBE))


@functools.cache
def convolves_int32_values() -> bool:
    """Whether live Pillow's ``ImageFilter.Kernel`` of I images is the float32 replay (13.0's
    INT32 branch: each int converted and each product rounded to float32, added in order, then
    clip32): the same kernels over int32 values that round when converted, and the extremes."""
    values = np.random.default_rng(32).integers(-(2**31), 2**31, (9, 40))
    values[0, :8] = (0, 1, -1, 2**24 + 1, 2**24 + 3, -(2**31), 2**31 - 1, 2**31 - 65)
    return _convolves_like_replay(values, (("I", "<i4"),), 2**31 - 1, _CONVOLUTION_PROBES)
