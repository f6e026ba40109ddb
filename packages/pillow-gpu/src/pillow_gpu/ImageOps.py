"""Lazy counterparts of the ``PIL.ImageOps`` functions pillow-gpu records.

``contain``, ``cover``, ``fit``, ``pad`` and ``scale`` replay Pillow 13's Python code on lazy
operations (``resize``, ``Image.new``, ``paste``), so their graphs are the calls Pillow makes.

Every image argument may be a lazy image or a ``PIL.Image.Image`` (recorded from its pixels at
the call, as ``Image.from_pil`` records them; see :mod:`pillow_gpu._pil_inputs`).
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast, overload

from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from PIL import ImagePalette

from pillow_gpu import _cpu
from pillow_gpu._empty import probe_size
from pillow_gpu._graph import Node, undecoded_file, walk
from pillow_gpu._handed_exif import ORIENTATION
from pillow_gpu._info_edits import RelabelledNode, edited_header
from pillow_gpu._pil_inputs import accepts_pil
from pillow_gpu._png_tail import LATE_ORIENTATION
from pillow_gpu._probes import _probe, _probe_image, _probe_mode, _tiny_size
from pillow_gpu._transposed_info import info_probe, probe_transposed
from pillow_gpu.errors import Unsupported
from pillow_gpu.Image import Image, from_pil, new

__all__ = [
    "autocontrast",
    "colorize",
    "contain",
    "cover",
    "crop",
    "equalize",
    "exif_transpose",
    "expand",
    "fit",
    "flip",
    "grayscale",
    "invert",
    "mirror",
    "pad",
    "posterize",
    "scale",
    "solarize",
]

_BICUBIC = PILImage.Resampling.BICUBIC
_Color = str | int | tuple[int, ...] | None

#: Every L value once: live Pillow's colorize of this ramp is its per-value table.
_RAMP = PILImage.frombytes("L", (256, 1), bytes(range(256)))


@accepts_pil("image")
def invert(image: Image) -> Image:
    """Record ``ImageOps.invert`` (255 - x; Pillow allows L and RGB here)."""
    _probe_mode(PILImageOps.invert, image.mode)
    return image._derive("invert", {})


@accepts_pil("image")
def equalize(image: Image, mask: Image | PILImage.Image | None = None) -> Image:
    """Record ``ImageOps.equalize``: Pillow's per-band histogram equalization (L and RGB).

    Only pixels where ``mask`` (mode 1 or L, the image's size) is non-zero are counted, as
    Pillow's ``Image.histogram(mask)``. A P image is converted to RGB first, as Pillow does.
    Nothing is computed when recording; the GPU route builds the table on the device.
    """
    extra: list[Image] = []
    if mask is None:
        _probe(PILImageOps.equalize, image.mode, size=probe_size(image.size))
    elif not isinstance(mask, (Image, PILImage.Image)):
        PILImageOps.equalize(_probe_image(image.mode), mask)  # Pillow's own error
        msg = f"equalize() needs an image mask; observed {type(mask).__name__}"
        raise TypeError(msg)
    else:
        mask_image = mask if isinstance(mask, Image) else from_pil(mask)
        mask_size = (1, 1) if mask_image.size == image.size else (2, 1)  # Pillow's size check
        PILImageOps.equalize(_probe_image(image.mode), _probe_image(mask_image.mode, mask_size))
        extra.append(mask_image)
    if image.mode == "P":
        image = image.convert("RGB")
    return image._derive("equalize", {"masked": mask is not None}, extra=extra)


def _ignored_bins(ignore: int | Sequence[int] | None) -> tuple[int, ...]:
    """The histogram bins Pillow zeroes for ``ignore`` (already validated by a probe)."""
    if ignore is None:
        return ()
    values = [ignore] if isinstance(ignore, int) else ignore
    return tuple(sorted({operator.index(value) % 256 for value in values}))


@accepts_pil("image")
def autocontrast(
    image: Image,
    cutoff: float | tuple[float, float] = 0,
    ignore: int | Sequence[int] | None = None,
    mask: Image | PILImage.Image | None = None,
    preserve_tone: bool = False,
) -> Image:
    """Record ``ImageOps.autocontrast``: Pillow's per-band histogram stretch (L and RGB).

    Only pixels where ``mask`` (mode 1 or L, the image's size) is non-zero are counted, as
    Pillow's ``Image.histogram(mask)``; ``preserve_tone`` uses the histogram of
    ``convert("L")`` for every band. Nothing is computed when recording; the GPU route finds
    the range and its table on the device.
    """
    if ignore is not None and not isinstance(ignore, int):
        with contextlib.suppress(TypeError):  # not iterable: the probe raises Pillow's error
            ignore = tuple(ignore)  # iterated twice below (probe and bins): keep the values

    def call(im: PILImage.Image, mask_image: PILImage.Image | None = None) -> PILImage.Image:
        return PILImageOps.autocontrast(im, cutoff, ignore, mask_image, preserve_tone)

    extra: list[Image] = []
    if mask is None:
        _probe(call, image.mode, size=probe_size(image.size))
    elif not isinstance(mask, (Image, PILImage.Image)):
        call(_probe_image(image.mode), mask)  # Pillow's own error
        msg = f"autocontrast() needs an image mask; observed {type(mask).__name__}"
        raise TypeError(msg)
    else:
        mask_image = mask if isinstance(mask, Image) else from_pil(mask)
        mask_size = (1, 1) if mask_image.size == image.size else (2, 1)  # Pillow's size check
        call(_probe_image(image.mode), _probe_image(mask_image.mode, mask_size))
        extra.append(mask_image)
    params = {
        "cutoff": cutoff,
        "ignore": ignore,
        "ignored": _ignored_bins(ignore),
        "masked": mask is not None,
        "preserve_tone": bool(preserve_tone),
    }
    return image._derive("autocontrast", params, extra=extra)


@accepts_pil("image")
def flip(image: Image) -> Image:
    """Record ``ImageOps.flip`` (top to bottom)."""
    return image.transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)


@accepts_pil("image")
def mirror(image: Image) -> Image:
    """Record ``ImageOps.mirror`` (left to right)."""
    return image.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT)


@accepts_pil("image")
def deform(image: Image, deformer: Any, resample: int = PILImage.Resampling.BILINEAR) -> Image:
    """Record ``ImageOps.deform``: the MESH transform ``deformer.getmesh(image)`` gives."""
    mesh = deformer.getmesh(image)
    return image.transform(image.size, PILImage.Transform.MESH, mesh, resample)


#: Pillow's exif_transpose: EXIF orientation (tag 0x0112) -> the transpose that undoes it.
_EXIF_METHODS = {
    2: PILImage.Transpose.FLIP_LEFT_RIGHT,
    3: PILImage.Transpose.ROTATE_180,
    4: PILImage.Transpose.FLIP_TOP_BOTTOM,
    5: PILImage.Transpose.TRANSPOSE,
    6: PILImage.Transpose.ROTATE_270,
    7: PILImage.Transpose.TRANSVERSE,
    8: PILImage.Transpose.ROTATE_90,
}


def _opened_orientation(image: Image) -> tuple[Any, bool, bool, dict[str, Any] | None] | None:
    """(orientation, is TIFF, the TIFF's size changes while loading, the loaded ``info`` or
    None) as the file Pillow opens sees it, for an undecoded open leaf.

    Pillow's ``exif_transpose`` asks the opened image itself, whose plugin may have read the
    EXIF already: the JPEG plugin does so while opening (for the DPI) and keeps whatever part
    of a corrupt or truncated EXIF it parsed, so its ``exif_transpose`` copes where a fresh
    parse of the same bytes raises. The header is opened again and asked the same question,
    so the answer and any exception are Pillow's.

    A PNG without an ``exif`` chunk before its data makes Pillow's ``getexif`` load the image
    and read what follows the pixels. Where the leaf's ``info`` is that loaded one already
    (``header_info`` kept beside it, :mod:`pillow_gpu._load_info`), or nothing after the pixels
    can carry an orientation (the leaf's ``late`` metadata, :mod:`pillow_gpu._png_tail`), this
    returns None and ``info`` answers, as it would for Pillow's loaded image; otherwise the
    header copy is loaded as Pillow loads it (the pixels are decoded once here), and its
    orientation and loaded ``info`` are returned; a leaf decoded already answers from its
    decoded image the same way. None where the node is not an ``open`` leaf, or is one decoded
    already (other files).

    Pillow's TIFF plugin transposes the pixels while loading, as the EXIF orientation asks; it
    reports the transposed size from the header's orientation tag already at open, but not from
    an orientation that only the XMP packet gives (then the size changes while loading).
    """
    node = image.node
    if node.op != "open":
        return None
    late = LATE_ORIENTATION in node.params.get("late", ())
    cached = node.cache.get()
    # Decoded already (load(), to_pil()): Pillow's loaded image answers; unless the caller
    # edited its info, which the opened file answers for as Pillow's image would (a JPEG's
    # EXIF was read at open, before the edit).
    if cached is not None and edited_header(node) is None:
        return _loaded_orientation(cached) if late else None
    if node.params.get("format") == "PNG" and "header_info" in node.params:
        return None  # the node's info is the loaded one Pillow's getexif reads: info answers
    read_at_open = node.params.get("opened_orientation")  # a JPEG's, read while opening
    if read_at_open is not None:
        return read_at_open[0], False, False, None
    if node.params.get("exif_from_info"):  # Pillow's getexif reads the info, edits included
        edited = edited_header(node)
        info = edited if edited is not None else node.params.get("header_info", node.info)
        return info_probe(info).getexif().get(ORIENTATION, 1), False, False, None
    with _cpu.opened_for_query(node) as header:  # the info Pillow's getexif reads, edited
        is_tiff = hasattr(header, "tag_v2")
        own = type(header).getexif is not PILImage.Image.getexif
        if own and not is_tiff and "exif" not in header.info:
            return _loaded_orientation(header) if late else None  # getexif loads, as Pillow's
        orientation = header.getexif().get(ORIENTATION, 1)  # the IFD is read, not pixels
        swaps = orientation in (5, 6, 7, 8)  # a quarter turn: width and height swap
        tagged = node.params.get("orientation_tag")  # what sized the header
        return orientation, is_tiff, is_tiff and swaps and tagged not in (5, 6, 7, 8), None


def _loaded_orientation(image: PILImage.Image) -> tuple[Any, bool, bool, dict[str, Any]]:
    """:func:`_opened_orientation`'s answer from a loaded (or, for a PNG, loading) image: its
    orientation, then its ``info`` with what followed the pixels."""
    orientation = image.getexif().get(ORIENTATION, 1)
    return orientation, False, False, cast("dict[str, Any]", dict(image.info))


def _relabelled(node: Node, info: Mapping[str, Any], params: Mapping[str, Any]) -> Image:
    """A handle on ``node``'s operation with other ``info`` and ``params``, whose result every
    route gives that ``info`` (a relabelled node: the CPU route too, where ``node`` is the leaf
    of Pillow's result of an empty image, which carries the info it had)."""
    return Image(
        RelabelledNode(
            op=node.op, params=params, inputs=node.inputs, mode=node.mode, size=node.size, info=info
        )
    )


def _late_orientation_below(node: Node) -> bool:
    """True when a PNG leaf under ``node`` (``node`` itself excluded) carries orientation
    metadata after its pixels that Pillow's operations load into ``info`` and ``node``'s
    recorded ``info`` lacks (the leaf's loaded info is unknown: a PNG whose chunks after the
    pixels Pillow cannot read, :func:`pillow_gpu._png_tail.loaded_info`)."""
    return any(
        leaf is not node
        and leaf.op == "open"
        and LATE_ORIENTATION in leaf.params.get("late", ())
        and "header_info" not in leaf.params
        for leaf in walk(node)
    )


@overload
def exif_transpose(image: Image | PILImage.Image, *, in_place: Literal[True]) -> None: ...
@overload
def exif_transpose(image: Image | PILImage.Image, *, in_place: Literal[False] = False) -> Image: ...
def exif_transpose(image: Image | PILImage.Image, *, in_place: bool = False) -> Image | None:
    """Record ``ImageOps.exif_transpose``: the transpose the EXIF orientation asks for.

    The orientation comes from the opened file as Pillow's opened image reports it (a JPEG's
    corrupt or truncated EXIF is handled as Pillow handles it), and the result's ``info``
    (orientation removed from ``exif``, ``Raw profile type exif`` and XMP) from Pillow's own
    ``exif_transpose`` run on a 1x1 probe carrying this image's ``info``; no pixel is decoded.
    Without a transpose the result is a copy (an ``Image.open`` leaf becomes a full crop, so a
    later ``thumbnail`` does not draft, as in Pillow, whose ``exif_transpose`` loads the image).
    An oriented TIFF is a copy too: Pillow's ``exif_transpose`` loads it first, and its TIFF
    plugin transposes while loading (the leaf decodes the same way); only a TIFF oriented by
    its XMP packet alone to a quarter turn, whose size Pillow changes while loading, raises
    ``Unsupported``.
    With ``in_place=True`` the handle is pointed at that result and None is returned, as
    Pillow changes its image in place. A ``PIL.Image.Image`` is recorded from its pixels now
    (as ``Image.from_pil``); with ``in_place=True`` it is the caller's own image, so Pillow
    transposes it in place.
    """
    if isinstance(image, PILImage.Image):
        if in_place:
            PILImageOps.exif_transpose(image, in_place=True)
            return None
        image = from_pil(image)
    result = _exif_transposed(image, in_place=in_place)
    if not in_place:
        return result
    image._node = result.node
    if result._exif is not None:  # Pillow's image keeps the Exif its exif_transpose parsed
        image._exif = result._exif
    return None


def _exif_transposed(image: Image, *, in_place: bool = False) -> Image:
    """``exif_transpose(image)``'s result as a new image (see :func:`exif_transpose`).

    Where the caller has asked ``getexif()`` before, Pillow's ``exif_transpose`` reads the
    orientation from that ``Exif`` (the caller's edits of it included), and in place it
    deletes the orientation from it and writes it back to ``info``; so does this. A transposed
    result keeps the ``Exif`` Pillow's result keeps
    (:func:`~pillow_gpu._transposed_info.probe_transposed`).
    """
    handed = image._exif
    # Read before the handle's first use below, where an opened TIFF loads and Pillow's
    # plugin deletes the orientation it turned the pixels by from the handed Exif.
    handed_orientation: Any = None if handed is None else handed.get(ORIENTATION, 1)
    opened = _opened_orientation(image)
    if opened is None and _late_orientation_below(image.node):
        raise Unsupported(
            "the image comes from a PNG whose orientation metadata follows its pixels: Pillow "
            "reads it into info when an operation loads the file, and the recorded info has "
            "only the header's",
            observed=f"exif_transpose of a {image.node.op!r} result of such a PNG",
            fix="call ImageOps.exif_transpose on the opened image first, or evaluate with to_pil()",
            stage="admission",
        )
    is_tiff = opened is not None and opened[1]
    loaded = opened[3] if opened is not None else None
    if opened is not None and opened[2]:
        raise Unsupported(
            "Pillow transposes a TIFF oriented by its XMP packet while loading it, so its size "
            "changes after Image.open and the lazy leaf cannot describe it",
            observed=f"TIFF orientation {opened[0]} from XMP only",
            fix="open it with PIL.Image.open, call PIL.ImageOps.exif_transpose, and wrap the "
            "result with pillow_gpu.Image.from_pil",
            stage="admission",
        )
    source_info = image.node.info if loaded is None else loaded
    probe = None  # a 1x1 image carrying source_info, made where it is read
    if handed is not None:
        orientation = handed_orientation
    elif opened is not None:
        orientation = opened[0]
    else:
        probe = info_probe(source_info)
        orientation = probe.getexif().get(ORIENTATION, 1)
    if is_tiff and _EXIF_METHODS.get(orientation) is not None:
        # Pillow's TIFF plugin turned the pixels while loading (by the handed Exif where there
        # is one: the leaf decodes so, pillow_gpu._handed_exif) and took the turn out of info.
        probe = info_probe(source_info) if probe is None else probe
        exif = handed if handed is not None else probe.getexif()
        exif[ORIENTATION] = orientation  # the use above deleted it from the handed Exif
        loaded = dict(probe_transposed(probe, exif, orientation, in_place=True)[0])
    method = None if is_tiff else _EXIF_METHODS.get(orientation)
    if method is None:
        copy = image._whole_crop() if image.node.op == "open" else image.copy()
        if loaded is None:
            return copy
        return _relabelled(copy.node, loaded, copy.node.params)  # Pillow's copy: loaded info
    probe = info_probe(source_info) if probe is None else probe
    info, kept = probe_transposed(probe, handed, orientation, in_place=in_place)
    node = image.transpose(method).node
    # The CPU route sets Pillow's info on its result (params "info").
    result = _relabelled(node, info, {**node.params, "info": info})
    result._exif = kept
    return result


@accepts_pil("image")
def solarize(image: Image, threshold: int = 128) -> Image:
    """Record ``ImageOps.solarize``: x if x < threshold else 255 - x."""
    _probe(lambda im: PILImageOps.solarize(im, threshold), image.mode)
    return image._derive("solarize", {"threshold": threshold})


@accepts_pil("image")
def posterize(image: Image, bits: int) -> Image:
    """Record ``ImageOps.posterize``: keep the top ``bits`` bits of each sample."""
    _probe(lambda im: PILImageOps.posterize(im, bits), image.mode)
    return image._derive("posterize", {"bits": bits})


@accepts_pil("image")
def grayscale(image: Image) -> Image:
    """Record ``ImageOps.grayscale`` (``convert("L")``)."""
    return image.convert("L")


def _border(border: int | tuple[int, ...]) -> tuple[int, int, int, int]:
    """Pillow 13's ``ImageOps._border``: one width, (horizontal, vertical) or four widths."""
    if isinstance(border, tuple):
        if len(border) == 2:
            left, top = right, bottom = border
        elif len(border) == 4:
            left, top, right, bottom = border
        else:
            msg = "border must be an integer, or a tuple of two or four elements"
            raise ValueError(msg)
    else:
        left = top = right = bottom = border
    return left, top, right, bottom


@accepts_pil("image")
def expand(image: Image, border: int | tuple[int, ...] = 0, fill: object = 0) -> Image:
    """Record ``ImageOps.expand``: a ``fill`` border around ``image``.

    Pillow's own steps (``_new_with_fill`` and ``paste``) validate the border and ``fill`` on
    a 1x1 image of the mode and a result of at most 2 x 2 pixels with the same validity as the
    real one (see ``Image._tiny_size``), so recording allocates nothing of the result's size.
    A colour for a P or PA image is validated on the completed image, whose palette and pixels
    decide whether Pillow finds room for it.
    """
    left, top, right, bottom = _border(border)
    width = left + image.width + right
    height = top + image.height + bottom
    tiny, edges = _tiny_size((width, height))
    source = _probe_image(image.mode)
    if image._stray_palette() is not None:  # Pillow puts it on the result: its error
        source.palette = ImagePalette.ImagePalette()
    filled = source
    if image.mode in ("P", "PA") and (isinstance(fill, str) or _is_colour_tuple(fill)):
        # Pillow's getcolor finds or adds the colour in the image's palette, and where that
        # is full looks for an index the pixels leave unused (else ValueError): the image's
        # own palette and pixels decide, so the completed image is asked.
        filled = image._pixels()
    out = PILImageOps._new_with_fill(filled, tiny, fill)  # type: ignore[arg-type]
    out.paste(source, (left, top))
    size = (width, height) if edges is None else (edges[0], edges[1])
    params = {"border": (left, top, right, bottom), "fill": fill}
    # Pillow's _new_with_fill copies the transparency of the info its image shows then: the
    # loaded one where the image holds a palette (its getpalette loads it first), else, for an
    # opened file not loaded yet, the header's (a PNG's tRNS after the pixels is not in it).
    shown = image.node.info if _holds_palette(image) else image.info
    info = {key: shown[key] for key in ("transparency",) if key in shown}
    return image._derive("expand", params, size=size, info=info)


def _holds_palette(image: Image) -> bool:
    """Whether Pillow's image of ``image`` has a palette object: a P or PA image (an opened
    file whose header has none aside), or the frame of a GIF that keeps one beside RGB."""
    if image.mode in ("P", "PA"):
        node = image._peek_node()
        return not (undecoded_file(node) and node.params.get("palette") is None)
    return image._stray_palette() is not None


def _is_colour_tuple(fill: object) -> bool:
    """Whether ``fill`` is an RGB or RGBA colour (which a P image's palette must hold)."""
    return isinstance(fill, tuple) and len(fill) in (3, 4)


@accepts_pil("image")
def crop(image: Image, border: int = 0) -> Image:
    """Record ``ImageOps.crop``: remove ``border`` pixels from every side."""
    left, top, right, bottom = _border(border)
    return image.crop((left, top, image.width - right, image.height - bottom))


@accepts_pil("image")
def colorize(  # noqa: PLR0917 - Pillow's positional signature
    image: Image,
    black: str | tuple[int, ...],
    white: str | tuple[int, ...],
    mid: str | int | tuple[int, ...] | None = None,
    blackpoint: int = 0,
    whitepoint: int = 255,
    midpoint: int = 127,
) -> Image:
    """Record ``ImageOps.colorize`` of an L image as ``convert("RGB")`` + ``point(table)``.

    That is how Pillow computes it; the table is live Pillow's colorize of a 0..255 ramp.
    """

    def call(im: PILImage.Image) -> PILImage.Image:
        return PILImageOps.colorize(im, black, white, mid, blackpoint, whitepoint, midpoint)

    _probe(call, image.mode)
    table = [value for band in call(_RAMP).split() for value in band.tobytes()]
    return image.convert("RGB").point(table)


def _aspect_size(image: Image, size: tuple[int, int], *, cover: bool) -> tuple[int, int]:
    """Pillow's contain/cover target size: ``size`` with one edge recomputed from the aspect
    ratio (the fitted edge for contain, the covering edge for cover), rounded as Pillow does.
    ``image.height`` and ``size[1]`` are non-zero."""
    im_ratio = image.width / image.height
    dest_ratio = size[0] / size[1]
    if im_ratio != dest_ratio:
        if (im_ratio > dest_ratio) != cover:
            new_height = round(image.height / image.width * size[0])
            if new_height != size[1]:
                size = (size[0], new_height)
        else:
            new_width = round(image.width / image.height * size[1])
            if new_width != size[0]:
                size = (new_width, size[1])
    return size


@accepts_pil("image")
def contain(image: Image, size: tuple[int, int], method: int = _BICUBIC) -> Image:
    """Record ``ImageOps.contain``: the largest aspect-preserving resize within ``size``."""
    if image.height == 0:
        return new(image.mode, (size[0], 0))
    if size[1] == 0:
        return new(image.mode, (0, 0))
    size = _aspect_size(image, size, cover=False)
    if min(size) == 0:
        return new(image.mode, size)
    return image.resize(size, resample=method)


@accepts_pil("image")
def cover(image: Image, size: tuple[int, int], method: int = _BICUBIC) -> Image:
    """Record ``ImageOps.cover``: the smallest aspect-preserving resize covering ``size``."""
    if image.height == 0:
        return new(image.mode, (size[0], 0))
    if size[1] == 0:
        return new(image.mode, (0, 0))
    return image.resize(_aspect_size(image, size, cover=True), resample=method)


@accepts_pil("image")
def pad(
    image: Image,
    size: tuple[int, int],
    method: int = _BICUBIC,
    color: _Color = None,
    centering: tuple[float, float] = (0.5, 0.5),
) -> Image:
    """Record ``ImageOps.pad``: ``contain``, then ``color`` borders up to ``size``.

    Pillow pastes the contained image at ``(x, 0)`` or ``(0, y)`` onto ``_new_with_fill`` of
    ``size``, which is exactly ``ImageOps.expand`` of the borders around it (the palette, and
    only ``info["transparency"]``, carried as Pillow carries them).
    """
    resized = contain(image, size, method)
    if resized.size == size:
        return resized
    if resized.width != size[0]:
        x = round((size[0] - resized.width) * max(0, min(centering[0], 1)))
        border = (x, 0, size[0] - resized.width - x, 0)
    else:
        y = round((size[1] - resized.height) * max(0, min(centering[1], 1)))
        border = (0, y, 0, size[1] - resized.height - y)
    return expand(resized, border, color)


@accepts_pil("image")
def scale(image: Image, factor: float, resample: int = _BICUBIC) -> Image:
    """Record ``ImageOps.scale``: resize both sides by ``factor`` (rounded)."""
    if factor == 1:
        return image.copy()
    if factor <= 0:
        msg = "the factor must be greater than 0"
        raise ValueError(msg)
    size = (round(factor * image.width), round(factor * image.height))
    return image.resize(size, resample)


@accepts_pil("image")
def fit(
    image: Image,
    size: tuple[int, int],
    method: int = _BICUBIC,
    bleed: float = 0.0,
    centering: tuple[float, float] = (0.5, 0.5),
) -> Image:
    """Record ``ImageOps.fit``: one ``resize`` with the crop box Pillow computes."""
    if min(size) == 0:
        return new(image.mode, size)
    centering_x, centering_y = centering
    if not 0.0 <= centering_x <= 1.0:
        centering_x = 0.5
    if not 0.0 <= centering_y <= 1.0:
        centering_y = 0.5
    if not 0.0 <= bleed < 0.5:
        bleed = 0.0
    bleed_pixels = (bleed * image.size[0], bleed * image.size[1])
    live_size = (image.size[0] - bleed_pixels[0] * 2, image.size[1] - bleed_pixels[1] * 2)
    if live_size[1] == 0:
        return new(image.mode, size)
    live_size_ratio = live_size[0] / live_size[1]
    output_ratio = size[0] / size[1]
    if live_size_ratio == output_ratio:
        crop_width, crop_height = live_size
    elif live_size_ratio >= output_ratio:  # wider than needed: crop the sides
        crop_width, crop_height = output_ratio * live_size[1], live_size[1]
    else:  # taller than needed: crop the top and bottom
        crop_width, crop_height = live_size[0], live_size[0] / output_ratio
    crop_left = bleed_pixels[0] + (live_size[0] - crop_width) * centering_x
    crop_top = bleed_pixels[1] + (live_size[1] - crop_height) * centering_y
    box = (crop_left, crop_top, crop_left + crop_width, crop_top + crop_height)
    return image.resize(size, method, box=box)
