"""Evaluation of a lazy graph through real Pillow: the normal (CPU) image routing.

Each operation is replayed with the Pillow call it records. Leaves are decoded or built on the
host. The completed root is cached on its node, so evaluating it again (or a graph that uses it)
never replays the work.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

from PIL import Image as PILImage
from PIL import ImageChops, ImageEnhance, ImageOps, ImagePalette

from pillow_gpu._graph import Node, raise_load_failure, walk
from pillow_gpu._handed_exif import apply_orientation
from pillow_gpu._info_edits import edited_header, handed_out, with_info
from pillow_gpu._pillow_memory import image_of_snapshot
from pillow_gpu.errors import Unsupported

__all__ = [
    "convert_options",
    "decode_leaf",
    "evaluate",
    "open_edited",
    "open_encoded",
    "open_whole",
    "opened_for_query",
    "put_palette",
    "quantized",
    "same_mode_copy",
    "with_palette_of",
]

_Op = Callable[[list[PILImage.Image], Mapping[str, Any]], PILImage.Image]


def open_encoded(params: Mapping[str, Any]) -> PILImage.Image:
    """Open (header only) the file or bytes an ``open`` leaf records; the caller closes it.

    Where the leaf records the format Pillow identified at open, only that plugin is asked
    (the same bytes identify the same way, and the other plugins' checks are skipped)."""
    source = params["path"] if params["data"] is None else io.BytesIO(params["data"])
    known = params.get("format")
    if known is not None and known in PILImage.OPEN:
        return PILImage.open(source, formats=(known,))
    return PILImage.open(source)


def open_whole(params: Mapping[str, Any]) -> PILImage.Image:
    """Open the file or bytes an ``open`` leaf records from its whole bytes read now, so the
    image holds no file handle (and the file may be written over meanwhile)."""
    data = params["data"]
    if data is None:
        with open(params["path"], "rb") as file:  # a str or bytes path, as Pillow takes
            data = file.read()
    return PILImage.open(io.BytesIO(cast("bytes", data)))


def open_edited(node: Node, *, to_load: bool = False) -> PILImage.Image:
    """Open (header only) an ``open`` leaf's file as Pillow's image of it stands: with the
    caller's edits of its ``info`` (:func:`~pillow_gpu._info_edits.edited_header`) made in
    place, as plugins read and extend the dict they hold while loading; the caller closes it.

    ``to_load``: the image is loaded next, so the header ``Image.open`` parsed may serve,
    where the leaf kept it (:mod:`pillow_gpu._kept_header`)."""
    kept = node.params.get("kept_header") if to_load else None
    opened = None if kept is None else kept.armed(*_source(node))
    if opened is None:
        opened = open_encoded(node.params)
    return _with_edits(opened, node)


def _with_edits(opened: PILImage.Image, node: Node) -> PILImage.Image:
    """``opened`` with the caller's edits of ``node``'s info made in place, if any."""
    edited = edited_header(node)
    if edited is not None:
        opened.info.clear()
        opened.info.update(edited)
    return opened


@contextlib.contextmanager
def opened_for_query(node: Node) -> Iterator[PILImage.Image]:
    """:func:`open_edited` of ``node`` for a query that reads no pixels (its EXIF directory),
    closed afterwards: the header ``Image.open`` parsed where the leaf keeps it and it can be
    lent (:meth:`~pillow_gpu._kept_header.KeptHeader.lent`; it stays kept for the decode), else
    a new parse of the file."""
    kept = node.params.get("kept_header")
    lending = contextlib.nullcontext() if kept is None else kept.lent(*_source(node))
    with lending as lent:
        opened = open_encoded(node.params) if lent is None else lent
        try:
            yield _with_edits(opened, node)
        finally:
            if lent is None:
                opened.close()


def _source(node: Node) -> tuple[str | bytes | None, bytes | None]:
    return node.params["path"], node.params["data"]


def loaded_pixels(opened: PILImage.Image) -> PILImage.Image:
    """``opened.copy()`` of a loaded image that is dropped next, without copying its pixels
    where it owns them: a plain image over the same storage. Where the storage maps the file
    (Pillow memory-maps an uncompressed file it reads by path, read-only) the pixels are copied,
    so a later write to the file cannot change them.

    The copy says the mode ``opened`` says, as the opened image Pillow's operations run on
    does, where Pillow's load left its pixels in another: a GIF whose global palette is in
    colour and whose first frame has a grey palette of its own is an L image whose load gives
    P pixels (the global palette applied), on which Pillow's operations read palette indices
    or raise "image has wrong mode" (its own ``copy()`` would say P). It keeps the palette
    object ``opened`` holds in any mode, as a writer given the opened image reads it.
    """
    if opened.readonly or getattr(opened, "map", None) is not None:
        image = same_mode_copy(opened)
    else:
        image = opened._new(opened.im)
        image._mode = opened.mode
    return with_palette_of(image, opened)


def with_palette_of(copy: PILImage.Image, source: PILImage.Image) -> PILImage.Image:
    """``copy`` (Pillow's copy or crop of ``source``, standing for it) holding a palette object
    exactly where ``source`` holds one, as Pillow's copy does not: a copy of the one an RGB or
    RGBA GIF frame after the first keeps (Pillow's GIF writer reads it for the frame's own
    colour table; Pillow's copy and operations drop it, as ours do), and none for a P image
    without one (a PNG without PLTE; Pillow's copy gives it an empty one, where its queries of
    the image itself see None and its ``has_transparency_data`` fails an assertion)."""
    if source.palette is None:
        copy.palette = None
    elif copy.palette is None:
        copy.palette = source.palette.copy()
    return copy


def same_mode_copy(image: PILImage.Image) -> PILImage.Image:
    """``image.copy()``, saying the mode ``image`` says where its pixels are in another (see
    :func:`loaded_pixels`): the image Pillow's operations would run on, not Pillow's copy of it."""
    copy = image.copy()
    copy._mode = image.mode
    return copy


def decode_leaf(node: Node, palette: ImagePalette.ImagePalette | None = None) -> PILImage.Image:
    """Return the host pixels of a leaf node (decoding an encoded file if needed).

    An ``open`` leaf drafted by ``draft()`` or ``thumbnail`` carries the ``draft`` (mode, size)
    request; the same ``draft`` call configures the decoder before loading. A ``palette``
    (a handed-out palette object, pillow_gpu._palettes) is the opened file's while it loads,
    as a palette given to Pillow's opened image before loading is.
    """
    cached = node.cache.get()
    if cached is not None:
        return cached
    params = node.params
    if node.op == "open":
        with open_edited(node, to_load=True) as opened:
            turned = apply_orientation(node, opened)  # the Exif getexif() handed out, edited
            if params.get("draft") is not None:
                opened.draft(*params["draft"])  # (mode, size) as draft() or thumbnail() asked
            if palette is not None:
                opened.palette = palette
            opened.load()
            image = loaded_pixels(opened)
        if (image.mode, image.size) != (node.mode, node.size) and (turned or edited_header(node)):
            raise Unsupported(
                "the edit of the opened file's info or of the Exif getexif() returned changed "
                "how Pillow loads it (a TIFF turns its pixels by the EXIF orientation while "
                "loading), so the operations recorded on its size and mode at open no longer "
                "hold",
                observed=f"{node.mode} {node.size} at open, {image.mode} {image.size} loaded "
                "after the edit",
                fix="edit the info after the image is loaded (load() or an operation first), or "
                "open it with PIL.Image.open, edit, load and wrap it with Image.from_pil",
                stage="decode",
            )
    elif node.op == "pil":
        kept = params.get("image")
        raise_load_failure(node)  # a sought frame Pillow could not load: its error, again
        if kept is not None:
            image = kept
        else:  # a copy of the storage (from_pil): a new image each call
            image = image_of_snapshot(node.mode, node.size, params["stored"])
            image.info.update(node.info)
    elif node.op == "new":
        image = PILImage.new(node.mode, node.size, params["color"])
        image.info.update(node.info)  # e.g. the transparency ImageOps.pad carries over
    else:  # pragma: no cover - guarded by Node.is_leaf
        msg = f"decode_leaf() needs a leaf node; observed op {node.op!r}"
        raise ValueError(msg)
    image = with_info(image, node, (params.get("image"),))
    return image if node.op == "pil" else node.cache.put(image)


#: Targets whose conversion from P writes the source's ``info["transparency"]`` into the
#: source's own C palette (Pillow's ``convert`` calls ``putpalettealpha`` on it).
_PALETTE_ALPHA_TARGETS = frozenset({"LA", "PA", "RGBA"})


def written_palette_alpha(mode: str, info: Mapping[Any, Any], target: str) -> int | bytes | None:
    """The transparency Pillow's ``convert`` of an image of ``mode`` and ``info`` to
    ``target`` writes into that image's own C palette (a P image's ``info["transparency"]``,
    for LA, PA and RGBA), else None (another type of it: Pillow's convert raises first)."""
    transparency = info.get("transparency")
    if mode != "P" or target not in _PALETTE_ALPHA_TARGETS:
        return None
    return transparency if isinstance(transparency, (int, bytes)) else None


def unshared_palette(image: PILImage.Image, target: str) -> PILImage.Image:
    """``image``, or a copy of it with its own C image where Pillow's conversion of it to
    ``target`` would write into its palette. An operation's input is a completed node's
    cached image, which other graphs and handles share (a copy made before, another
    thread's evaluation): Pillow's copy of the source would never see that change."""
    if written_palette_alpha(image.mode, image.info, target) is not None:
        return with_palette_of(image._new(image.im.copy()), image)
    return image


def palette_alpha(image: PILImage.Image, transparency: int | bytes) -> PILImage.Image:
    """A copy of P ``image`` with ``transparency`` written into its C palette, as Pillow's
    ``convert`` to LA, PA or RGBA writes its source's ``info["transparency"]`` there
    (``putpalettealpha``, or ``putpalettealphas`` for bytes)."""
    copy = with_palette_of(image.copy(), image)
    if isinstance(transparency, bytes):
        copy.im.putpalettealphas(transparency)
    else:
        copy.im.putpalettealpha(transparency, 0)
    return copy


def _convert(images: list[PILImage.Image], params: Mapping[str, Any]) -> PILImage.Image:
    source = unshared_palette(images[0], params["mode"])
    return source.convert(params["mode"], params.get("matrix"), **convert_options(params))


def _paste(images: list[PILImage.Image], params: Mapping[str, Any]) -> PILImage.Image:
    out = images[0].copy()
    # Pillow's paste converts a source of another mode to the target's with its convert.
    source = unshared_palette(images[1], out.mode)
    out.paste(source, params["box"], images[2] if len(images) > 2 else None)
    return out


def _fill_masked(images: list[PILImage.Image], params: Mapping[str, Any]) -> PILImage.Image:
    out = images[0].copy()
    out.paste(params["color"], params["box"], images[1])
    return out


def _putpixel(images: list[PILImage.Image], params: Mapping[str, Any]) -> PILImage.Image:
    out = images[0].copy()
    out.putpixel(params["xy"], params["value"])
    return out


def _putalpha(images: list[PILImage.Image], params: Mapping[str, Any]) -> PILImage.Image:
    out = images[0].copy()
    out.putalpha(images[1] if params["alpha"] is None else params["alpha"])
    return out


def _transpose(images: list[PILImage.Image], params: Mapping[str, Any]) -> PILImage.Image:
    out = images[0].transpose(params["method"])
    if "info" in params:  # ImageOps.exif_transpose: Pillow's info, orientation removed
        out.info = dict(params["info"])
    return out


def convert_options(params: Mapping[str, Any]) -> dict[str, Any]:
    """The ``dither``, ``palette`` and ``colors`` a ``convert`` node recorded (P/PA/1 targets)."""
    return {key: params[key] for key in ("dither", "palette", "colors") if key in params}


def _chop(images: list[PILImage.Image], params: Mapping[str, Any]) -> PILImage.Image:
    function = getattr(ImageChops, params["name"])
    extra = {key: params[key] for key in ("scale", "offset") if key in params}
    result: PILImage.Image = function(images[0], images[1], **extra)
    return result


def put_palette(image: PILImage.Image, data: Any, rawmode: str) -> PILImage.Image:
    """``image.putpalette(data, rawmode)`` on a copy (the recorded step, replayed)."""
    copy = image.copy()
    copy.putpalette(data.copy() if isinstance(data, ImagePalette.ImagePalette) else data, rawmode)
    return copy


def quantized(image: PILImage.Image, params: Mapping[str, Any]) -> PILImage.Image:
    """Pillow's ``quantize`` with the recorded arguments."""
    return image.quantize(
        params["colors"], params["method"], params["kmeans"], params["palette"], params["dither"]
    )


_OPS: dict[str, _Op] = {
    "invert": lambda ims, p: ImageOps.invert(ims[0]),
    "chops_invert": lambda ims, p: ImageChops.invert(ims[0]),
    "point": lambda ims, p: ims[0].point(p["lut"] if callable(p["lut"]) else list(p["lut"])),
    "point_mode": lambda ims, p: ims[0].point(p["lut"], p["mode"]),
    "point_handler": lambda ims, p: ims[0].point(p["handler"]),
    "solarize": lambda ims, p: ImageOps.solarize(ims[0], p["threshold"]),
    "posterize": lambda ims, p: ImageOps.posterize(ims[0], p["bits"]),
    "brightness": lambda ims, p: ImageEnhance.Brightness(ims[0]).enhance(p["factor"]),
    "color": lambda ims, p: ImageEnhance.Color(ims[0]).enhance(p["factor"]),
    "contrast": lambda ims, p: ImageEnhance.Contrast(ims[0]).enhance(p["factor"]),
    "equalize": lambda ims, p: ImageOps.equalize(ims[0], ims[1] if p["masked"] else None),
    "autocontrast": lambda ims, p: ImageOps.autocontrast(
        ims[0], p["cutoff"], p["ignore"], ims[1] if p["masked"] else None, p["preserve_tone"]
    ),
    "transpose": _transpose,
    "crop": lambda ims, p: ims[0].crop(p["box"]),
    "expand": lambda ims, p: ImageOps.expand(ims[0], p["border"], p["fill"]),
    "resize": lambda ims, p: ims[0].resize(
        p["size"], p["resample"], p["box"], p.get("reducing_gap")
    ),
    # a list, as Pillow's C path: a (1, 1) reduce node comes from a list factor
    "transform": lambda ims, p: ims[0].transform(
        p["size"], p["method"], p["data"], p["resample"], p["fill"], p["fillcolor"]
    ),
    "reduce": lambda ims, p: ims[0].reduce(list(p["factor"]), p["box"]),  # type: ignore[arg-type]
    "paste": _paste,
    "paste_masked": _paste,
    "fill_masked": _fill_masked,
    "alpha_composite": lambda ims, p: PILImage.alpha_composite(ims[0], ims[1]),
    "putpixel": _putpixel,
    "convert": _convert,
    "getchannel": lambda ims, p: ims[0].getchannel(p["channel"]),
    "merge": lambda ims, p: PILImage.merge(p["mode"], ims),
    "putalpha": _putalpha,
    "chop": _chop,
    "blend": lambda ims, p: PILImage.blend(ims[0], ims[1], p["alpha"]),
    "filter": lambda ims, p: ims[0].filter(p["filter"]),
    "putpalette": lambda ims, p: put_palette(ims[0], p["data"], p["rawmode"]),
    "palette_alpha": lambda ims, p: palette_alpha(ims[0], p["transparency"]),
    "quantize": lambda ims, p: quantized(ims[0], p),
}


#: Operations whose Pillow result copies its input's ``info`` before loading the input: an
#: opened file's result keeps its header's ``info``, without the keys its load adds (an
#: animated WebP's ``duration`` and ``timestamp``; ``ImageOps.expand`` of an image without a
#: palette, a PNG's ``tRNS`` after the pixels), and so does a frame sought and not used
#: since. Replayed on a leaf (the decoded file or frame), their result gets the recorded
#: ``info`` (what the handle showed); on any other input, the replayed input's, which the
#: recording cannot always know (a transparency an adaptive palette's colours place).
_INFO_BEFORE_LOAD = frozenset({"transform", "expand"})


def evaluate(root: Node) -> PILImage.Image:
    """Evaluate ``root`` with Pillow, cache the result on it, and return the cached image."""
    cached = root.cache.get()
    if cached is not None:
        return cached
    results: dict[int, PILImage.Image] = {}
    for node in walk(root):
        done = node.cache.get()
        if done is not None:
            results[id(node)] = done
        elif node.is_leaf:
            results[id(node)] = decode_leaf(node)
        else:
            inputs = [results[id(child)] for child in node.inputs]
            image = with_info(_OPS[node.op](inputs, node.params), node, inputs)
            if node.op in _INFO_BEFORE_LOAD and node.inputs[0].is_leaf:
                image.info = cast("dict[str | tuple[int, int], Any]", handed_out(node.info))
            results[id(node)] = image
    return root.cache.put(results[id(root)])
