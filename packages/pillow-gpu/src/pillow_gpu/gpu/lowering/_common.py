"""What every lowering module shares: the route record, the lowering signature, mode checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pillow_gpu._graph import Node
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.lowering._admission import unsupported

__all__ = ["Inputs", "Lowering", "Route", "require_mode"]

#: The lowered inputs of a node: (buffer slot, input node), in the node's input order.
Inputs = list[tuple[int, Node]]
#: A lowering: records the node's dispatches on the program and returns its output buffer.
Lowering = Callable[[Program, Node, Inputs], int]


@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    """One native route: a recorded operation, the modes it admits, its kernel family."""

    operation: str
    modes: tuple[str, ...]
    kernel: str
    contexts: str


def require_mode(node: Node, modes: tuple[str, ...], what: str) -> None:
    """Reject ``node`` unless its first input is in one of ``modes``."""
    if node.inputs[0].mode not in modes:
        raise unsupported(node, f"{what} is proven only for modes {', '.join(modes)}")
