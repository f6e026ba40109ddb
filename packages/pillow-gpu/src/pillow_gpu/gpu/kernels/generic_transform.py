"""Pillow's generic transform on the device (AFFINE, QUAD and PERSPECTIVE maps; NEAREST,
BILINEAR and BICUBIC filters), in its double arithmetic.

``ImagingGenericTransform`` maps each output pixel centre through ``affine_transform`` or
``quad_transform`` and samples the source with Geometry.c's filters: the nearest pixel, or the
2x2 (bilinear) or 4x4 (bicubic) samples interpolated in doubles for 8-bit bands. The kernel
repeats each operation in software binary64 (``binary64.wgsli``). LA and RGBA are premultiplied
around the interpolating filters by the lowering, as Pillow converts them to La / RGBa.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels.binary64 import double_words

__all__ = ["KINDS", "MAPS", "lower"]

#: Mode -> the kernel's KIND (the bands the interpolating filters write; see the .wgsl).
KINDS = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4, "CMYK": 4, "RGBX": 4, "I": 5}
#: Bands each KIND filters (the shader work scales with them).
_BANDS = {1: 1, 2: 2, 3: 3, 4: 4, 5: 1}
#: Filter id -> shader-work units of one band: a word copy (NEAREST), 7 software double
#: operations (BILINEAR), about 40 (BICUBIC); the coordinates take about 20 (each operation
#: about 2 units; measured on lavapipe, about 1 ns a unit).
_BAND_WORK = {0: 0, 2: 14, 3: 80}
_COORDINATE_WORK = 40
#: Map -> the kernel's MAP and the coefficients Pillow's map reads.
MAPS = {"affine": (0, 6), "quad": (1, 8), "perspective": (2, 8)}
#: Shader-work units of a map's coordinates beyond the affine map's: two divisions of 54
#: restoring steps each (about 2 units a step).
_MAP_WORK = {"affine": 0, "quad": 0, "perspective": 220}


def lower(
    program: Program,
    src: int,
    src_size: tuple[int, int],
    size: tuple[int, int],
    *,
    kind: int,
    map_name: str,
    coefficients: tuple[float, ...],
    fill: int,
    resample: int,
    out_of_range: tuple[int, int] = (0, 0),
) -> int:
    """A new ``size`` image: ``src`` (LA/RGBA already premultiplied for the interpolating
    filters) through the ``map_name`` map with ``resample`` (0 NEAREST, 2 BILINEAR, 3 BICUBIC,
    Pillow's ids); ``kind`` is :data:`KINDS`' entry of the mode (any for NEAREST);
    ``out_of_range``: what this platform's (INT32) cast gives a double at or above 2**31 and
    below -2**31 (I only)."""
    map_id, count = MAPS[map_name]
    padded = [*coefficients[:count], *(0.0,) * (8 - count)]
    bits = double_words(padded).tolist()
    dst = program.image(size)
    program.dispatch(
        "generic_transform",
        words=(*size, *src_size, fill, *out_of_range, 0, *bits),
        bindings=(src, dst),
        grid=size,
        invocation_work=_COORDINATE_WORK
        + _MAP_WORK[map_name]
        + _BAND_WORK[resample] * _BANDS[kind],
        constants={"KIND": kind, "FILTER": resample, "MAP": map_id},
    )
    return dst
