"""Lowerings of ``convert`` (native sources), ``getchannel`` and ``ImageOps.colorize``.

P and 1 sources are lowered by :mod:`pillow_gpu.gpu.lowering.indexed`.
"""

from __future__ import annotations

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import INDEXED_MODES, NATIVE_MODES, band_bytes
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import convert
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route
from pillow_gpu.gpu.lowering.indexed import lower_indexed_convert

__all__ = ["LOWERINGS", "ROUTES"]


def _convert(program: Program, node: Node, ins: Inputs) -> int:
    if ins[0][1].mode in INDEXED_MODES:
        return lower_indexed_convert(program, node, ins)
    pair = (ins[0][1].mode, node.mode)
    if pair not in convert.CONVERSIONS:
        raise unsupported(node, f"conversion {pair[0]} -> {pair[1]} is not proven on the GPU")
    transparent = _transparent_colour(node, ins[0][1])
    return convert.lower(program, ins[0][0], node.size, *pair, transparent=transparent)


def _transparent_colour(node: Node, source: Node) -> tuple[int, int, int] | None:
    # Pillow's convert_transparent (L -> RGBA, RGB -> RGBA with info["transparency"]): the
    # colour whose pixels get alpha 0. Other pairs keep pixels as they are.
    if node.mode != "RGBA" or source.mode not in ("L", "RGB"):
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
        f"a {source.mode} -> RGBA conversion with info['transparency'] {value!r} is proven only "
        "for " + ("an int 0..255" if source.mode == "L" else "a tuple of 3 ints 0..255"),
        fix="set info['transparency'] to such a value, remove it, or evaluate with to_pil()",
    )


def _getchannel(program: Program, node: Node, ins: Inputs) -> int:
    byte = band_bytes(ins[0][1].mode)[node.params["channel"]]
    return convert.getchannel(program, ins[0][0], node.size, byte)


LOWERINGS: dict[str, Lowering] = {"convert": _convert, "getchannel": _getchannel}

ROUTES = (
    Route(
        operation="convert / ImageOps.grayscale",
        modes=NATIVE_MODES,
        kernel="convert",
        contexts="pairs: "
        + ", ".join(f"{a}->{b}" for a, b in convert.CONVERSIONS)
        + "; info['transparency'] for L->RGBA (an int 0..255) and RGB->RGBA (3 ints 0..255) "
        "gives that colour alpha 0 (Pillow's convert_transparent), other values rejected",
    ),
    Route(
        operation="getchannel / split", modes=NATIVE_MODES, kernel="convert", contexts="any band"
    ),
    Route(
        operation="ImageOps.colorize",
        modes=("L",),
        kernel="convert+lut",
        contexts="any colours and points; recorded as convert(RGB) + point (Pillow's table)",
    ),
)
