"""Lowerings of two-image operations: ImageChops, ``Image.blend`` and ``ImageEnhance.Color``."""

from __future__ import annotations

import numpy as np

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import chops, convert, lut
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route

__all__ = ["LOWERINGS", "ROUTES"]

_CPU_FIX = "evaluate this graph with to_pil() (Pillow's route)"
#: Modes ImageEnhance.Color is proven for (L and LA: an exact copy).
_COLOR_MODES = ("L", "LA", "RGB", "RGBA")


def _chop(program: Program, node: Node, ins: Inputs) -> int:
    (a, a_node), (b, b_node) = ins[0], ins[1]
    if a_node.mode != b_node.mode:
        raise unsupported(
            node,
            f"ImageChops on {a_node.mode} x {b_node.mode} is not proven",
            fix="convert both images to the same mode first",
        )
    if node.op == "blend":
        name, table = "blend", chops.blend_table(node.params["alpha"])
    else:
        name = node.params["name"]
        if name not in chops.OPS:
            raise unsupported(node, f"ImageChops.{name} has no GPU route", fix=_CPU_FIX)
        table = None
        if name in ("add", "subtract"):
            table = chops.scaled_table(name, node.params["scale"], node.params["offset"])
    return chops.lower(program, a, a_node.size, b=b, b_size=b_node.size, name=name, table=table)


def _color(program: Program, node: Node, ins: Inputs) -> int:
    # ImageEnhance.Color: blend(image.convert(L or LA).convert(mode), image, factor).
    src, mode = ins[0][0], ins[0][1].mode
    if mode in ("L", "LA"):  # the degenerate image is the image itself: an exact copy
        return lut.lower(program, src, node.size, np.stack([lut.IDENTITY] * 4))
    if mode not in _COLOR_MODES:
        raise unsupported(node, f"ImageEnhance.Color is proven only for {', '.join(_COLOR_MODES)}")
    steps = (("RGB", "L"), ("L", "RGB")) if mode == "RGB" else (("RGBA", "LA"), ("LA", "RGBA"))
    degenerate = src
    for pair in steps:
        degenerate = convert.lower(program, degenerate, node.size, *pair)
    table = chops.blend_table(node.params["factor"])
    return chops.lower(
        program, degenerate, node.size, b=src, b_size=node.size, name="blend", table=table
    )


LOWERINGS: dict[str, Lowering] = {"chop": _chop, "blend": _chop, "color": _color}

ROUTES = (
    Route(
        operation="ImageChops binary ops",
        modes=(*NATIVE_MODES, *LIMITED_MODES, "1"),
        kernel="chops",
        contexts="both inputs in the same mode; output is the overlap: "
        + ", ".join(name for name in chops.OPS if name != "blend")
        + " (logical_and, logical_or, logical_xor: 1 only, any non-zero stored byte set, as "
        "Pillow's; 1 takes the others on its stored byte too, the result a 1 image)",
    ),
    Route(
        operation="Image.blend / ImageChops.blend",
        modes=(*NATIVE_MODES, *LIMITED_MODES),
        kernel="chops",
        contexts="any alpha (host 256x256 table)",
    ),
    Route(
        operation="ImageEnhance.Color",
        # YCbCr and HSV: recorded step by step by pillow_gpu.ImageEnhance.Color.
        modes=(*_COLOR_MODES, "YCbCr", "HSV"),
        kernel="convert+chops",
        contexts="any factor; YCbCr and HSV recorded as Pillow computes them: convert(L), "
        "convert back, Image.blend (La, RGBa, LAB: Pillow raises, and so does the recording)",
    ),
)
