"""Lowerings of per-byte table operations: invert, point, solarize, posterize, Brightness.

Each becomes one lookup of a (4, 256) host table built by :mod:`pillow_gpu.gpu.kernels.lut`
(``ImageOps.invert`` of a P image changes only its palette: no lookup).
"""

from __future__ import annotations

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import lut
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route, require_mode

__all__ = ["LOWERINGS", "ROUTES"]

#: Modes Pillow's ImageOps.invert/solarize/posterize accept.
_IMAGEOPS_MODES = ("L", "RGB")


def _lut(program: Program, node: Node, ins: Inputs) -> int:
    if node.op == "invert" and ins[0][1].mode == "P":
        return ins[0][0]  # Pillow inverts the palette (ImageOps._lut); the indices are kept
    if node.op == "invert":
        require_mode(node, (*_IMAGEOPS_MODES, "1"), "ImageOps.invert")
    elif node.op in ("solarize", "posterize"):
        require_mode(node, _IMAGEOPS_MODES, f"ImageOps.{node.op}")
    table = lut.tables_for(node.op, ins[0][1].mode, node.params)
    return lut.lower(program, ins[0][0], node.size, table)


_OPS = ("invert", "chops_invert", "point", "solarize", "posterize", "brightness")
LOWERINGS: dict[str, Lowering] = dict.fromkeys(_OPS, _lut)

ROUTES = (
    Route(
        operation="ImageOps.invert",
        modes=_IMAGEOPS_MODES,
        kernel="lut",
        contexts="Pillow admits L and RGB; RGB padding byte written as 0",
    ),
    Route(
        operation="ImageChops.invert",
        modes=(*NATIVE_MODES, *LIMITED_MODES),
        kernel="lut",
        contexts="~x on every stored byte, alpha and padding included",
    ),
    Route(
        operation="Image.point",
        modes=(*NATIVE_MODES, *LIMITED_MODES),
        kernel="lut",
        contexts="table of 256 x bands or a callable; mode= argument rejected; the limited "
        "modes by their bands (YCbCr, HSV, LAB's padding byte as RGB's)",
    ),
    Route(
        operation="ImageOps.solarize / posterize",
        modes=_IMAGEOPS_MODES,
        kernel="lut",
        contexts="any threshold; bits 0..8",
    ),
    Route(
        operation="ImageEnhance.Brightness",
        modes=NATIVE_MODES,
        kernel="lut",
        contexts="any factor; alpha unchanged",
    ),
)
