"""Empty images (a width or height of 0): an operation on one, or giving one, runs with Pillow
at the call.

Pillow keeps empty images: ``crop`` with a degenerate box returns one, and the operations after
it take it on (``resize`` or ``ImageOps.fit`` make a black image of the asked size,
``thumbnail`` a 1-pixel-wide one, ``reduce`` raises). A detector's box clipped to the border
meets this in real batches. The GPU holds no empty buffer, and an empty image's pixels cost
nothing to compute, so an operation whose input or result is empty is completed with Pillow when
it is recorded, from the graph so far (a file below decodes, or raises, as in Pillow, whose
operations are eager), and its result becomes a leaf: mode, size and ``info`` are Pillow's own,
and the operations after it go to the GPU again. A result over the GPU's pixel bound (an empty
image resized to 10^5 x 10^5) is not made at the call: it stays recorded, the GPU refuses it,
and ``to_pil()`` makes it with Pillow. An empty leaf (``Image.new`` or ``from_pil`` of an empty
image) is planned as an empty result, with no upload and no dispatch.

An operation on an opened file whose load leaves pixels of another mode than the image says
(an L GIF that loads as P pixels, :func:`pillow_gpu._leaves.loads_in_another_mode`) runs with
Pillow at the call too: Pillow's operations read those pixels (its crop says P, its filter
raises), which no recording made from the header can know.
"""

from __future__ import annotations

from pillow_gpu._cpu import evaluate
from pillow_gpu._graph import Node
from pillow_gpu._leaves import loads_in_another_mode, pil_node

__all__ = ["completed_if_empty", "is_empty", "probe_size"]


def is_empty(size: tuple[int, int]) -> bool:
    """True for a size with no pixels."""
    return not (size[0] and size[1])


def probe_size(size: tuple[int, int]) -> tuple[int, int]:
    """The size of the Pillow probe that checks a call's arguments for an image of ``size``:
    1x1, or the empty size itself (Pillow's histogram of an empty I or F image raises before
    anything a 1x1 probe would check)."""
    return size if is_empty(size) else (1, 1)


def completed_if_empty(node: Node) -> Node:
    """``node``, or where it or an input is empty, or an input is a file that loads in another
    mode than it says, a leaf of Pillow's result of it."""
    width, height = node.size
    if width and height:
        for child in node.inputs:  # every job of a batch records its nodes: no generator
            width, height = child.size
            if not (width and height) or loads_in_another_mode(child):
                break
        else:
            return node
    from pillow_gpu.gpu._planner import MAX_PIXELS  # the planner imports this module

    if node.size[0] * node.size[1] > MAX_PIXELS:
        return node  # a result over the GPU's bound is refused there, not made at the call
    return pil_node(evaluate(node))
