"""Lowerings of ``Image.filter`` with Pillow's filters: box and Gaussian blur, rank filters,
ModeFilter, UnsharpMask and convolution kernels (ImageEnhance.Sharpness builds on the last)."""

from __future__ import annotations

import operator
from typing import Any

from PIL import ImageFilter

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import (
    INDEXED_MODES,
    LIMITED_MODES,
    NATIVE_MODES,
    WIDE16_MODES,
    band_mask,
)
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import (
    boxblur,
    convolve,
    convolve_wide,
    modefilter,
    rank,
    rank_int,
    unsharp,
)
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route, require_mode
from pillow_gpu.gpu.lowering._platform import convolves_16bit_values, convolves_int32_values

__all__ = [
    "BAND_FILTER_MODES",
    "BOX_FILTER_MODES",
    "CONVOLUTION_MODES",
    "FILTER_MODES",
    "KERNEL_FILTER_MODES",
    "LOWERINGS",
    "MAX_BLUR_RADIUS",
    "MODE_FILTER_MODES",
    "RANK_FILTER_MODES",
    "ROUTES",
    "blur_passes",
    "convolution",
    "unsharp_args",
]

#: Largest box radius (per axis, after the Gaussian conversion) the blur routes admit.
MAX_BLUR_RADIUS = 256.0
#: Modes every filter route admits (Pillow filters each stored band).
FILTER_MODES = NATIVE_MODES
#: Modes of the kernel, rank and mode filters: Pillow's C code takes them by band count, so the
#: limited modes run as their band twins (``_layout.BAND_TWINS``).
BAND_FILTER_MODES = (*NATIVE_MODES, *LIMITED_MODES)
#: Modes of the box filters (BoxBlur, GaussianBlur, UnsharpMask): Pillow's own list, which
#: takes La and RGBa and raises for YCbCr, HSV and LAB.
BOX_FILTER_MODES = (*NATIVE_MODES, "La", "RGBa")
#: Modes of the kernel and rank filters: the band-count modes and 1, whose stored byte
#: (0/255, or any value a point table gave it) Pillow filters as an L image's; it raises
#: "cannot filter palette images" for P.
KERNEL_FILTER_MODES = (*BAND_FILTER_MODES, "1")
#: Modes of the convolution kernels: those, the 16-bit modes and I, whose values Pillow filters
#: in float32 as it filters bytes (Filter.c's kernel_i16 and INT32 branch), clamped to
#: 0..65535 and by clip32.
CONVOLUTION_MODES = (*KERNEL_FILTER_MODES, *WIDE16_MODES, "I")
#: Modes of ModeFilter: those and P, whose palette index Pillow filters (the palette kept).
MODE_FILTER_MODES = (*KERNEL_FILTER_MODES, "P")
#: Modes of the rank filters: the kernel filters' and I, whose int32 values Pillow selects
#: (F's floats, whose -0.0 and NaN order depends on its quickselect, are not admitted).
RANK_FILTER_MODES = (*KERNEL_FILTER_MODES, "I")

_Blur = ImageFilter.BoxBlur | ImageFilter.GaussianBlur
_Convolution = ImageFilter.Kernel | ImageFilter.BuiltinFilter


def blur_passes(node: Node, instance: _Blur) -> tuple[tuple[float, float], int]:
    """The admitted (x, y) box radii and pass count of a BoxBlur or GaussianBlur ``instance``.

    GaussianBlur converts each radius to Pillow's box radius for three passes. Raises
    ``Unsupported`` when a box radius is outside the proven 0..256 range.
    """
    xy = instance.radius
    radii = (float(xy), float(xy)) if isinstance(xy, (int, float)) else tuple(map(float, xy))
    passes = 1
    if isinstance(instance, ImageFilter.GaussianBlur):
        radii = tuple(boxblur.gaussian_box_radius(r) for r in radii)
        passes = 3
    if max(radii) > MAX_BLUR_RADIUS or min(radii) < 0:
        raise unsupported(node, f"blur radius {radii} is outside the proven 0..256 range")
    return (radii[0], radii[1]), passes


def unsharp_args(node: Node, instance: ImageFilter.UnsharpMask) -> tuple[float, int, int]:
    """The admitted (box radius, percent, threshold) of an UnsharpMask ``instance``.

    Raises ``Unsupported`` for a box radius outside 0..256 or a percent where Pillow's integer
    arithmetic overflows.
    """
    # Pillow: ImagingGaussianBlur(radius, radius, 3), then per stored byte the combine.
    box_radius = boxblur.gaussian_box_radius(float(instance.radius))
    if not 0 <= box_radius <= MAX_BLUR_RADIUS:
        raise unsupported(
            node,
            f"UnsharpMask radius {instance.radius!r} gives box radius {box_radius:g}, outside "
            f"the proven 0..{MAX_BLUR_RADIUS:g} range",
            fix="use a smaller radius or evaluate with to_pil()",
        )
    percent = operator.index(instance.percent)
    if abs(percent) > unsharp.MAX_PERCENT:
        raise unsupported(
            node,
            f"UnsharpMask percent {percent} is outside +-{unsharp.MAX_PERCENT}, where Pillow's "
            "integer arithmetic overflows",
            fix=f"use |percent| <= {unsharp.MAX_PERCENT} or evaluate with to_pil()",
        )
    return box_radius, percent, operator.index(instance.threshold)


def _mask(node: Node) -> int:
    """The stored bytes a single-band filter writes: the bands' bytes, every byte of a P or 1
    word (each holds the stored byte, so each is filtered alike and the word stays one)."""
    mode = node.inputs[0].mode
    return 0xFFFFFFFF if mode in INDEXED_MODES else band_mask(mode)


def _blur(program: Program, node: Node, src: int, instance: _Blur) -> int:
    radii, passes = blur_passes(node, instance)
    return boxblur.lower(program, src, node.size, radii, passes)


def _rank(program: Program, node: Node, src: int, instance: ImageFilter.RankFilter) -> int:
    if instance.size > rank.MAX_SIZE:
        raise unsupported(node, f"rank filter size {instance.size} exceeds {rank.MAX_SIZE}")
    if node.inputs[0].mode == "I":
        return rank_int.lower(program, src, node.size, window=instance.size, rank=instance.rank)
    return rank.lower(
        program,
        src,
        node.size,
        window=instance.size,
        rank=instance.rank,
        mask=_mask(node),
    )


def _mode_filter(program: Program, node: Node, src: int, instance: ImageFilter.ModeFilter) -> int:
    # Pillow filters each band alone (ModeFilter is no MultibandFilter): the mask picks them.
    size = operator.index(instance.size)
    if size > modefilter.MAX_SIZE:
        raise unsupported(
            node,
            f"mode filter size {size} exceeds the proven maximum {modefilter.MAX_SIZE}",
            fix=f"use ModeFilter(size <= {modefilter.MAX_SIZE}) or evaluate with to_pil()",
        )
    half = modefilter.half_window(size)
    return modefilter.lower(program, src, node.size, half=half, mask=_mask(node))


def _unsharp_mask(program: Program, node: Node, src: int, instance: ImageFilter.UnsharpMask) -> int:
    box_radius, percent, threshold = unsharp_args(node, instance)
    return unsharp.lower(
        program, src, node.size, box_radius=box_radius, percent=percent, threshold=threshold
    )


def convolution(
    program: Program,
    node: Node,
    src: int,
    instance: _Convolution,
    *,
    packed: bool = False,
    columns: int | None = None,
) -> int:
    """Lower an ``ImageFilter.Kernel`` or built-in kernel filter (3x3 or 5x5) on ``src``;
    ``packed``: ``src`` is packed L (``gpu._packed_l``), ``columns`` words to a row."""
    (kw, kh), scale, offset, weights = instance.filterargs
    if (kw, kh) not in ((3, 3), (5, 5)):
        raise unsupported(node, f"kernel size {kw}x{kh} is not 3x3 or 5x5")
    if node.mode in WIDE16_MODES or node.mode == "I":
        return _wide_convolution(program, node, src, kw, instance.filterargs)
    return convolve.lower(
        program,
        src,
        node.size,
        ksize=kw,
        kernel=weights,
        scale=scale,
        offset=offset,
        mask=_mask(node),
        packed=packed,
        columns=columns,
    )


def _wide_convolution(
    program: Program, node: Node, src: int, ksize: int, filterargs: tuple[Any, ...]
) -> int:
    """A kernel filter of a 16-bit or I image's values (``kernels.convolve_wide``)."""
    _, scale, offset, weights = filterargs
    wide16 = node.mode in WIDE16_MODES
    if not (convolves_16bit_values() if wide16 else convolves_int32_values()):
        raise unsupported(
            node,
            f"this Pillow's ImageFilter.Kernel of {node.mode} images is not the float32 replay "
            "the GPU runs (values and products rounded to float32, then added in order)",
        )
    if not wide16 and not convolve_wide.admits(weights, scale, offset):
        raise unsupported(
            node,
            "ImageFilter.Kernel of an I image is proven for coefficients (weight / scale) of 0 "
            "or magnitudes 2^-100 .. 2^90 and an offset that is not NaN (else products leave "
            "float32's normal range, and a NaN sum is cast to an int as the platform does)",
        )
    return convolve_wide.lower(
        program,
        src,
        node.size,
        ksize=ksize,
        kernel=weights,
        scale=scale,
        offset=offset,
        int32=not wide16,
    )


def _filter(program: Program, node: Node, ins: Inputs) -> int:
    instance = node.params["filter"]
    src = ins[0][0]
    if isinstance(instance, (ImageFilter.BoxBlur, ImageFilter.GaussianBlur)):
        require_mode(node, BOX_FILTER_MODES, type(instance).__name__)
        return _blur(program, node, src, instance)
    if isinstance(instance, ImageFilter.RankFilter):
        require_mode(node, RANK_FILTER_MODES, type(instance).__name__)
        return _rank(program, node, src, instance)
    if isinstance(instance, ImageFilter.ModeFilter):
        require_mode(node, MODE_FILTER_MODES, "ModeFilter")
        return _mode_filter(program, node, src, instance)
    if isinstance(instance, ImageFilter.UnsharpMask):
        require_mode(node, BOX_FILTER_MODES, "UnsharpMask")
        return _unsharp_mask(program, node, src, instance)
    if isinstance(instance, ImageFilter.Kernel | ImageFilter.BuiltinFilter):
        require_mode(node, CONVOLUTION_MODES, "ImageFilter.Kernel")
        return convolution(program, node, src, instance)
    raise unsupported(node, f"filter {type(instance).__name__} has no proven GPU route")


LOWERINGS: dict[str, Lowering] = {"filter": _filter}

ROUTES = (
    Route(
        operation="BoxBlur / GaussianBlur",
        modes=BOX_FILTER_MODES,
        kernel="boxblur",
        contexts=f"radius (or per-axis radii) with box radius <= {MAX_BLUR_RADIUS:g}; L runs four "
        "pixels to a word (Pillow's packed rows, or rows of whole words where the width does not "
        "divide by four)",
    ),
    Route(
        operation="MedianFilter / MinFilter / MaxFilter / RankFilter",
        modes=RANK_FILTER_MODES,
        kernel="rank",
        contexts=f"odd size <= {rank.MAX_SIZE}; L runs four pixels to a word (Pillow's packed "
        "rows, or rows of whole words where the width does not divide by four); 1 on its "
        "stored byte; I on its int32 values (rank_int: a partial selection sort)",
    ),
    Route(
        operation="ModeFilter",
        modes=MODE_FILTER_MODES,
        kernel="modefilter",
        contexts=f"any size <= {modefilter.MAX_SIZE} (even sizes and sizes <= 2 as Pillow "
        "treats them); per band, clipped window, ties to the smallest value; 1 on its stored "
        "byte, P on its palette index (the palette kept)",
    ),
    Route(
        operation="UnsharpMask",
        modes=BOX_FILTER_MODES,
        kernel="boxblur+unsharp",
        contexts=f"Gaussian box radius <= {MAX_BLUR_RADIUS:g}, percent within +-"
        f"{unsharp.MAX_PERCENT}, any threshold; every stored byte (alpha, RGB padding, X)",
    ),
    Route(
        operation="ImageFilter.Kernel and built-in kernels",
        modes=CONVOLUTION_MODES,
        kernel="convolve / convolve_wide",
        contexts="3x3 and 5x5; L runs four pixels to a word (Pillow's packed rows, or rows of "
        "whole words where the width does not divide by four); 1 on its stored byte (the "
        "result stores any value, as Pillow's); I;16, I;16L and I;16B on their 16-bit values "
        "(host tables of every value's product with each distinct coefficient); I on its int32 "
        "values, each product formed exactly in integer arithmetic, for coefficients of 0 or "
        "magnitudes 2^-100 .. 2^90",
    ),
    Route(
        operation="ImageEnhance.Sharpness",
        modes=(*FILTER_MODES, "YCbCr", "La", "RGBa", "HSV"),
        kernel="convolve+bands+chops",
        contexts="any factor; recorded as filter(SMOOTH), putalpha of the alpha, blend (LAB: "
        "Pillow raises, and so does the recording)",
    ),
)
