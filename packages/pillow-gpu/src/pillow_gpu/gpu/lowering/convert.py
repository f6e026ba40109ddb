"""Lowerings of ``convert`` (native sources), ``getchannel`` and ``ImageOps.colorize``.

P, PA and 1 sources and targets are lowered by :mod:`pillow_gpu.gpu.lowering.indexed`, and
conversions with YCbCr, La or RGBa on either side by :mod:`pillow_gpu.gpu.lowering.limited`.
Every conversion Pillow performs between the native layouts is one ``convert`` dispatch
(identities excepted: the lazy ``convert`` records none for them, as Pillow copies; and the
ones :mod:`pillow_gpu.gpu._packed_l` lowers first: RGB, RGBA, RGBX or LA to L, written as
packed L by ``pack_l`` (the luma or the L byte) where the L image's consumers take it, as is
``getchannel``, and L to LA, RGB, RGBA or RGBX, widened from packed L in one ``unpack``);
``convert(mode, matrix)`` of an RGB image is one ``convert_matrix`` dispatch.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import (
    INDEXED_MODES,
    LIMITED_MODES,
    NATIVE_MODES,
    PALETTE_ALPHA_MODES,
    band_bytes,
)
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import convert, convert_matrix
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route
from pillow_gpu.gpu.lowering.indexed import (
    lower_from_palette_alpha,
    lower_indexed_convert,
    lower_to_indexed,
    lower_to_palette_alpha,
)
from pillow_gpu.gpu.lowering.limited import lower_indexed_to_limited, lower_limited_convert
from pillow_gpu.gpu.lowering.wide import WIDE_MODES, lower_wide_convert

__all__ = ["LOWERINGS", "MATRIX_BOUND", "ROUTES"]

#: Largest matrix coefficient magnitude admitted: sums of three products of bytes stay finite
#: in float32 (no infinity or NaN ever reaches the kernel's clip).
MATRIX_BOUND = 1e35

_TRANSPARENT_PAIRS = (
    ("L", "LA"),
    ("L", "RGBA"),
    ("RGB", "LA"),
    ("RGB", "RGBA"),
    ("RGB", "La"),
    ("RGB", "RGBa"),
)


#: Targets a wide image reaches through Pillow's getmodebase (L; LAB through RGBA).
_WIDE_DETOURS = (*INDEXED_MODES, *PALETTE_ALPHA_MODES, *LIMITED_MODES)
#: Pillow's rgb2i and rgb2i16l/b are its rgb2l luma, stored wider.
_LUMA_TARGETS = ("I", "I;16", "I;16L", "I;16B")
_RGB_LIKE = ("RGB", "RGBA", "RGBX")


@functools.cache
def _direct_converter(source: str, target: str) -> bool:
    """Whether Pillow's C ``convert`` has a converter for the pair (else Image.convert
    goes through ``getmodebase``)."""
    try:
        PILImage.new(source, (1, 1)).im.convert(target)
    except ValueError:
        return False
    return True


def _middle(source: str, target: str) -> str | None:
    """The mode Pillow converts through for a pair whose steps have other homes, or None."""
    if source in WIDE_MODES and target in _WIDE_DETOURS:
        return "RGBA" if target == "LAB" else "L"  # LAB: Image.convert's convert("RGBA")
    eight_bit = source not in (*WIDE_MODES, *INDEXED_MODES, *PALETTE_ALPHA_MODES, "L")
    if not eight_bit or target not in (*_LUMA_TARGETS, "F"):
        return None
    if _direct_converter(source, target):
        # rgb2i / rgb2i16*: the luma of rgb2l (to F, rgb2f divides by 1000: no route)
        return "L" if target in _LUMA_TARGETS and source in _RGB_LIKE else None
    base = PILImage.getmodebase(source)
    return None if base == source else base


def _reaches_rgb2f(source: str) -> bool:
    # RGB, RGBA, RGBX -> F is rgb2f; CMYK, YCbCr, HSV, RGBa have no F converter and go
    # through their getmodebase, RGB.
    if source in _RGB_LIKE:
        return True
    indirect = source in (*NATIVE_MODES, *LIMITED_MODES) and not _direct_converter(source, "F")
    return indirect and PILImage.getmodebase(source) == "RGB"


def _through(program: Program, node: Node, ins: Inputs, middle: str) -> int:
    # Pillow's two steps, each lowered by its own route. Image.convert's detour through
    # getmodebase is C-level (info["transparency"] unseen); its LAB path is convert("RGBA").
    source = ins[0][1]
    info = source.info
    if middle != "RGBA":
        info = {key: value for key, value in info.items() if key != "transparency"}
    step = Node(
        op="convert",
        params={"mode": middle},
        inputs=(source,),
        mode=middle,
        size=node.size,
        info=info,
    )
    first = _convert(program, step, ins)
    return _convert(program, node, [(first, step)])


def _convert(program: Program, node: Node, ins: Inputs) -> int:
    if ins[0][1].mode == "PA":  # Pillow's pa2* converters, through the palette
        return lower_from_palette_alpha(program, node, ins)
    if ins[0][1].mode in INDEXED_MODES and node.mode in WIDE_MODES:  # Pillow's p2i, bit2f...
        return lower_indexed_convert(program, node, ins)
    if node.mode == "F" and _reaches_rgb2f(ins[0][1].mode):
        source = ins[0][1].mode
        detour = "" if source in _RGB_LIKE else " (Pillow goes through RGB)"
        raise unsupported(
            node,
            f"conversion {source} -> F ends in Pillow's rgb2f{detour}, which divides the "
            "integer luma sum by 1000 in float32; that division is not proven exact on the GPU",
            fix='convert to L first (image.convert("L").convert("F") rounds the luma), or '
            "evaluate with to_pil()",
        )
    middle = _middle(ins[0][1].mode, node.mode)
    if middle is not None:
        return _through(program, node, ins, middle)
    if node.mode == "PA" and ins[0][1].mode not in WIDE_MODES:
        return lower_to_palette_alpha(program, node, ins, _to_rgb)
    if ins[0][1].mode in WIDE_MODES or node.mode in WIDE_MODES:
        return lower_wide_convert(program, node, ins)
    if node.mode in INDEXED_MODES:  # P and 1 targets (P -> 1 and 1 -> P included)
        return lower_to_indexed(program, node, ins, _to_rgb)
    if ins[0][1].mode in INDEXED_MODES:
        if node.mode in LIMITED_MODES:
            return lower_indexed_to_limited(program, node, ins)
        return lower_indexed_convert(program, node, ins)
    pair = (ins[0][1].mode, node.mode)
    if node.params.get("matrix") is not None:
        return _convert_matrix(program, node, ins, node.params["matrix"])
    if pair[0] in LIMITED_MODES or pair[1] in LIMITED_MODES:
        return lower_limited_convert(program, node, ins, _transparent_colour(node, ins[0][1]))
    if pair not in convert.CONVERSIONS:
        raise unsupported(node, f"conversion {pair[0]} -> {pair[1]} is not proven on the GPU")
    transparent = _transparent_colour(node, ins[0][1])
    return convert.lower(
        program,
        ins[0][0],
        node.size,
        *pair,
        transparent=transparent,
        compare_source=pair == ("RGB", "LA"),
    )


def _to_rgb(program: Program, node: Node, ins: Inputs) -> int:
    # The convert("RGB") Pillow goes through before converting a CMYK, YCbCr or RGBa image
    # to P or 1 (its modebase): lowered as that conversion's own node would be.
    source = ins[0][1]
    step = Node(
        op="convert",
        params={"mode": "RGB"},
        inputs=(source,),
        mode="RGB",
        size=node.size,
        info=source.info,
    )
    return _convert(program, step, ins)


def _convert_matrix(program: Program, node: Node, ins: Inputs, matrix: Sequence[float]) -> int:
    source = ins[0][1].mode
    shape = f"a {len(matrix)}-value matrix"
    if source != "RGB":  # Pillow itself accepts 3-band sources only (YCbCr, HSV, LAB: no layout)
        raise unsupported(node, f"convert({node.mode!r}, matrix) is proven only for RGB sources")
    if node.mode == "RGB" and len(matrix) != 12:
        raise unsupported(
            node,
            f"convert('RGB', matrix) with {shape}: Pillow reads 8 coefficients it was never "
            "given (uninitialised memory), so there is no defined result to match",
            fix="pass 12 values (3 rows of 4) or evaluate with to_pil()",
        )
    bands = 1 if node.mode == "L" else 3
    coeffs = convert_matrix.coefficients(matrix, bands)
    if not all(math.isfinite(v) and abs(v) <= MATRIX_BOUND for v in coeffs.flat):
        raise unsupported(
            node,
            f"convert({node.mode!r}, matrix) is proven for finite float32 coefficients of "
            f"magnitude up to {MATRIX_BOUND:g}; observed {tuple(float(v) for v in coeffs.flat)}",
            fix="use smaller coefficients or evaluate with to_pil()",
        )
    return convert_matrix.lower(program, ins[0][0], node.size, matrix, bands)


def _transparent_colour(node: Node, source: Node) -> tuple[int, int, int] | None:
    # Pillow's convert_transparent (L -> LA/RGBA, RGB -> LA/RGBA/La/RGBa with
    # info["transparency"]): the colour whose pixels get alpha 0 (La/RGBa: all bytes 0).
    # Other pairs keep pixels as they are.
    if (source.mode, node.mode) not in _TRANSPARENT_PAIRS:
        return None
    if "transparency" not in source.info:
        return None
    value = source.info["transparency"]
    if source.mode == "L" and type(value) is int and 0 <= value <= 255:
        return (value, value, value)
    proven = isinstance(value, tuple) and len(value) == 3
    if source.mode == "RGB" and proven and all(type(v) is int and 0 <= v <= 255 for v in value):
        return (value[0], value[1], value[2])
    raise unsupported(
        node,
        f"a {source.mode} -> {node.mode} conversion with info['transparency'] {value!r} is "
        "proven only for "
        + ("an int 0..255" if source.mode == "L" else "a tuple of 3 ints 0..255"),
        fix="set info['transparency'] to such a value, remove it, or evaluate with to_pil()",
    )


def _getchannel(program: Program, node: Node, ins: Inputs) -> int:
    byte = band_bytes(ins[0][1].mode)[node.params["channel"]]
    return convert.getchannel(program, ins[0][0], node.size, byte)


def _pairs_text() -> str:
    targets: dict[str, list[str]] = {}
    for source, target in convert.CONVERSIONS:
        if source != target:
            targets.setdefault(source, []).append(target)
    return "; ".join(f"{source} -> {'/'.join(modes)}" for source, modes in targets.items())


LOWERINGS: dict[str, Lowering] = {"convert": _convert, "getchannel": _getchannel}

ROUTES = (
    Route(
        operation="convert / ImageOps.grayscale",
        modes=NATIVE_MODES,
        kernel="convert (pack_l, unpack)",
        contexts="every pair Pillow converts between these modes: "
        + _pairs_text()
        + " (Pillow's stored bytes, padding and alpha included; CMYK -> L/LA and RGBX -> RGBA "
        "through RGB as Pillow goes); convert to the own mode is a copy with no dispatch; "
        "info['transparency'] for L -> LA/RGBA (an int 0..255) and RGB -> LA/RGBA (3 ints "
        "0..255) gives that colour alpha 0 (Pillow's convert_transparent; RGB -> LA compares "
        "the source word, padding included), other values rejected; RGB, RGBA, RGBX -> L "
        "and LA -> L whose every consumer takes packed L (or the result) is pack_l (the luma "
        "or the L byte), which writes Pillow's L bytes four pixels to a word; L -> LA, RGB, "
        "RGBA, RGBX (no keyed transparency) widens the packed L bytes in one unpack",
    ),
    Route(
        operation="convert(mode, matrix)",
        modes=("RGB",),
        kernel="convert_matrix",
        contexts="RGB -> L (4 or 12 values) and RGB -> RGB (12 values); finite coefficients "
        f"up to {MATRIX_BOUND:g}; float32 as Pillow (host product tables, ordered adds); the "
        "RGB result's padding byte, uninitialised in Pillow, is written as 255",
    ),
    Route(
        operation="convert in two steps across the 16/32-bit modes",
        modes=WIDE_MODES,
        kernel="convert_wide + the second step's kernels",
        contexts="Pillow's own detours, each step by its own route: I, F, I;16* -> 1, P, PA, "
        "YCbCr, HSV through L (getmodebase; to 1 with any dither) and -> LAB through RGBA "
        "(Image.convert's LittleCMS path); RGB, RGBA, RGBX -> I and RGB -> I;16* as rgb2l's "
        "luma widened (rgb2i, rgb2i16l/b), LA, CMYK, YCbCr, HSV, RGBa (and RGBA, RGBX -> "
        "I;16*) through their getmodebase; P and 1 -> I/F (and 1 -> I;16*) through Pillow's "
        "256-entry table; RGB-like -> F (rgb2f divides by 1000 in float32) refused",
    ),
    Route(
        operation="getchannel / split",
        modes=(*NATIVE_MODES, *LIMITED_MODES),
        kernel="convert (pack_l)",
        contexts="any band (the stored byte it lives in: La's a is byte 3); written as packed "
        "L bytes by pack_l where every consumer takes packed L (or the band is the result)",
    ),
    Route(
        operation="ImageOps.colorize",
        modes=("L",),
        kernel="convert+lut",
        contexts="any colours and points; recorded as convert(RGB) + point (Pillow's table)",
    ),
)
