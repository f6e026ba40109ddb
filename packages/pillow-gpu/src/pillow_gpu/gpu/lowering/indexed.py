"""Palette (P) and bilevel (1) images: ``convert`` to a native mode as one table lookup.

A P or 1 leaf uploads its stored bytes (P: the palette index; 1: Pillow's internal 0 or 255)
repeated in all four bytes of its word. Pillow converts such an image pixel by pixel from that
byte alone (palette entry, transparency as palette alpha, luma of the entry), so the result
is a 256-entry table of output words, applied by the per-byte ``lut`` kernel. The table is
Pillow's by construction: live Pillow converts a 256 x 1 image holding every stored value
with the leaf's own palette and ``info`` (transparency included) to the target mode.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image as PILImage

from pillow_gpu._convert_info import probe
from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import INDEXED_MODES, NATIVE_MODES, to_words
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import lut
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Route

__all__ = [
    "INDEXED_TARGETS",
    "INDEX_COPIES",
    "ROUTES",
    "check_consumer",
    "lower_indexed_convert",
    "palette_table",
]

#: Modes a P or 1 image converts to on the GPU (every native layout).
INDEXED_TARGETS = NATIVE_MODES
#: Operations that move stored P/1 bytes unchanged (the result keeps the palette, as in
#: Pillow), so ``exif_transpose`` or a crop may come before the ``convert``.
INDEX_COPIES = ("transpose", "crop")
_FIX = (
    "convert to RGB/RGBA/L first (P and 1 images are admitted only as inputs of convert(), "
    "transpose and crop)"
)


def check_consumer(node: Node) -> None:
    """Reject any operation other than ``convert`` and :data:`INDEX_COPIES` reading P or 1."""
    if node.cache.get() is not None:  # completed: uploaded as a leaf, its inputs unused
        return
    for child in node.inputs:
        if child.mode in INDEXED_MODES and node.op not in ("convert", *INDEX_COPIES):
            raise unsupported(
                node,
                f"operation {node.op!r} on a mode {child.mode} image has no GPU route: palette "
                "and bilevel images are admitted only as inputs of convert(), transpose and crop",
                fix=_FIX,
            )


def _carrier(node: Node) -> PILImage.Image:
    """A 256 x 1 image with the palette (C level included) and info of ``node``'s pixels."""
    carrier = probe(node, (256, 1))
    if carrier is None:  # uploaded leaves, or INDEX_COPIES of one (see the planner's _check_image)
        raise unsupported(node, f"the palette of this mode {node.mode} image is not recorded")
    values = range(256) if node.mode == "P" else (0, 255, *([0] * 254))
    try:
        carrier.putdata(list(values))
    except ValueError as error:  # a palette Pillow cannot apply (e.g. more than 256 entries)
        raise unsupported(
            node, f"the palette of this image cannot be applied by Pillow: {error}"
        ) from error
    return carrier


def palette_table(node: Node, mode: str) -> npt.NDArray[np.int64]:
    """The (4, 256) per-byte table of ``node.convert(mode)`` (Pillow's warnings included)."""
    converted = _carrier(node).convert(mode)
    words = to_words(converted).astype(np.int64)
    table = np.stack([(words >> (8 * byte)) & 255 for byte in range(4)])
    if node.mode == "1":  # stored values are 0 or 255 only
        table[:, 255] = table[:, 1]
        table[:, 1:255] = 0
    return table


def lower_indexed_convert(program: Program, node: Node, ins: list[tuple[int, Any]]) -> int:
    """``convert`` of a P or 1 input to a native mode: one lookup of Pillow's table."""
    src, source = ins[0]
    if node.mode not in INDEXED_TARGETS:
        raise unsupported(node, f"conversion {source.mode} -> {node.mode} is not proven")
    return lut.lower(program, src, node.size, palette_table(source, node.mode))


ROUTES = (
    Route(
        operation="convert from P or 1 (to the modes marked)",
        modes=INDEXED_TARGETS,
        kernel="lut",
        contexts="an uploaded P/1 leaf or completed result as input, or a transpose or crop "
        "of one (exif_transpose); "
        "Pillow's 256-entry table (palette, transparency) built by live Pillow; other "
        "operations on P/1 are refused",
    ),
)
