"""Lowerings that move stored words without changing them: transpose, crop, expand, paste,
putpixel (every native layout, YCbCr/La/RGBa/HSV/LAB and the wide modes; the kernels copy
whole u32 words)."""

from __future__ import annotations

from typing import Any

from PIL import Image as PILImage
from PIL import ImageOps

from pillow_gpu._edits import paste_converts
from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES, WIDE_MODES, to_words
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import paste, remap
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route
from pillow_gpu.gpu.lowering.composite import refuse_hidden_bytes

__all__ = ["LOWERINGS", "ROUTES", "expand_ink"]

#: Modes whose pixels these routes copy as opaque words (the wide modes hold their value).
_COPY_MODES = (*NATIVE_MODES, *LIMITED_MODES, *WIDE_MODES)


def _transpose(program: Program, node: Node, ins: Inputs) -> int:
    return remap.transpose(program, ins[0][0], ins[0][1].size, node.params["method"])


def _crop(program: Program, node: Node, ins: Inputs) -> int:
    return remap.crop(program, ins[0][0], ins[0][1].size, node.params["box"])


def expand_ink(mode: str, fill_color: Any) -> int:
    """The stored word ``ImageOps.expand(fill=fill_color)`` paints a ``mode`` border with."""
    probe = ImageOps.expand(PILImage.new(mode, (1, 1)), border=1, fill=fill_color)
    return int(to_words(probe)[0])


def _expand(program: Program, node: Node, ins: Inputs) -> int:
    value = expand_ink(node.mode, node.params["fill"])
    return remap.expand(program, ins[0][0], ins[0][1].size, node.params["border"], value)


def _paste(program: Program, node: Node, ins: Inputs) -> int:
    (base, base_node), (src, src_node) = ins[0], ins[1]
    if paste_converts(base_node.mode, src_node.mode):  # pragma: no cover - recorded converted
        raise unsupported(
            node,
            f"paste of a {src_node.mode} source into {base_node.mode} needs a conversion",
            fix="convert the source to the same mode first",
        )
    if base_node.mode == "RGB":
        refuse_hidden_bytes(node, src_node.mode, "a paste into RGB (Pillow copies the words)")
    return paste.paste(
        program, base, node.size, src=src, src_size=src_node.size, box=node.params["box"]
    )


def _putpixel(program: Program, node: Node, ins: Inputs) -> int:
    probe = PILImage.new(node.mode, (1, 1))
    probe.putpixel((0, 0), node.params["value"])
    value = int(to_words(probe)[0])
    return paste.putpixel(program, ins[0][0], node.size, node.params["xy"], value)


LOWERINGS: dict[str, Lowering] = {
    "transpose": _transpose,
    "crop": _crop,
    "expand": _expand,
    "paste": _paste,
    "putpixel": _putpixel,
}

ROUTES = (
    Route(
        operation="transpose / ImageOps.flip / mirror / exif_transpose",
        modes=_COPY_MODES,
        kernel="remap",
        contexts="all seven Transpose methods; exif_transpose orientations 2..8",
    ),
    Route(
        operation="crop / ImageOps.crop",
        modes=_COPY_MODES,
        kernel="remap",
        contexts="any box; areas outside the source are zero",
    ),
    Route(
        operation="ImageOps.expand",
        modes=_COPY_MODES,
        kernel="remap",
        contexts="any border and fill",
    ),
    Route(
        operation="paste (unmasked)",
        modes=_COPY_MODES,
        kernel="paste",
        contexts="any offset incl. negative; lazy sources; a source of another mode converted "
        "as Pillow's paste converts it (RGBA and RGBa into RGB copied as stored; LA into RGB "
        "refused: it copies LA's unowned bytes 1 and 2)",
    ),
    Route(operation="putpixel", modes=_COPY_MODES, kernel="paste", contexts="in-range coordinates"),
)
