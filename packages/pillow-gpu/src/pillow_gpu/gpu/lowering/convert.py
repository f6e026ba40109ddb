"""Lowerings of ``convert`` (native sources), ``getchannel`` and ``ImageOps.colorize``.

P and 1 sources and targets are lowered by :mod:`pillow_gpu.gpu.lowering.indexed`, and
conversions with YCbCr, La or RGBa on either side by :mod:`pillow_gpu.gpu.lowering.limited`.
Every conversion Pillow performs between the native layouts is one ``convert`` dispatch
(identities included: the lazy ``convert`` records none for them, as Pillow copies);
``convert(mode, matrix)`` of an RGB image is one ``convert_matrix`` dispatch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import INDEXED_MODES, LIMITED_MODES, NATIVE_MODES, band_bytes
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import convert, convert_matrix
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route
from pillow_gpu.gpu.lowering.indexed import lower_indexed_convert, lower_to_indexed
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


def _convert(program: Program, node: Node, ins: Inputs) -> int:
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
        kernel="convert",
        contexts="every pair Pillow converts between these modes: "
        + _pairs_text()
        + " (Pillow's stored bytes, padding and alpha included; CMYK -> L/LA and RGBX -> RGBA "
        "through RGB as Pillow goes); convert to the own mode is a copy with no dispatch; "
        "info['transparency'] for L -> LA/RGBA (an int 0..255) and RGB -> LA/RGBA (3 ints "
        "0..255) gives that colour alpha 0 (Pillow's convert_transparent; RGB -> LA compares "
        "the source word, padding included), other values rejected",
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
        operation="getchannel / split",
        modes=(*NATIVE_MODES, *LIMITED_MODES),
        kernel="convert",
        contexts="any band (the stored byte it lives in: La's a is byte 3)",
    ),
    Route(
        operation="ImageOps.colorize",
        modes=("L",),
        kernel="convert+lut",
        contexts="any colours and points; recorded as convert(RGB) + point (Pillow's table)",
    ),
)
