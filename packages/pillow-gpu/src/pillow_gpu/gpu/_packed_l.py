"""L images kept as Pillow's bytes on the device: four pixels to a word, rows back to back.

An L leaf uploads Pillow's stored bytes into a *packed* buffer. Per-byte operations (the lookup
table family, and ImageChops of two same-size L images) work on those words as they are: each
stored byte is a pixel, so a lookup whose four rows are the L table maps four pixels at once,
and a per-byte composition of two packed images is the composition of their pixels. An L root
that is still packed is the terminal as it is (no ``pack_l``). Any other consumer gets the
one-pixel-per-word layout from the ``unpack`` kernel, made once per node on demand.

A packed buffer is laid out as a ``(width, height)`` grid of words (:func:`grid`): the image
row length over four when it divides, else a fixed-width grid; trailing words past the last
pixel are padding that no pixel reads.
"""

from __future__ import annotations

import numpy as np

from pillow_gpu._graph import Node
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import chops, lut
from pillow_gpu.gpu.lowering.pointwise import LOWERINGS as _POINTWISE

__all__ = ["PACKED_OPS", "grid", "lower_packed"]

#: Operations lowered on packed L inputs (every input packed L, the output L).
PACKED_OPS = frozenset({*_POINTWISE, "chop", "blend"})
_GRID_WIDTH = 1024


def grid(size: tuple[int, int]) -> tuple[int, int]:
    """The word grid of a packed L image of ``size``: at least ceil(pixels / 4) words."""
    width, height = size
    if width % 4 == 0:
        return (width // 4, height)
    words = -(-width * height // 4)
    columns = min(words, _GRID_WIDTH)
    return (columns, -(-words // columns))


def _packable(node: Node) -> bool:
    if node.mode != "L" or node.op not in PACKED_OPS:
        return False
    if node.op in ("chop", "blend"):  # a per-byte composition only when the images coincide
        return all(child.size == node.size for child in node.inputs)
    return True


def lower_packed(program: Program, node: Node, inputs: list[int | None]) -> int | None:
    """Lower ``node`` on packed inputs (None where an input is not packed); None: cannot."""
    sources = [buffer for buffer in inputs if buffer is not None]
    if not _packable(node) or len(sources) != len(inputs):
        return None
    words = grid(node.size)
    if node.op in ("chop", "blend"):
        if node.op == "blend":
            name, table = "blend", chops.blend_table(node.params["alpha"])
        else:
            name, table = node.params["name"], None
            if name in ("add", "subtract"):
                table = chops.scaled_table(name, node.params["scale"], node.params["offset"])
        a, b = sources
        return chops.lower(program, a, words, b=b, b_size=words, name=name, table=table)
    table = lut.tables_for(node.op, "L", node.params)
    return lut.lower(program, sources[0], words, np.stack([table[0]] * 4))
