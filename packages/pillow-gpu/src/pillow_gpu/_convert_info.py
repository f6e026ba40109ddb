"""The ``info`` Pillow's ``Image.convert`` gives its result, known without decoding a pixel.

Pillow's ``convert`` rewrites ``info["transparency"]``: it deletes it after promoting the
transparent colour to alpha (L/1 -> LA/RGBA, RGB -> RGBA), converts it to the new mode's colour
(L -> RGB gives ``(t, t, t)``, RGB -> L an int, P -> RGB the palette entry) or deletes it (P ->
RGBA, bytes for P -> RGB). The result info is read off live Pillow converting a small probe
image that carries the node's mode, palette (for P and PA, the palette of its pixels) and info.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, cast

from PIL import Image as PILImage
from PIL import ImageOps, ImagePalette

from pillow_gpu._cpu import (
    convert_options,
    decode_leaf,
    palette_alpha,
    put_palette,
    with_palette_of,
)
from pillow_gpu._graph import Node
from pillow_gpu._palette_state import PaletteState
from pillow_gpu._probes import _probe_image

__all__ = [
    "convert_info",
    "default_mode",
    "fixed_palette",
    "palette_of",
    "probe",
    "putpixel_colour",
]

_PALETTE_MODES = ("P", "PA")


def _header_probe(node: Node, size: tuple[int, int]) -> PILImage.Image:
    # An undecoded file: its header's palette, realised by load() as the decoder's is; none
    # where the header has none (a PNG without a PLTE chunk): Pillow's opened image keeps
    # ``palette`` None, loaded too, and its ``has_transparency_data`` fails an assertion.
    image = PILImage.new(node.mode, size)
    recorded = node.params.get("palette")
    if recorded is None:
        image.palette = None
    else:
        mode, rawmode, data = recorded
        palette = ImagePalette.ImagePalette(mode)
        palette.rawmode, palette.palette, palette.dirty = rawmode, data, 1
        image.palette = palette
    return image


def _palette_probe(node: Node, size: tuple[int, int]) -> PILImage.Image | None:
    cached = node.cache.get()
    if cached is not None or node.op == "pil":  # crop keeps the palette, C level included
        leaf = cached or decode_leaf(node)
        return with_palette_of(leaf.crop((0, 0, *size)), leaf)
    if node.op == "new":
        return PILImage.new(node.mode, size, node.params["color"])
    if node.op == "open":
        return _header_probe(node, size)
    if not node.inputs:
        return None
    source = probe(node.inputs[0], size)
    if source is None:
        return None
    if node.op == "putpalette":  # the recorded palette, on L's values or P's indices
        return put_palette(source, node.params["data"], node.params["rawmode"])
    if node.op == "palette_alpha":  # what a convert wrote into its P source's palette
        return palette_alpha(source, node.params["transparency"])
    if node.op == "convert":  # Pillow's fixed palettes (WEB, grayscale) need no pixels
        if not fixed_palette(node):  # a quantizer's palette depends on every pixel
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return source.convert(node.mode, **convert_options(node.params))
    if node.inputs[0].mode != node.mode:
        return None
    if node.op in _PALETTE_REPLAYS:  # operations that rebuild the palette: Pillow's own steps
        return _PALETTE_REPLAYS[node.op](source, node.params, size)
    if node.op in _PALETTE_KEPT and not _drops_pa_palette(node):
        if source.palette is None:  # a file without a palette: Pillow's result gets an empty one
            source.palette = ImagePalette.ImagePalette()
        return source
    return None  # an operation not known to keep the palette: unknown


#: Operations whose result keeps the palette of their first input, as Pillow's do (``filter``:
#: ModeFilter, the one filter Pillow runs on P, through ``Image._new``).
_PALETTE_KEPT = ("crop", "transpose", "paste", "resize", "point", "filter")


def _drops_pa_palette(node: Node) -> bool:
    """True for a PA result Pillow makes without the palette at the C level, where
    ``getpalette()`` reads it (``[]``): a filter, or a resize by another filter than
    NEAREST."""
    if node.mode != "PA":
        return False
    if node.op == "filter":
        return True
    return node.op == "resize" and node.params.get("resample") != PILImage.Resampling.NEAREST


class _AskedPixels(Exception):
    """A replay asked for the pixels' histogram."""


def _asking_no_pixels(
    replay: Callable[[PILImage.Image], PILImage.Image], source: PILImage.Image
) -> PILImage.Image | None:
    """``replay`` of a copy of the probe ``source``, or None where Pillow's replay asks which
    palette indices the pixels leave unused: ``ImagePalette.getcolor`` places a colour that a
    full palette lacks at the last such index (``image.histogram()``), which the probe's pixels
    cannot tell."""

    def histogram(*_args: Any, **_kwargs: Any) -> list[int]:
        raise _AskedPixels

    probe = source.copy()
    probe.histogram = histogram  # type: ignore[method-assign]
    try:
        return replay(probe)
    except _AskedPixels:
        return None


def _expand_palette(
    source: PILImage.Image, params: Mapping[str, Any], size: tuple[int, int]
) -> PILImage.Image | None:
    # ImageOps.expand makes a new image with the palette of getpalette() (and any fill colour
    # Pillow's getcolor adds), then pastes the source.
    expanded = _asking_no_pixels(
        lambda probe: ImageOps.expand(probe, params["border"], params["fill"]), source
    )
    return None if expanded is None else expanded.crop((0, 0, *size))


def putpixel_colour(value: object) -> bool:
    """Whether Pillow's ``putpixel`` of ``value`` on a P or PA image takes it as a colour to
    find or add in the palette (``getcolor``): a list or tuple of 3 or 4 values."""
    return isinstance(value, (list, tuple)) and len(value) in (3, 4)


def _putpixel_palette(
    source: PILImage.Image, params: Mapping[str, Any], size: tuple[int, int]
) -> PILImage.Image | None:
    # Pillow's putpixel of a colour on a P or PA image finds or adds it in the palette
    # (getcolor); an index leaves the palette as it is.
    value = params["value"]
    if not putpixel_colour(value):
        return source

    def put(probe: PILImage.Image) -> PILImage.Image:
        probe.putpixel((0, 0), value)
        return probe

    return _asking_no_pixels(put, source)


def _transform_palette(
    source: PILImage.Image, params: Mapping[str, Any], size: tuple[int, int]
) -> PILImage.Image:
    # Image.transform makes Image.new(mode, size, fillcolor), then copies the source palette.
    data = params["data"]
    return source.transform(size, params["method"], data, fillcolor=params["fillcolor"])


def _invert_palette(
    source: PILImage.Image, params: Mapping[str, Any], size: tuple[int, int]
) -> PILImage.Image:
    # ImageOps.invert of a P image inverts its palette's colour entries (ImageOps._lut).
    return ImageOps.invert(source)


_PALETTE_REPLAYS: dict[
    str, Callable[[PILImage.Image, Mapping[str, Any], tuple[int, int]], PILImage.Image | None]
] = {
    "expand": _expand_palette,
    "transform": _transform_palette,
    "invert": _invert_palette,
    "putpixel": _putpixel_palette,
}


def fixed_palette(node: Node) -> bool:
    """Whether the palette of ``convert`` node ``node`` is fixed (not a quantizer's).

    Pillow quantizes for an ADAPTIVE palette and for every RGBA -> P/PA conversion.
    """
    if node.params.get("palette", PILImage.Palette.WEB) == PILImage.Palette.ADAPTIVE:
        return False
    return not (node.inputs and node.inputs[0].mode == "RGBA" and node.mode in _PALETTE_MODES)


def probe(node: Node, size: tuple[int, int] = (1, 1)) -> PILImage.Image | None:
    """A black ``size`` image of ``node``'s mode with its palette and info (None: unknown)."""
    if node.mode in _PALETTE_MODES:
        image = _palette_probe(node, size)
        if image is None:
            return None
    else:
        image = _probe_image(node.mode, size)
    image.info.clear()
    image.info.update(node.info)
    return image


def palette_of(node: Node) -> PaletteState | None:
    """The palette Pillow gives P or PA ``node``, at both of its levels (None: not known
    exactly); :meth:`PaletteState.apply` gives it to an image of the node's pixels."""
    image = probe(node)
    return None if image is None else PaletteState.of(image)


def convert_info(
    node: Node,
    mode: str,
    matrix: tuple[float, ...] | None = None,
    *,
    options: Mapping[str, Any] | None = None,
) -> Mapping[str, Any] | None:
    """The ``info`` of Pillow's ``convert(mode, matrix, **options)`` of ``node``, or None where
    it depends on the pixels; ``options``: the ``dither``, ``palette`` and ``colors`` recorded.

    With a matrix Pillow maps an RGB transparency colour through it (its own float formula).
    A conversion to LAB, or from LAB to RGB, RGBA or RGBX, runs through LittleCMS, whose
    result carries only the output profile (``{"icc_profile": ...}``, stamped with the time it
    was made, as each Pillow run's); Pillow's other conversions of LAB (to an adaptive
    palette, which it quantizes first, or through its C convert) keep the image's info.

    A transparency depends on the pixels (None) in an adaptive palette (its index among the
    colours the pixels give), and in Pillow's conversion of a P image to L or RGB where the
    value is a colour (placed in a full palette at an index the histogram shows unused) or
    the palette is known only once the graph runs (an ImageChops or ``posterize`` of P
    images: the index becomes that entry's colour).
    """
    lab = (
        matrix is None
        and node.mode != mode
        and (mode == "LAB" or (node.mode == "LAB" and mode in ("RGB", "RGBA", "RGBX")))
    )
    transparency = node.info.get("transparency")
    if transparency is None:
        return _cms_info(node.mode, mode) if lab else node.info
    if mode == "P" and (options or {}).get("palette") == PILImage.Palette.ADAPTIVE:
        return None
    image = probe(node)
    colour = node.mode == "P" and mode in ("L", "RGB")  # Pillow reads the palette's colour
    if colour and (image is None or isinstance(transparency, tuple)):
        return None
    if image is None:  # a P image whose palette is not recorded: Pillow's checks of the value
        image = _any_palette(node)  # and the result's info do not depend on the palette
    if lab:  # to LAB Pillow converts to RGBA first, and checks the value there
        if mode == "LAB" and node.mode not in ("RGB", "RGBA", "RGBX"):
            _converted(image, "RGBA", None, None)
        return _cms_info(node.mode, mode)
    converted = _converted(image, mode, matrix, options)  # raises what Pillow raises
    return cast("Mapping[str, Any]", dict(converted.info))


def _converted(
    image: PILImage.Image,
    mode: str,
    matrix: tuple[float, ...] | None,
    options: Mapping[str, Any] | None,
) -> PILImage.Image:
    with warnings.catch_warnings():  # Pillow warns again when the pixels are converted
        warnings.simplefilter("ignore")
        return image.convert(mode, matrix, **(options or {}))


def _any_palette(node: Node) -> PILImage.Image:
    """A black 1x1 image of P or PA ``node``'s mode with a full palette and its info."""
    image = PILImage.new(node.mode, (1, 1))
    image.putpalette(bytes(range(256)) * 3)
    image.info.update(node.info)
    return image


def _cms_info(source: str, target: str) -> Mapping[str, Any]:
    # Pillow's LAB conversions end in ImageCms (other modes reach LAB through RGBA), and the
    # transform's output image gets a fresh info holding the output profile only.
    lab_side = ("RGB", "LAB") if target == "LAB" else ("LAB", target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        info = PILImage.new(lab_side[0], (1, 1)).convert(lab_side[1]).info
    return cast("Mapping[str, Any]", dict(info))


def default_mode(node: Node) -> str | None:
    """The mode Pillow's ``convert()`` (no mode) of a P ``node`` picks, None if unknowable.

    Pillow picks the palette's mode, RGBA for an RGB palette with ``info["transparency"]``.
    """
    image = probe(node)
    if image is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return image.convert().mode
