"""Immutable nodes of a lazy image graph.

A :class:`Node` records one operation (``op``), its normalised parameters and its input nodes,
plus the output ``mode``/``size``/``info`` that Pillow would report, so these never need an
evaluation. Nodes never change after creation, and an input used by several graphs is the same
node object (shared, not copied). The only mutable part is the :class:`ResultCache` cell, which
holds the pixels of a node once some evaluation has completed it.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from PIL import Image as PILImage

__all__ = [
    "LEAF_OPS",
    "Node",
    "ResultCache",
    "failed_leaf",
    "first_leaf",
    "load_failure",
    "raise_load_failure",
    "undecoded_file",
    "walk",
    "walk_list",
    "whole_crop",
]

#: Operations without inputs: their pixels come from the host (decode, PIL image, fill).
LEAF_OPS = frozenset({"open", "pil", "new"})


#: Serialises every cell's first store: stores are rare (one per completed node), while every
#: job of a batch builds new nodes, so no cell carries a lock of its own.
_PUT_LOCK = threading.Lock()


class ResultCache:
    """A write-once cell holding the completed pixels of one node."""

    __slots__ = ("_image",)

    def __init__(self) -> None:
        self._image: PILImage.Image | None = None

    def get(self) -> PILImage.Image | None:
        """Return the cached image, or None when the node has not been completed."""
        return self._image

    def put(self, image: PILImage.Image) -> PILImage.Image:
        """Store ``image`` unless a result is already cached; return the cached result."""
        with _PUT_LOCK:
            if self._image is None:
                self._image = image
            return self._image


#: The read-only empty mapping every node without parameters or metadata shares.
_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, init=False)
class Node:
    """One recorded operation: ``op`` applied with ``params`` to ``inputs``.

    ``params`` and ``info`` are copied into read-only mappings at creation.
    """

    op: str
    params: Mapping[str, Any]
    inputs: tuple[Node, ...]
    mode: str
    size: tuple[int, int]
    info: Mapping[str, Any]
    cache: ResultCache = field(repr=False)

    def __init__(
        self,
        *,
        op: str,
        params: Mapping[str, Any] | None = None,
        inputs: tuple[Node, ...] = (),
        mode: str,
        size: tuple[int, int],
        info: Mapping[str, Any] | None = None,
    ) -> None:
        # A hand-written __init__: the generated one of a frozen dataclass costs several
        # times as much, and every job of a batch builds its nodes afresh.
        store = object.__setattr__
        store(self, "op", op)
        store(self, "params", MappingProxyType(dict(params)) if params else _EMPTY)
        store(self, "inputs", inputs)
        store(self, "mode", mode)
        store(self, "size", size)
        store(self, "info", MappingProxyType(dict(info)) if info else _EMPTY)
        store(self, "cache", ResultCache())

    @property
    def is_leaf(self) -> bool:
        """True for nodes whose pixels come from the host rather than an operation."""
        return self.op in LEAF_OPS


def whole_crop(node: Node) -> Node:
    """A crop of the whole of ``node``: its pixels as a new node, with its info."""
    return Node(
        op="crop",
        params={"box": (0, 0, *node.size)},
        inputs=(node,),
        mode=node.mode,
        size=node.size,
        info=node.info,
    )


def walk(root: Node) -> Iterator[Node]:
    """Yield every node reachable from ``root`` once, inputs before their users.

    Traversal stops at cached nodes: a completed node is used as-is and its inputs are not
    visited (a completed graph is never replayed).
    """
    seen: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in seen:
            continue
        if expanded or node.cache.get() is not None or not node.inputs:
            seen.add(id(node))
            yield node
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.inputs) if id(child) not in seen)


def walk_list(root: Node) -> list[Node]:
    """``list(walk(root))``; a chain (every node one input, down to a leaf or a cached node) is
    followed directly, without the general walk's bookkeeping (the plan cache keys every job's
    graph, and most graphs are chains)."""
    nodes = [root]
    node = root
    while node.cache.get() is None and node.inputs:
        if len(node.inputs) != 1:
            return list(walk(root))
        node = node.inputs[0]
        nodes.append(node)
    nodes.reverse()
    return nodes


def first_leaf(node: Node) -> Node:
    """The leaf ``node``'s first inputs lead down to (through completed nodes too): the image an
    in-place edit of a handle started from."""
    while node.inputs:
        node = node.inputs[0]
    return node


def undecoded_file(node: Node) -> bool:
    """Whether ``node`` is an opened file that nothing has decoded yet: Pillow's image of it
    is not loaded (its checks run before the load, its ``info`` lacks the keys the load adds)."""
    return node.op == "open" and node.cache.get() is None


def failed_leaf(
    error: Exception, mode: str, size: tuple[int, int], info: Mapping[str, Any]
) -> Node:
    """A ``pil`` leaf of a frame Pillow could not load: ``error`` is raised again when its
    pixels are needed (``pillow_gpu._leaves.frame_node``)."""
    return Node(op="pil", params={"failed": error}, mode=mode, size=size, info=info)


def load_failure(node: Node) -> Exception | None:
    """The error of a :func:`failed_leaf`, else None."""
    return node.params.get("failed") if node.op == "pil" else None


def raise_load_failure(node: Node) -> None:
    """Raise the error of a :func:`failed_leaf` once more, as Pillow's load of that frame
    raises at each use; nothing for any other node. A copy is raised (the object itself where
    it cannot be copied): raising one object again and again chains every raise into its
    traceback."""
    error = load_failure(node)
    if error is None:
        return
    try:
        again = copy.copy(error)
    except Exception:  # an exception type whose arguments do not rebuild it
        again = error
    raise again
