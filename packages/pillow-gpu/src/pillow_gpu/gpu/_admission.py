"""The admission error every planner lowering raises for an unproven context."""

from __future__ import annotations

from pillow_gpu._graph import Node
from pillow_gpu.errors import Unsupported

__all__ = ["unsupported"]


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
