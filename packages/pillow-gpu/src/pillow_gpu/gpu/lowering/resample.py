"""Planner lowerings of ``Image.resize`` (every filter, ``reducing_gap``) and ``Image.reduce``.

Pillow's Python layer is
replayed on the host: the same-size whole-box copy, LA/RGBA premultiplied to La/RGBa around
the work (premultiply kernel), and ``reducing_gap`` (reduce with Pillow's safe box, then
resize with the rescaled box). NEAREST uses host index tables (Pillow's scale walk; for the
16-bit modes the generic transform's formula, as ``_imaging.c`` passes them to
``ImagingTransform``, see ``lowering.affine``); BOX, BILINEAR, HAMMING,
BICUBIC and LANCZOS the two-pass resample kernel with host coefficient tables of at most
:data:`~pillow_gpu.gpu.kernels.resample.MAX_TABLE_WORDS` words per pass. Pillow's pass order
keeps the intermediate image within max(source, output) on each axis, so no larger than the
graph's pixel bound. MKS2013/MKS2021 are not proven.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import NATIVE_MODES, WIDE16_MODES
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import (
    affine_nearest,
    lut,
    premultiply,
    reduce,
    resample,
    resize_nearest,
)
from pillow_gpu.gpu.kernels.resample_coeffs import FILTERS
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Lowering, Route
from pillow_gpu.gpu.lowering.affine import generic_scale_tables

__all__ = ["LOWERINGS", "ROUTES", "lower_reduce", "lower_resize"]

_IDENTITY = np.stack([lut.IDENTITY] * 4)
_NAMES = {int(member): member.name for member in PILImage.Resampling}
_Box = tuple[float, float, float, float]
_IntBox = tuple[int, int, int, int]


def _reducing_step(
    method: int, src_size: tuple[int, int], size: tuple[int, int], box: _Box, gap: float
) -> tuple[tuple[int, int], _IntBox, _Box] | None:
    """Pillow's ``reducing_gap`` step: (factor, reduce box, box for the resize) or None."""
    factor_x = int((box[2] - box[0]) / size[0] / gap) or 1
    factor_y = int((box[3] - box[1]) / size[1] / gap) or 1
    if factor_x == 1 and factor_y == 1:
        return None
    support = PILImage._filters_support[PILImage.Resampling(method)] - 0.5  # _get_safe_box
    support_x = support * ((box[2] - box[0]) / size[0])
    support_y = support * ((box[3] - box[1]) / size[1])
    safe = (
        max(0, int(box[0] - support_x)),
        max(0, int(box[1] - support_y)),
        min(src_size[0], math.ceil(box[2] + support_x)),
        min(src_size[1], math.ceil(box[3] + support_y)),
    )
    rescaled = (
        (box[0] - safe[0]) / factor_x,
        (box[1] - safe[1]) / factor_y,
        (box[2] - safe[0]) / factor_x,
        (box[3] - safe[1]) / factor_y,
    )
    return (factor_x, factor_y), safe, rescaled


def lower_resize(program: Program, node: Node, ins: list[tuple[int, Node]]) -> int:
    """Lower ``Image.resize(size, resample, box, reducing_gap)``."""
    ((src, src_node),) = ins
    method = int(node.params["resample"])
    box: _Box = tuple(node.params["box"])
    if node.size == src_node.size and box == (0, 0, *src_node.size):  # Image.resize's copy
        return lut.lower(program, src, node.size, _IDENTITY)
    if method == PILImage.Resampling.NEAREST and src_node.mode in WIDE16_MODES:
        return _generic_nearest(program, node, src, src_node.size, box)
    if method == PILImage.Resampling.NEAREST:
        return resize_nearest.lower(program, src, src_node.size, node.size, box)
    if method not in FILTERS:
        raise unsupported(
            node,
            f"resize filter {_NAMES.get(method, method)} is not proven exact on the GPU",
            fix="use NEAREST, BOX, BILINEAR, HAMMING, BICUBIC or LANCZOS, or evaluate with "
            "to_pil()",
        )
    gap = node.params.get("reducing_gap")
    step = None if gap is None else _reducing_step(method, src_node.size, node.size, box, gap)
    size = src_node.size if step is None else reduce.output_size(step[0], step[1])
    box = box if step is None else step[2]
    words = resample.table_words(method, size, node.size, box)
    if words > resample.MAX_TABLE_WORDS:
        raise unsupported(
            node,
            f"the coefficient table of this resize needs {words} words, over the "
            f"{resample.MAX_TABLE_WORDS} bound",
            fix="resize in two steps (e.g. reduce() first) or evaluate with to_pil()",
        )
    plan = resample.plan_resize(method, size, node.size, box)
    mode = src_node.mode
    current = _premultiplied(program, src, mode, src_node.size)
    if step is not None:
        current = reduce.lower(program, current, mode, src_node.size, factor=step[0], box=step[1])
    out = resample.lower_passes(program, current, mode, size, plan)
    return _finish(program, src, out, mode, node.size)


def _generic_nearest(
    program: Program, node: Node, src: int, src_size: tuple[int, int], box: _Box
) -> int:
    """NEAREST resize of a 16-bit image: ``_imaging.c``'s matrix through the generic transform.

    The box is parsed as float32, so ``a0 = (double)(f32 box2 - f32 box0) / width`` and
    ``a2 = f32 box0`` (likewise the rows); ``a1 = a3 = 0``, so the tables are separable.
    """
    f32 = [np.float32(v) for v in box]
    a = [
        float(np.float32(f32[2] - f32[0])) / node.size[0],
        0.0,
        float(f32[0]),
        0.0,
        float(np.float32(f32[3] - f32[1])) / node.size[1],
        float(f32[1]),
    ]
    tables = generic_scale_tables(a, src_size, node.size)
    if tables is None:  # pragma: no cover - a finite box gives finite coordinates
        raise unsupported(node, "this resize box gives NaN source coordinates")
    return affine_nearest.lower_scale(program, src, src_size, node.size, tables=tables, fill=0)


def lower_reduce(program: Program, node: Node, ins: list[tuple[int, Node]]) -> int:
    """Lower ``Image.reduce(factor, box)`` (factor (1, 1) given as a tuple is a crop node)."""
    ((src, src_node),) = ins
    mode = src_node.mode
    current = _premultiplied(program, src, mode, src_node.size)
    factor = tuple(node.params["factor"])
    out = reduce.lower(program, current, mode, src_node.size, factor=factor, box=node.params["box"])
    return _finish(program, src, out, mode, node.size)


def _premultiplied(program: Program, src: int, mode: str, size: tuple[int, int]) -> int:
    if mode not in ("LA", "RGBA"):
        return src
    return premultiply.lower(program, src, size, mode, unpremultiply=False)


def _finish(program: Program, src: int, out: int, mode: str, size: tuple[int, int]) -> int:
    if mode in ("LA", "RGBA"):
        return premultiply.lower(program, out, size, mode, unpremultiply=True)
    if out == src:  # no pass ran: Pillow's ImagingCopy keeps every stored byte
        return lut.lower(program, src, size, _IDENTITY)
    return out


LOWERINGS: dict[str, Lowering] = {"resize": lower_resize, "reduce": lower_reduce}

ROUTES = (
    Route(
        operation="resize NEAREST",
        modes=NATIVE_MODES,
        kernel="resize_nearest",
        contexts="any size and box; host-built index tables",
    ),
    Route(
        operation="resize BOX / BILINEAR / HAMMING / BICUBIC / LANCZOS",
        modes=NATIVE_MODES,
        kernel="resample, resample_long (+reduce, premultiply)",
        contexts=(
            "any size, box and reducing_gap; Pillow 13's pass order; host fixed-point "
            f"coefficient tables of at most {resample.MAX_TABLE_WORDS} i32 words per pass, "
            "merged into dense windows of four outputs where they fit a uniform binding; "
            "LA/RGBA premultiplied around the work as Pillow does"
        ),
    ),
    Route(
        operation="Image.reduce",
        modes=NATIVE_MODES,
        kernel="reduce (+premultiply)",
        contexts="any factor and integer box; edge blocks average the pixels the box holds",
    ),
)
