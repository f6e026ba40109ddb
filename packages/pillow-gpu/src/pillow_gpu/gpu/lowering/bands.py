"""Planner lowerings of band assembly: ``Image.merge`` and ``Image.putalpha`` (kernel bands).

Admission rules: merge
needs L sources (Pillow's own rule for the native modes) and putalpha a source mode in
:data:`~pillow_gpu.gpu.kernels.bands.PUTALPHA_MODES` with an L alpha image or an int.
"""

from __future__ import annotations

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import NATIVE_MODES
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import bands
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Lowering, Route

__all__ = ["LOWERINGS", "ROUTES", "lower_merge", "lower_putalpha"]


def lower_merge(program: Program, node: Node, ins: list[tuple[int, Node]]) -> int:
    """Lower ``Image.merge``: every source must be an L image."""
    modes = [band.mode for _, band in ins]
    if any(mode != "L" for mode in modes):
        raise unsupported(
            node,
            f"Image.merge of {', '.join(modes)} bands is proven only for L bands",
            fix="convert each band to L first or evaluate with to_pil()",
        )
    return bands.merge(program, [buffer for buffer, _ in ins], node.size, node.mode)


def lower_putalpha(program: Program, node: Node, ins: list[tuple[int, Node]]) -> int:
    """Lower ``Image.putalpha`` with an L image or a constant alpha."""
    (src, src_node), alpha = ins[0], ins[1:]
    if src_node.mode not in bands.PUTALPHA_MODES:
        raise unsupported(
            node,
            f"putalpha on {src_node.mode} first converts it to {node.mode}, a conversion with "
            f"no proven GPU route; proven source modes: {', '.join(bands.PUTALPHA_MODES)}",
            fix="evaluate with to_pil()",
        )
    if not alpha:
        return bands.putalpha(program, src, node.size, src_node.mode, value=node.params["value"])
    # Pillow admits only L and 1 alpha images, and mode 1 is no native GPU layout.
    return bands.putalpha(program, src, node.size, src_node.mode, alpha=alpha[0][0])


LOWERINGS: dict[str, Lowering] = {"merge": lower_merge, "putalpha": lower_putalpha}

ROUTES = (
    Route(
        operation="Image.merge",
        modes=NATIVE_MODES,
        kernel="bands",
        contexts="L bands; RGB padding and LA bytes 1-2 written 0 as Pillow writes them",
    ),
    Route(
        operation="putalpha",
        modes=tuple(bands.PUTALPHA_MODES),
        kernel="bands",
        contexts="L image or int alpha; L -> LA, RGB/RGBX -> RGBA as Pillow converts",
    ),
)
