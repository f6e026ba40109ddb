"""Planner lowerings of ``Image.resize`` (every filter, ``reducing_gap``) and ``Image.reduce``.

Pillow's Python layer is replayed on the host: the same-size whole-box copy, LA/RGBA
premultiplied to La/RGBa around the work (premultiply kernel), and ``reducing_gap`` (reduce
with Pillow's safe box, then resize with the rescaled box). NEAREST uses host index tables
(Pillow's scale walk; for the 16-bit modes the generic transform's formula, as ``_imaging.c``
passes them to ``ImagingTransform``, see ``lowering.affine``); BOX, BILINEAR, HAMMING,
BICUBIC and LANCZOS the two-pass resample kernel with host coefficient tables of at most
:data:`~pillow_gpu.gpu.kernels.resample.MAX_TABLE_WORDS` words per pass (I;16, I;16B, I;16L
and I: resample_wide, Pillow's double passes in software binary64; I's reduce: reduce_wide).
Pillow's pass order keeps the intermediate image within max(source, output) on each axis, so
no larger than the graph's pixel bound. MKS2013/MKS2021 are not proven.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES, WIDE16_MODES, band_twin
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import (
    affine_nearest,
    lut,
    premultiply,
    reduce,
    reduce_wide,
    resample,
    resample_wide,
    resize_nearest,
)
from pillow_gpu.gpu.kernels.resample_coeffs import FILTERS
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Lowering, Route
from pillow_gpu.gpu.lowering._platform import clamps_16bit, int_out_of_range
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
    mode = src_node.mode
    wide = mode in resample_wide.KINDS  # Pillow's double passes (resample_wide)
    words = resample.table_words(method, size, node.size, box, wide=wide)
    if words > resample.MAX_TABLE_WORDS:
        raise unsupported(
            node,
            f"the coefficient table of this resize needs {words} words, over the "
            f"{resample.MAX_TABLE_WORDS} bound",
            fix="resize in two steps (e.g. reduce() first) or evaluate with to_pil()",
        )
    plan = resample.plan_resize(method, size, node.size, box, wide=wide)
    if wide:
        _check_wide_passes(node, mode, plan)
    current = _premultiplied(program, src, mode, src_node.size)
    if step is not None:
        current = _reduced(program, node, current, src_node, factor=step[0], box=step[1])
    out = resample.lower_passes(  # Pillow resamples 8-bit images by band count
        program, current, band_twin(mode), size, plan, out_of_range=_out_of_range(node, mode)
    )
    return _finish(program, src, out, mode, node.size)


def _check_wide_passes(node: Node, mode: str, plan: resample.ResizePlan) -> None:
    """Refuse what the software double passes do not replay (never met in practice)."""
    for one in plan.passes:
        weights = np.abs(one.coefficients.weights)
        if np.any((weights > 0) & (weights < resample_wide.SMALLEST_WEIGHT)):  # pragma: no cover
            raise unsupported(node, "this resize has a weight too small for the exact passes")
    if mode != "I" and not clamps_16bit():  # pragma: no cover - Pillow version dependent
        raise unsupported(node, "this Pillow does not clamp 16-bit resampling results")


def _reduced(
    program: Program,
    node: Node,
    src: int,
    src_node: Node,
    *,
    factor: tuple[int, int],
    box: tuple[int, int, int, int],
) -> int:
    """``ImagingReduce`` of ``src`` (premultiplied for LA/RGBA): the 8-bit kernel, or for I
    Pillow's double sums (reduce_wide; the recorder raises Pillow's ValueError for I;16*)."""
    if src_node.mode not in resample_wide.KINDS:
        mode = band_twin(src_node.mode)  # Pillow reduces by band count
        return reduce.lower(program, src, mode, src_node.size, factor=factor, box=box)
    _check_block(node, factor)
    out_of_range = _out_of_range(node, src_node.mode)
    return reduce_wide.lower(
        program, src, src_node.size, factor=factor, box=box, out_of_range=out_of_range
    )


def _out_of_range(node: Node, mode: str) -> tuple[int, int]:
    """The I results of this platform's out-of-range casts (unused for the 16-bit modes)."""
    if mode != "I":
        return (0, 0)
    found = int_out_of_range()
    if found is None:  # pragma: no cover - platform dependent
        raise unsupported(node, "this Pillow's int cast of out-of-range I results is not uniform")
    return found


def _check_block(node: Node, factor: tuple[int, ...]) -> None:
    if factor[0] * factor[1] > reduce_wide.MAX_BLOCK:
        raise unsupported(
            node,
            f"a reduce block of {factor[0]}x{factor[1]} pixels of an I image could leave "
            "the range where Pillow's double sums are exact (2**53)",
            fix="reduce in two steps, or evaluate with to_pil()",
        )


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
    out = _reduced(program, node, current, src_node, factor=factor, box=node.params["box"])
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

_EIGHT_BIT = (*NATIVE_MODES, *LIMITED_MODES)
#: How the limited modes are resampled and reduced (their band twins).
_BY_BANDS = (
    "YCbCr, HSV and LAB as three bands (byte 3 written 0) and La and RGBa as two and four "
    "bands, without premultiplying them again, as Pillow resamples by band count"
)

ROUTES = (
    Route(
        operation="resize NEAREST",
        modes=_EIGHT_BIT,
        kernel="resize_nearest",
        contexts="any size and box; host-built index tables",
    ),
    Route(
        operation="resize BOX / BILINEAR / HAMMING / BICUBIC / LANCZOS",
        modes=_EIGHT_BIT,
        kernel="resample, resample_long (+reduce, premultiply)",
        contexts=(
            "any size, box and reducing_gap; Pillow 13's pass order; host fixed-point "
            f"coefficient tables of at most {resample.MAX_TABLE_WORDS} i32 words per pass, "
            "merged into dense windows of four outputs where they fit a uniform binding; "
            "LA/RGBA premultiplied around the work as Pillow does; " + _BY_BANDS
        ),
    ),
    Route(
        operation="resize BOX / BILINEAR / HAMMING / BICUBIC / LANCZOS (16/32-bit)",
        modes=tuple(resample_wide.KINDS),
        kernel="resample_wide",
        contexts=(
            "any size and box; reducing_gap on I (reduce_wide first; Pillow raises for the "
            "16-bit modes); Pillow's double sums and ROUND_UP in software binary64; 16-bit "
            "results clamped to 0..65535, I;16B's bytes read little-endian as Pillow does; "
            "out-of-range I results as this Pillow casts them; F refused"
        ),
    ),
    Route(
        operation="Image.reduce (I)",
        modes=("I",),
        kernel="reduce_wide",
        contexts=(
            "any factor and integer box, blocks below 2**21 pixels; Pillow's int32 group sums "
            "(wrapping) added in exact doubles, times 1.0 / pixels, ROUND_UP, in software "
            "binary64; F refused, the 16-bit modes raise Pillow's ValueError"
        ),
    ),
    Route(
        operation="Image.reduce",
        modes=_EIGHT_BIT,
        kernel="reduce (+premultiply)",
        contexts="any factor and integer box; edge blocks average the pixels the box holds; "
        + _BY_BANDS,
    ),
)
