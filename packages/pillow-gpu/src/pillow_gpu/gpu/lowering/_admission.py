"""The admission error every planner lowering raises for an unproven context."""

from __future__ import annotations

from pillow_gpu._graph import Node
from pillow_gpu.errors import Unsupported

__all__ = ["CPU_ONLY", "TABLE_BANDS", "TABLE_MODES", "table_inputs", "unsupported"]

#: Modes whose pixels Pillow's ``ImageOps._lut`` maps through a table (equalize, autocontrast).
TABLE_MODES = ("L", "RGB")
#: Histogram bands of those modes.
TABLE_BANDS = {"L": 1, "RGB": 3}


#: Recorded operations that run with Pillow only, and why the GPU refuses them.
CPU_ONLY = {
    "quantize": "quantize() builds an adaptive palette: the palette and every index depend on "
    "all the pixels of the image",
    "point_handler": "point() with an ImagePointHandler (an ImageCms transform) runs that "
    "handler's own code (LittleCMS) on the image",
}


def unsupported(
    node: Node, why: str, fix: str = "evaluate this graph with to_pil()"
) -> Unsupported:
    """``Unsupported`` (stage ``"admission"``) for ``node``: why, the node observed, the fix."""
    return Unsupported(
        why,
        observed=f"operation {node.op!r} on mode {node.mode} size {node.size[0]}x{node.size[1]}",
        fix=fix,
        stage="admission",
    )


def table_inputs(node: Node, ins: list[tuple[int, Node]], operation: str) -> tuple[int, int | None]:
    """The source and optional L-mask buffers of a histogram-table operation.

    Pillow's ``ImageOps._lut`` applies tables only to L and RGB, and ``Image.histogram(mask)``
    takes 1 or L masks; the GPU path proves L masks (a mode-1 mask converted to L selects the
    same pixels).
    """
    src, mode = ins[0][0], ins[0][1].mode
    if mode not in TABLE_MODES:
        raise unsupported(
            node,
            f"{operation} is proven only for modes {', '.join(TABLE_MODES)}",
            "convert to L or RGB first (Pillow itself applies the table only to L and RGB)",
        )
    if not node.params["masked"]:
        return src, None
    mask, mask_node = ins[1]
    if mask_node.mode != "L":
        raise unsupported(
            node,
            f"an {operation} mask of mode {mask_node.mode} is not proven on the GPU (only L)",
            'convert the mask to L first (mask.convert("L") keeps which pixels count)',
        )
    return src, mask
