"""Planner lowering of ``Image.transform`` (and so ``Image.rotate``) with AFFINE + NEAREST.

Pillow's ``ImagingTransformAffine`` (Geometry.c) picks one of three paths for NEAREST on 8-bit
images: ``ImagingScaleAffine`` when ``a[1] == 0 and a[3] == 0`` (index tables from a double
walk, replayed here on the host in the same IEEE double order), ``affine_fixed`` when all four
output corners map within +-32768 (``check_fixed``; 16.16 fixed-point integer arithmetic after
the host computes Pillow's ``FIX()`` constants in double), else a double-precision walk. The
first two are integer-exact on the device; everything else (BILINEAR/BICUBIC, the double
fallback, EXTENT/PERSPECTIVE/QUAD/MESH) is rejected at admission.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import NATIVE_MODES, ink
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import affine_nearest
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Lowering, Route

__all__ = ["LOWERINGS", "ROUTES", "fixed_constants", "lower_transform", "scale_table"]


_FIX_LIMIT = 2**31


def scale_table(offset: float, step: float, source: int, count: int) -> npt.NDArray[np.int64]:
    """ImagingScaleAffine's table: v = offset + step * 0.5, then v += step; -1 outside."""
    table = np.full(count, -1, dtype=np.int64)
    position = offset + step * 0.5
    for i in range(count):
        # COORD(v): v < 0 -> -1, else (int)v; non-finite values land outside as in C.
        if math.isfinite(position) and 0 <= position < source:
            table[i] = int(position)
        position += step
    return table


def _check_fixed(a: Sequence[float], x: int, y: int) -> bool:
    return abs(x * a[0] + y * a[1] + a[2]) < 32768.0 and abs(x * a[3] + y * a[4] + a[5]) < 32768.0


def _fix(value: float) -> int:
    return math.floor(value * 65536.0 + 0.5)


def fixed_constants(
    a: Sequence[float], size: tuple[int, int]
) -> tuple[int, int, int, int, int, int] | None:
    """``affine_fixed``'s (a0, a1, a2, a3, a4, a5), or None where Pillow takes another path."""
    w, h = size
    if not all(_check_fixed(a, x, y) for x, y in ((0, 0), (w, h), (0, h), (w, 0))):
        return None
    return (
        _fix(a[0]),
        _fix(a[1]),
        _fix(a[2] + a[0] * 0.5 + a[1] * 0.5),
        _fix(a[3]),
        _fix(a[4]),
        _fix(a[5] + a[3] * 0.5 + a[4] * 0.5),
    )


def lower_transform(program: Program, node: Node, ins: list[tuple[int, Node]]) -> int:
    """Lower ``Image.transform(size, AFFINE, data, NEAREST, fillcolor=...)``."""
    ((src, src_node),) = ins
    params = node.params
    if params["method"] != PILImage.Transform.AFFINE:
        name = PILImage.Transform(params["method"]).name
        raise unsupported(node, f"transform method {name} has no proven GPU route")
    if params["resample"] != PILImage.Resampling.NEAREST:
        name = PILImage.Resampling(params["resample"]).name
        raise unsupported(
            node,
            f"transform/rotate with {name} is not proven exact on the GPU (Pillow interpolates "
            "in double precision)",
            fix="use resample=NEAREST, or evaluate with to_pil()",
        )
    a = [float(v) for v in params["data"][:6]]
    colour = params["fillcolor"]
    fill = 0 if colour is None else ink(node.mode, colour)
    if a[1] == 0 and a[3] == 0:
        xs = scale_table(a[2], a[0], src_node.size[0], node.size[0])
        ys = scale_table(a[5], a[4], src_node.size[1], node.size[1])
        return affine_nearest.lower_scale(
            program, src, src_node.size, node.size, tables=(xs, ys), fill=fill
        )
    fixed = fixed_constants(a, node.size)
    if fixed is None or any(abs(v) >= _FIX_LIMIT for v in fixed):
        raise unsupported(
            node,
            "this affine matrix maps an output corner outside +-32768 (or overflows 16.16), "
            "where Pillow uses its double-precision walk, which is not proven on the GPU",
            fix="use a matrix whose output corners map within +-32768, or evaluate with to_pil()",
        )
    return affine_nearest.lower_fixed(
        program, src, src_node.size, node.size, fixed=fixed, fill=fill
    )


LOWERINGS: dict[str, Lowering] = {"transform": lower_transform}

ROUTES = (
    Route(
        operation="Image.transform AFFINE / Image.rotate (NEAREST)",
        modes=NATIVE_MODES,
        kernel="affine_nearest",
        contexts=(
            "NEAREST only; Pillow's scale path (a[1] == a[3] == 0, host index tables) and its "
            "16.16 fixed-point path (all corners within +-32768); fillcolor None (0) or any "
            "colour; rotate's 0/90/180/270 shortcuts are copies/transposes; the double fallback, "
            "BILINEAR/BICUBIC and other methods rejected"
        ),
    ),
)
