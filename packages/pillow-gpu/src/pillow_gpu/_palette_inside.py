"""Images that carry a palette inside, as Pillow's ``point`` of a P image leaves them.

Pillow's ``point(table, "L")`` (or a callable, or the modes 1, I and F) of a P image makes an
image of the target mode whose C image keeps the P image's palette. Nothing in Python shows it
(``image.palette`` is None), but ``Image.blend`` refuses such an image (``ValueError: image has
wrong mode``), and so does every ``ImageEnhance`` enhancer, which blends. The palette goes
along with the operations whose C code copies it (copies, crops, transposes, transforms, point
tables, rank and mode filters, pastes onto the image) and is lost in the others (resampling
resizes, reduce, expand, the convolution filters, ImageChops, a paste into another image).

:func:`palette_inside` follows a recorded graph of those modes down to that ``point``, so
the recording of a blend raises where Pillow's call raises, and ``getpalette()`` answers with
that palette, as Pillow's does (:func:`palette_source`). Not followed: a ``from_pil`` leaf of
such an image (its copy is of the pixels; reading the C palette of every source would cost
each job).
"""

from __future__ import annotations

from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter

from pillow_gpu._graph import Node

__all__ = ["palette_inside", "palette_source", "refuse_palette_inside"]

#: Operations whose result keeps the palette of their first input (Pillow's C code copies it).
_KEEPS = frozenset(
    {
        "point", "point_mode", "invert", "solarize", "posterize", "autocontrast", "equalize",
        "crop", "transpose", "transform", "putpixel", "paste", "paste_masked", "fill_masked",
        "getchannel",
    }
)  # fmt: skip
#: Modes of Pillow's ``point`` of a P image (its C image keeps the palette).
_POINTED_MODES = frozenset({"L", "1", "I", "F"})
#: Filters Pillow runs through its rank and mode code, which copies the palette.
_KEEPING_FILTERS = (PILImageFilter.RankFilter, PILImageFilter.ModeFilter)


def _keeps(node: Node) -> bool:
    """Whether ``node``'s result keeps its first input's palette inside."""
    op, params = node.op, node.params
    if op in _KEEPS:
        return True
    if op == "filter":
        return isinstance(params.get("filter"), _KEEPING_FILTERS)
    if op in {"convert", "merge"}:  # to its own mode, or one band: a copy
        return node.inputs[0].mode == node.mode and len(node.inputs) == 1
    if op == "resize":  # NEAREST moves pixels (a transform); the same size and box is a copy
        size = node.inputs[0].size
        return params.get("resample") == PILImage.Resampling.NEAREST or (
            node.size == size and tuple(params.get("box", ())) == (0, 0, *size)
        )
    return False


def palette_source(node: Node) -> Node | None:
    """The P image whose palette Pillow's image of ``node`` (an L, 1, I or F image) keeps
    inside, or None where it keeps none."""
    while node.mode in _POINTED_MODES and node.inputs:  # completed or not: the same image
        source = node.inputs[0]
        if node.op == "point_mode" and source.mode == "P":
            return source
        if not _keeps(node):
            return None
        node = source
    return None


def palette_inside(node: Node) -> bool:
    """Whether Pillow's image of ``node`` (an L, 1, I or F image) keeps a P image's palette
    inside."""
    return palette_source(node) is not None


def refuse_palette_inside(*nodes: Node) -> None:
    """Raise Pillow's ``ValueError`` of ``Image.blend`` where an input keeps a palette inside."""
    if any(palette_inside(node) for node in nodes):
        msg = "image has wrong mode"
        raise ValueError(msg)
