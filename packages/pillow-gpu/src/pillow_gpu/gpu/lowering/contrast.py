"""Planner lowering of ``ImageEnhance.Contrast``: the mean never leaves the device.

Kept beside :mod:`pillow_gpu.gpu._planner`, which registers it. Three dispatches in the
graph's one submission: the proven ``convert`` to L (skipped for L sources), ``sum_l`` (the
exact integer sum into a zeroed two-word working buffer, u32 atomics with a carry word), and
``contrast`` (the mean rounded as ``ImageStat`` does, the degenerate word Pillow's
``Image.new("L").convert`` stores, and Pillow's float32 blend through the host 256x256 blend
table). Each Contrast node gets its own sum buffer, so graphs or batch jobs never share one.
"""

from __future__ import annotations

from pillow_gpu._graph import Node
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import contrast, convert, sum_l
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Lowering, Route

__all__ = ["CONTRAST_MODES", "LOWERINGS", "ROUTES", "lower_contrast"]

#: Source modes the lowering admits (every native mode: Pillow converts each of them to L).
CONTRAST_MODES = tuple(contrast.DEGENERATE)


def lower_contrast(program: Program, node: Node, ins: list[tuple[int, Node]]) -> int:
    """Lower ``ImageEnhance.Contrast(image).enhance(factor)``."""
    src, mode = ins[0][0], ins[0][1].mode
    if mode not in contrast.DEGENERATE:
        raise unsupported(
            node,
            f"ImageEnhance.Contrast is proven only for modes {', '.join(CONTRAST_MODES)}",
            "convert to a native mode first or evaluate with to_pil()",
        )
    gray = src if mode == "L" else convert.lower(program, src, node.size, mode, "L")
    total = sum_l.sum_l(program, gray, node.size)
    return contrast.lower(program, src, total, node.size, mode=mode, factor=node.params["factor"])


LOWERINGS: dict[str, Lowering] = {"contrast": lower_contrast}

ROUTES = (
    Route(
        operation="ImageEnhance.Contrast",
        # YCbCr and HSV: recorded step by step by pillow_gpu.ImageEnhance.Contrast.
        modes=(*CONTRAST_MODES, "YCbCr", "HSV"),
        kernel="convert+sum_l+contrast",
        contexts=(
            "any factor; mean of convert(L) summed on the device (u32 atomics, a carry word) and "
            "rounded as "
            "ImageStat; degenerate as Image.new(L).convert(mode); alpha unchanged; YCbCr and "
            "HSV recorded as Pillow computes them: Contrast of convert(L) at 0.0, converted to "
            "the mode, Image.blend (La, RGBa, LAB: Pillow raises, and so does the recording)"
        ),
    ),
)
