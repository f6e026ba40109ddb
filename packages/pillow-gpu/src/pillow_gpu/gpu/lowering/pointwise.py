"""Lowerings of per-byte table operations: invert, point, solarize, posterize, Brightness.

Each becomes one lookup of a (4, 256) host table built by :mod:`pillow_gpu.gpu.kernels.lut`
(``ImageOps.invert`` of a P image changes only its palette: no lookup). ``point(table, mode)``
of a one-byte image (L, P, 1) to L or 1, the thresholding idiom ``im.point(fn, "1")``, is
Pillow's ``ImagingPoint`` of that byte: the same table, stored in the target's layout.
"""

from __future__ import annotations

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import lut, to_indexed
from pillow_gpu.gpu.lowering._admission import unsupported
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


#: ``point(table, mode)`` sources and targets on the GPU: one stored byte in, one out.
_ONE_BYTE_SOURCES = ("L", "P", "1")
_ONE_BYTE_TARGETS = ("L", "1")


def _point_mode(program: Program, node: Node, ins: Inputs) -> int:
    src, source = ins[0]
    if source.mode not in _ONE_BYTE_SOURCES or node.mode not in _ONE_BYTE_TARGETS:
        raise unsupported(
            node,
            f"point(table, {node.mode!r}) of a mode {source.mode} image is proven on the GPU "
            f"only from {', '.join(_ONE_BYTE_SOURCES)} to {' or '.join(_ONE_BYTE_TARGETS)}",
            fix="point() without a mode, convert() before or after it, or evaluate with to_pil()",
        )
    # Pillow's _point: 256 entries (one band), Python-rounded and clamped as point's; the
    # source's stored byte is byte 0 of its word (P and 1 repeat it in all four).
    table = lut.tables_for("point", "L", node.params)
    if node.mode == "1":  # 1's layout: the stored byte in all four bytes
        return to_indexed.lower_byte_table(program, src, node.size, table[0])
    return lut.lower(program, src, node.size, table)


_OPS = ("invert", "chops_invert", "point", "solarize", "posterize", "brightness")
LOWERINGS: dict[str, Lowering] = {**dict.fromkeys(_OPS, _lut), "point_mode": _point_mode}

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
        contexts="table of 256 x bands or a callable; the limited modes by their bands "
        "(YCbCr, HSV, LAB's padding byte as RGB's); with a mode: L, P and 1 to L or 1 "
        "(Pillow's one-byte ImagingPoint: the stored byte through the clamped table, e.g. "
        "point(fn, '1') thresholding), other targets refused",
    ),
    Route(
        operation="ImageOps.solarize / posterize",
        modes=_IMAGEOPS_MODES,
        kernel="lut",
        contexts="any threshold; bits 0..8",
    ),
    Route(
        operation="ImageEnhance.Brightness",
        modes=(*NATIVE_MODES, "YCbCr", "La", "RGBa", "HSV"),
        kernel="lut",
        contexts="any factor; an A band unchanged (La's and RGBa's a is blended, as Pillow's "
        "degenerate image has no A band; LAB: Pillow raises, and so does the recording)",
    ),
)
