"""Images that carry a palette inside, as Pillow's ``point`` of a P image leaves them.

Pillow's ``point(table, "L")`` (or a callable, or the modes 1, I and F) of a P image makes an
image of the target mode whose C image keeps the P image's palette. Nothing in Python shows it
(``image.palette`` is None), but ``Image.blend`` refuses such an image (``ValueError: image has
wrong mode``), and so does every ``ImageEnhance`` enhancer, which blends. The palette goes
along with the operations whose C code copies it (copies, crops, transposes, transforms,
points to any mode of an image other than I and F, rank and mode filters, pastes onto the
image) and where Pillow copies the whole image on the way (a resize whose box is whole pixels
of the target size, a kernel larger than the image, a blur or unsharp mask of radius 0), and
is lost in the others (resampling resizes, reduce, expand, the convolution filters,
ImageChops, a paste into another image).

:func:`palette_inside` follows a recorded graph of those modes down to that ``point``, so
the recording of a blend raises where Pillow's call raises, and ``getpalette()`` answers with
that palette, as Pillow's does (:func:`palette_source`). A ``from_pil`` leaf of such an image
keeps Pillow's copy of it (:func:`keeps_palette_inside`, a C call of a fraction of a
microsecond per leaf), which keeps the palette, and ends the walk as that ``point`` does.

A result built from GPU bytes gets that palette inside too (:func:`with_palette_inside`): the
bytes are pasted into an image of the node's mode and size keeping it (:func:`palette_bearer`),
so ``getpalette()`` and ``Image.blend`` of the delivered Pillow image answer as of Pillow's.
"""

from __future__ import annotations

from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter

from pillow_gpu import _cpu
from pillow_gpu._convert_info import probe
from pillow_gpu._graph import Node

__all__ = [
    "POINTED_MODES",
    "keeps_palette_inside",
    "palette_bearer",
    "palette_inside",
    "palette_source",
    "refuse_palette_inside",
    "with_palette_inside",
]

#: Operations whose result keeps the palette of their first input (Pillow's C code copies it).
_KEEPS = frozenset(
    {
        "invert", "solarize", "posterize", "autocontrast", "equalize",
        "crop", "transpose", "transform", "putpixel", "paste", "paste_masked", "fill_masked",
        "getchannel",
    }
)  # fmt: skip
#: Modes of Pillow's ``point`` of a P image (its C image keeps the palette).
POINTED_MODES = frozenset({"L", "1", "I", "F"})
#: The table of a ``point`` that keeps every value (of a P image: its indices).
_IDENTITY = list(range(256))
#: Filters Pillow runs through its rank and mode code, which copies the palette.
_KEEPING_FILTERS = (PILImageFilter.RankFilter, PILImageFilter.ModeFilter)


def _keeps(node: Node) -> bool:
    """Whether ``node``'s result keeps its first input's palette inside."""
    op, params = node.op, node.params
    if op in ("point", "point_mode"):  # to any mode; of I and F: point_transform, a new image
        return node.inputs[0].mode not in ("I", "F")
    if op in _KEEPS:
        return True
    if op == "filter":
        return _filter_keeps(params.get("filter"), node.inputs[0].size)
    if op in {"convert", "merge"}:  # to its own mode, or one band: a copy
        return node.inputs[0].mode == node.mode and len(node.inputs) == 1
    if op == "resize":  # NEAREST moves pixels (a transform); a whole-pixel box of the size a crop
        box = params.get("box") or (0, 0, *node.inputs[0].size)
        width, height = node.size
        return params.get("resample") == PILImage.Resampling.NEAREST or (
            box[0] == int(box[0])
            and box[1] == int(box[1])
            and box[2] - box[0] == width
            and box[3] - box[1] == height
        )
    return False


def _filter_keeps(image_filter: object, size: tuple[int, int]) -> bool:
    """Whether Pillow's ``filter(image_filter)`` of an image of ``size`` copies the palette:
    rank and mode filters; a kernel larger than the image (Pillow copies the image); a
    Gaussian or box blur of radius 0 (Pillow's ``copy()``), or of radius 0 across and not
    down (its C code copies the image, then blurs it down in place), and an unsharp mask of
    radius 0, on an image that is not empty. A filter class is made as Pillow makes it."""
    if isinstance(image_filter, type) and issubclass(image_filter, PILImageFilter.Filter):
        try:
            image_filter = image_filter()  # Pillow's filter() calls a class given
        except TypeError:  # one that needs arguments: Pillow raised at the recording
            return False
    if isinstance(image_filter, _KEEPING_FILTERS):
        return True
    if isinstance(image_filter, PILImageFilter.BuiltinFilter):  # Kernel is one
        kernel_width, kernel_height = image_filter.filterargs[0]
        return size[0] < kernel_width or size[1] < kernel_height
    if isinstance(image_filter, (PILImageFilter.GaussianBlur, PILImageFilter.BoxBlur)):
        radius = image_filter.radius
        across, down = radius if isinstance(radius, (tuple, list)) else (radius, radius)
        return (across, down) == (0, 0) or (across == 0 and 0 not in size)
    if isinstance(image_filter, PILImageFilter.UnsharpMask):
        return image_filter.radius == 0 and 0 not in size
    return False


def keeps_palette_inside(image: PILImage.Image) -> bool:
    """Whether Pillow's ``image`` (an L, 1, I or F image) keeps a palette inside."""
    if image.mode not in POINTED_MODES:
        return False
    try:
        image.im.getpalettemode()
    except ValueError:  # "image has no palette": the common case
        return False
    return True


def palette_source(node: Node) -> Node | None:
    """The image whose palette Pillow's image of ``node`` (an L, 1, I or F image) keeps
    inside: the P image it was pointed from, or a ``from_pil`` leaf of an image keeping one
    (its ``image`` parameter); None where it keeps none."""
    while node.mode in POINTED_MODES and node.inputs:  # completed or not: the same image
        source = node.inputs[0]
        if node.op == "point_mode" and source.mode == "P":
            return source
        if not _keeps(node):
            return None
        node = source
    if node.op == "pil" and node.mode in POINTED_MODES:
        kept = node.params.get("image")
        if kept is not None and keeps_palette_inside(kept):
            return node
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


def palette_bearer(node: Node) -> PILImage.Image | None:
    """A 1x1 Pillow image of ``node``'s mode keeping inside the palette Pillow's image of
    ``node`` keeps, or None where it keeps none. Cheap where it keeps none (a walk of the nodes
    that keep a palette); where it keeps one, the P image is probed (or, its palette depending
    on its pixels, completed on the CPU) and pointed to the mode, as Pillow's was."""
    if node.mode not in POINTED_MODES:
        return None
    source = palette_source(node)
    if source is None:
        return None
    if source.mode != "P":  # a from_pil leaf of Pillow's image keeping one: its copy
        kept: PILImage.Image = source.params["image"]
    else:
        found = probe(source)
        kept = _cpu.evaluate(source) if found is None else found
    # One pixel (a crop keeps the palette, and a job keeps this image until its delivery),
    # pointed to the node's mode where it differs (from P, L or 1: a point keeps it too).
    bearer = kept.crop((0, 0, 1, 1))
    return bearer if bearer.mode == node.mode else bearer.point(_IDENTITY, node.mode)


def with_palette_inside(image: PILImage.Image, bearer: PILImage.Image | None) -> PILImage.Image:
    """``image`` (built from GPU bytes) as an image keeping ``bearer``'s palette inside: its
    pixels pasted into a crop of ``bearer`` to its size (a crop keeps the palette) with its
    own ``info``; ``image`` itself where ``bearer`` is None or of another mode."""
    if bearer is None or bearer.mode != image.mode:
        return image
    holder = bearer.crop((0, 0, *image.size))  # any size, empty too; crop keeps it
    holder.im.paste(image.im, (0, 0, *image.size))
    holder.info = image.info
    return holder
