"""Planner lowering of ``ImageOps.equalize``: the histogram and table never leave the device.

Kept beside :mod:`pillow_gpu.gpu._planner`, which registers it. Three dispatches in the
graph's one submission: ``histogram`` (workgroup-local atomic bins added into a zeroed
per-node bins buffer; masked by an L mask as ``Image.histogram(mask)``), ``equalize_lut``
(Pillow's integer table per band, one invocation per stored byte) and the ``lut`` kernel
reading that table. Each equalize node gets its own bins and table buffers, so graphs or batch
jobs never share one. Pillow equalizes only L and RGB (``_lut`` raises ``OSError`` for other
modes; P is converted to RGB first, which the lazy API records as ``convert("RGB")``).
"""

from __future__ import annotations

from pillow_gpu._graph import Node
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import equalize_lut, histogram, lut
from pillow_gpu.gpu.lowering._admission import TABLE_BANDS, TABLE_MODES, table_inputs
from pillow_gpu.gpu.lowering._common import Lowering, Route

__all__ = ["EQUALIZE_MODES", "LOWERINGS", "ROUTES", "lower_equalize"]

#: Source modes the lowering admits (the modes Pillow's equalize accepts natively).
EQUALIZE_MODES = TABLE_MODES


def lower_equalize(program: Program, node: Node, ins: list[tuple[int, Node]]) -> int:
    """Lower ``ImageOps.equalize(image, mask)``."""
    src, mask = table_inputs(node, ins, "ImageOps.equalize")
    mode = ins[0][1].mode
    bands = TABLE_BANDS[mode]
    bins = histogram.histogram(program, src, node.size, bands=bands, mask=mask)
    table = equalize_lut.equalize_lut(program, bins, bands=bands)
    dst = program.image(node.size)
    lut.look_up(program, src, dst, table, node.size)  # reading the device-built table
    return dst


LOWERINGS: dict[str, Lowering] = {"equalize": lower_equalize}

ROUTES = (
    Route(
        operation="ImageOps.equalize",
        modes=EQUALIZE_MODES,
        kernel="histogram+equalize_lut+lut",
        contexts=(
            "mask=None or an L mask of the same size (mode 1 masks: convert to L); per-band "
            "histograms (u32 atomics) and Pillow's integer table built on the device; RGB padding"
            " byte written as 0"
        ),
    ),
)
