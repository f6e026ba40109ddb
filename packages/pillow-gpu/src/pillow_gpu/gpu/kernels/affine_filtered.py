"""Pillow's AFFINE transform with BILINEAR or BICUBIC on the device, in its double arithmetic.

``ImagingGenericTransform`` maps each output pixel centre through the matrix and
interpolates the 2x2 (bilinear) or 4x4 (bicubic) source samples in doubles (Geometry.c's
``bilinear_filter*`` / ``bicubic_filter*`` for 8-bit bands); the kernel repeats each operation
in software binary64 (``binary64.wgsli``). LA and RGBA are premultiplied around it by the
lowering, as Pillow converts them to La / RGBa.
"""

from __future__ import annotations

import numpy as np

from pillow_gpu.gpu._program import Program

__all__ = ["KINDS", "lower"]

#: Mode -> the kernel's KIND (the bands Pillow's filter writes; see affine_filtered.wgsl).
KINDS = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4, "CMYK": 4, "RGBX": 4}
#: Filter id -> shader-work units of one band: 7 software double operations (BILINEAR), about
#: 40 (BICUBIC); the coordinates take about 20 (each operation about 2 units).
_BAND_WORK = {2: 14, 3: 80}
_COORDINATE_WORK = 40


def lower(
    program: Program,
    src: int,
    src_size: tuple[int, int],
    size: tuple[int, int],
    *,
    mode: str,
    matrix: tuple[float, ...],
    fill: int,
    resample: int,
) -> int:
    """A new ``size`` image: ``src`` (LA/RGBA already premultiplied) through ``matrix`` with
    ``resample`` (2 BILINEAR, 3 BICUBIC, Pillow's ids)."""
    kind = KINDS[mode]
    bits = np.asarray(matrix[:6], dtype="<f8").view("<u4").tolist()
    dst = program.image(size)
    program.dispatch(
        "affine_filtered",
        words=(*size, *src_size, fill, 0, 0, 0, *bits),
        bindings=(src, dst),
        grid=size,
        invocation_work=_COORDINATE_WORK + _BAND_WORK[resample] * kind,
        constants={"KIND": kind, "FILTER": resample},
    )
    return dst
