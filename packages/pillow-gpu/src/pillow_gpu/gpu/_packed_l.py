"""L images kept as Pillow's bytes on the device: four pixels to a word, rows back to back.

An L leaf uploads Pillow's stored bytes into a *packed* buffer. Per-byte operations (the lookup
table family, ImageChops of two same-size L images, and ``Image.composite`` of three) work
on those words as they are: each stored byte is a pixel, so a lookup whose four rows are the L
table maps four pixels at once, and a per-byte composition of packed images (a mask byte
weighing each pixel) is the composition of their pixels. Rank
filters (median, min, max, rank; size <= 7) read and write packed rows directly when the row
length divides by four (``kernels.rank``, packing 3), and so do BoxBlur, GaussianBlur and
UnsharpMask (``kernels.boxblur``: vertical passes on the packed rows, horizontal passes on
rows regrouped four to a word by ``kernels.interleave_l``) and the 3x3 and 5x5 kernel filters
(``kernels.convolve``, four pixels per invocation). Other widths run the same kernels on rows
of whole words that ``kernels.pad_l`` copies the image into and back out of. Transposes, crops
and expands gather each output byte from the packed source (``kernels.remap``, PACKED = 1).
An L root that is still packed is the terminal as it is (no ``pack_l``). Any other consumer gets the
one-pixel-per-word layout from the ``unpack`` kernel, made once per node on demand.

An L image made from another mode starts packed where every consumer in the graph takes
packed L (or it is the root) and it is one stored byte or the luma of each source word:
``convert("L")`` of RGB, RGBA, RGBX (the luma) and LA, and ``getchannel`` (so ``split``) of
the word modes, written by ``kernels.pack_l`` straight from the source words:
``ImageOps.grayscale`` and what follows it on the L image (a lookup, a filter) never hold one
word per pixel. The other way, a packed L image converted to LA, RGB, RGBA or RGBX is widened
straight into the target's words (``kernels.unpack``'s gray-opaque kind: the byte thrice, then
255, as Pillow's l2rgb writes).

A packed buffer is laid out as a ``(width, height)`` grid of words (:func:`grid`): the image
row length over four when it divides, else a fixed-width grid; trailing words past the last
pixel are padding that no pixel reads.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import ImageFilter

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import band_bytes
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import (
    boxblur,
    chops,
    composite,
    lut,
    pack_l,
    pad_l,
    rank,
    remap,
    unpack,
    unsharp,
)
from pillow_gpu.gpu.lowering.filters import blur_passes, convolution, unsharp_args
from pillow_gpu.gpu.lowering.geometry import expand_ink
from pillow_gpu.gpu.lowering.pointwise import LOWERINGS as _POINTWISE

__all__ = [
    "PACKED_OPS",
    "grid",
    "lower_into_packed",
    "lower_packed",
    "lower_widened",
    "writes_packed",
]

#: Operations that move whole pixels (``kernels.remap``'s integer affine gathers).
_MOVES = frozenset({"transpose", "crop", "expand"})
#: Operations lowered on packed L inputs (every input packed L, the output L); ``filter`` only
#: for the rank filters, the blurs and the kernel filters; ``paste_masked`` only for
#: ``Image.composite`` (three L images of one size, the whole image).
PACKED_OPS = frozenset({*_POINTWISE, *_MOVES, "chop", "blend", "filter", "paste_masked"})
_GRID_WIDTH = 1024
#: ``convert`` targets of L that store Pillow's l2rgb word: the byte thrice, then 255.
_GRAY_OPAQUE_TARGETS = ("LA", "RGB", "RGBA", "RGBX")
#: Of those, the targets whose conversion reads the source's ``transparency``
#: (``convert_transparent``): left to the general conversion when the source has one.
_TRANSPARENT_TARGETS = ("LA", "RGBA")
_BLURS = (ImageFilter.BoxBlur, ImageFilter.GaussianBlur, ImageFilter.UnsharpMask)
_KERNELS = (ImageFilter.Kernel, ImageFilter.BuiltinFilter)


def grid(size: tuple[int, int]) -> tuple[int, int]:
    """The word grid of a packed L image of ``size``: at least ceil(pixels / 4) words."""
    width, height = size
    if width % 4 == 0:
        return (width // 4, height)
    words = -(-width * height // 4)
    columns = min(words, _GRID_WIDTH)
    return (columns, -(-words // columns))


def _packable(node: Node) -> bool:
    if node.mode != "L" or node.op not in PACKED_OPS:
        return False
    if node.op in ("chop", "blend"):  # a per-byte composition only when the images coincide
        return all(child.size == node.size for child in node.inputs)
    if node.op == "paste_masked":  # each pixel weighed by its own mask byte
        return node.params["box"] == (0, 0) and all(
            child.mode == "L" and child.size == node.size for child in node.inputs
        )
    if node.op == "filter":  # rank filters, blurs and kernel filters
        instance = node.params["filter"]
        if isinstance(instance, ImageFilter.RankFilter):
            return instance.size <= rank.MAX_SIZE
        # an inadmissible radius or kernel size raises in lower_packed, as on the general route
        return isinstance(instance, _BLURS + _KERNELS)
    return True


def _packed_band(node: Node) -> int | None:
    """The ``kernels.pack_l`` band that makes L node ``node`` from its input's words, or None."""
    if node.mode != "L" or len(node.inputs) != 1 or node.inputs[0].mode == "L":
        return None
    source = node.inputs[0].mode
    if node.op == "getchannel":
        return band_bytes(source)[node.params["channel"]]
    if node.op != "convert" or node.params.get("matrix") is not None:
        return None
    if source in pack_l.LUMA_SOURCES:
        return pack_l.LUMA
    return 0 if source == "LA" else None  # Pillow's la2l: the L byte


def writes_packed(node: Node, consumers: Sequence[Node]) -> bool:
    """Whether ``node`` is lowered by :func:`lower_into_packed`: its L output is one byte (or
    the luma) of each input word, and each of its ``consumers`` (none for the root) takes
    packed L."""
    return _packed_band(node) is not None and all(_packable(user) for user in consumers)


def lower_into_packed(program: Program, node: Node, src: int) -> int:
    """Lower a node :func:`writes_packed` admits from its input's one-word-per-pixel ``src``."""
    band = _packed_band(node)
    assert band is not None, "lower_into_packed() of a node writes_packed() refuses"
    columns, rows = grid(node.size)
    return pack_l.pack_l(program, src, node.size, band=band, words=columns * rows)


def lower_widened(program: Program, node: Node, inputs: list[int | None]) -> int | None:
    """Lower ``convert`` of a packed L image (``inputs``: its packed buffer, or None) to LA,
    RGB, RGBA or RGBX as one widening into the target's words; None: not such a node."""
    if (
        node.op != "convert"
        or node.mode not in _GRAY_OPAQUE_TARGETS
        or len(inputs) != 1
        or inputs[0] is None
        or node.inputs[0].mode != "L"
        or node.params.get("matrix") is not None
        or (node.mode in _TRANSPARENT_TARGETS and "transparency" in node.inputs[0].info)
    ):
        return None
    return unpack.unpack(program, inputs[0], node.size, unpack.GRAY_OPAQUE)


def lower_packed(program: Program, node: Node, inputs: list[int | None]) -> int | None:
    """Lower ``node`` on packed inputs (None where an input is not packed); None: cannot."""
    sources = [buffer for buffer in inputs if buffer is not None]
    if not _packable(node) or len(sources) != len(inputs):
        return None
    words = grid(node.size)
    if node.op in _MOVES:
        return _moved(program, node, sources[0], words)
    if node.op in ("chop", "blend"):
        if node.op == "blend":
            name, table = "blend", chops.blend_table(node.params["alpha"])
        else:
            name, table = node.params["name"], None
            if name in ("add", "subtract"):
                table = chops.scaled_table(name, node.params["scale"], node.params["offset"])
        a, b = sources
        return chops.lower(program, a, words, b=b, b_size=words, name=name, table=table)
    if node.op == "paste_masked":
        base, src, mask = sources
        return composite.packed_l_composite(program, base, src, mask, words)
    if node.op == "filter":
        instance = node.params["filter"]
        if node.size[0] % 4 == 0:
            return _filter_rows(program, node, sources[0], node.size)
        # rows that start inside a word: whole-word rows and back (kernels.pad_l)
        prior = program.lookups.get(sources[0])
        if prior is not None and isinstance(instance, ImageFilter.RankFilter):
            # the lookup replayed on the rows, where the rank filter can fold an inversion in
            rows = pad_l.to_rows(program, prior[0], node.size)
            rows = lut.lower(program, rows, (pad_l.row_words(node.size[0]), node.size[1]), prior[1])
        else:
            rows = pad_l.to_rows(program, sources[0], node.size)
        padded = (4 * pad_l.row_words(node.size[0]), node.size[1])
        rows = _filter_rows(program, node, rows, padded)
        return pad_l.to_pillow(program, rows, node.size, words[0] * words[1])
    table = lut.tables_for(node.op, "L", node.params)
    return lut.lower(program, sources[0], words, np.stack([table[0]] * 4))


def _moved(program: Program, node: Node, src: int, words: tuple[int, int]) -> int:
    """A transpose, crop or expand of packed L, gathered byte by byte into packed L."""
    size = node.inputs[0].size
    if node.op == "transpose":
        return remap.transpose(program, src, size, node.params["method"], packed_grid=words)
    if node.op == "crop":
        return remap.crop(program, src, size, node.params["box"], packed_grid=words)
    ink = expand_ink("L", node.params["fill"])
    return remap.expand(program, src, size, node.params["border"], ink, packed_grid=words)


def _filter_rows(program: Program, node: Node, rows: int, padded: tuple[int, int]) -> int:
    """A ``filter`` node on L rows of whole words, ``padded`` pixels wide.

    The blurs clamp at the node's own width and never read the padding, and a kernel filter's
    taps stay inside it (its border columns keep their bytes); a rank filter runs over the
    padded width, whose padding repeats each row's last pixel (``kernels.pad_l``).
    """
    instance = node.params["filter"]
    if isinstance(instance, _KERNELS):
        return convolution(program, node, rows, instance, packed=True, columns=padded[0] // 4)
    if isinstance(instance, ImageFilter.UnsharpMask):
        box_radius, percent, threshold = unsharp_args(node, instance)
        return unsharp.lower(
            program,
            rows,
            node.size,
            box_radius=box_radius,
            percent=percent,
            threshold=threshold,
            packed=True,
        )
    if isinstance(instance, (ImageFilter.BoxBlur, ImageFilter.GaussianBlur)):
        radii, passes = blur_passes(node, instance)
        return boxblur.lower(program, rows, node.size, radii, passes, packed=True)
    return rank.lower(
        program, rows, padded, window=instance.size, rank=instance.rank, mask=0b0001, packed=True
    )
