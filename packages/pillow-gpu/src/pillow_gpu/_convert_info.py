"""The ``info`` Pillow's ``Image.convert`` gives its result, known without decoding a pixel.

Pillow's ``convert`` rewrites ``info["transparency"]``: it deletes it after promoting the
transparent colour to alpha (L/1 -> LA/RGBA, RGB -> RGBA), converts it to the new mode's colour
(L -> RGB gives ``(t, t, t)``, RGB -> L an int, P -> RGB the palette entry) or deletes it (P ->
RGBA, bytes for P -> RGB). The result info is read off live Pillow converting a small probe
image that carries the node's mode, palette (for P and PA, the palette of its pixels) and info.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, cast

from PIL import Image as PILImage
from PIL import ImagePalette

from pillow_gpu._graph import Node

__all__ = ["convert_info", "default_mode", "probe"]

_PALETTE_MODES = ("P", "PA")


def _header_probe(node: Node, size: tuple[int, int]) -> PILImage.Image:
    # An undecoded file: its header's palette, realised by load() as the decoder's is.
    image = PILImage.new(node.mode, size)
    recorded = node.params.get("palette")
    if recorded is not None:
        mode, rawmode, data = recorded
        palette = ImagePalette.ImagePalette(mode)
        palette.rawmode, palette.palette, palette.dirty = rawmode, data, 1
        image.palette = palette
    return image


def _palette_probe(node: Node, size: tuple[int, int]) -> PILImage.Image | None:
    cached = node.cache.get()
    if cached is not None or node.op == "pil":  # crop keeps the palette, C level included
        return (cached or node.params["image"]).crop((0, 0, *size))
    if node.op == "new":
        return PILImage.new(node.mode, size, node.params["color"])
    if node.op == "open":
        return _header_probe(node, size)
    if not node.inputs:
        return None
    source = probe(node.inputs[0], size)
    if source is None:
        return None
    if node.op == "convert":  # Pillow's fixed palettes (WEB, grayscale) need no pixels
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return source.convert(node.mode)
    return source if node.inputs[0].mode == node.mode else None  # crop, transpose, ...


def probe(node: Node, size: tuple[int, int] = (1, 1)) -> PILImage.Image | None:
    """A black ``size`` image of ``node``'s mode with its palette and info (None: unknown)."""
    if node.mode in _PALETTE_MODES:
        image = _palette_probe(node, size)
        if image is None:
            return None
    else:
        image = PILImage.new(node.mode, size)
    image.info.clear()
    image.info.update(node.info)
    return image


def convert_info(
    node: Node, mode: str, matrix: tuple[float, ...] | None = None
) -> Mapping[str, Any]:
    """The ``info`` of Pillow's ``convert(mode, matrix)`` of ``node`` (``node.info`` if unknowable).

    With a matrix Pillow maps an RGB transparency colour through it (its own float formula).
    """
    if "transparency" not in node.info:
        return node.info
    image = probe(node)
    if image is None:  # a P image whose palette is not recorded: keep what it carries
        return node.info
    with warnings.catch_warnings():  # Pillow warns again when the pixels are converted
        warnings.simplefilter("ignore")
        return cast("Mapping[str, Any]", dict(image.convert(mode, matrix).info))


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
