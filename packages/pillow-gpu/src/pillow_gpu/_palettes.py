"""Pillow's palette on lazy images: the ``palette`` object, ``putpalette`` (in place) and
``quantize``.

``palette`` is Pillow's ``ImagePalette`` of a P or PA image (None for other modes), read from
the palette known before evaluation (the completed pixels' where it depends on them). As
Pillow's image, the handle keeps the object it hands out (or is given: ``im.palette = ...``)
through its in-place edits until ``putpalette`` or ``seek`` gives it another, and a ``dirty``
one (an opened file's until it loads; ``ImagePalette.getcolor`` and ``ImagePalette.raw`` mark
it) is applied at the image's next use, as Pillow's ``load()`` applies it: by Pillow, on the
image completed on the CPU where it changes the palette (:func:`realized`).

``putpalette`` replaces the palette of a P or PA image, or makes an L or LA image P or PA with
that palette (as Pillow does, mode changing in place); the palette data is read at the call.
The GPU keeps the indices (L's value becomes the index) and the result carries the new palette
(``lowering.indexed``), so a class mask coloured by a palette runs on the GPU. ``quantize``
builds an adaptive palette from every pixel: it is recorded, runs with Pillow (``to_pil()``,
``save()``, ``pillow-gpu apply --cpu-fallback``) and is refused on the GPU with that reason.
Pillow's own checks run now, on a small image of the mode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PIL import Image as PILImage
from PIL import ImagePalette

from pillow_gpu._convert_info import probe
from pillow_gpu._cpu import decode_leaf, evaluate, put_palette, quantized
from pillow_gpu._empty import probe_size
from pillow_gpu._graph import Node, undecoded_file
from pillow_gpu._leaves import pil_node
from pillow_gpu._probes import _probe_image
from pillow_gpu._queries import _pil

if TYPE_CHECKING:
    from pillow_gpu._image import Image

__all__ = ["PaletteEdits", "realized"]


def _palette_state(image: PILImage.Image) -> tuple[Any, ...]:
    """What a palette gives an image's pixels: its mode, C palette (alpha included) and info."""
    return image.mode, image.im.getpalettemode(), image.getpalette("RGBA"), image.info


def realized(node: Node, palette: ImagePalette.ImagePalette) -> Node:
    """``node``'s result after Pillow's ``load()`` applied the dirty ``palette`` to it, which
    marks ``palette`` clean as Pillow's does.

    Pillow's ``load()`` runs first on a 1x1 image of ``node``'s mode, palette and info: where
    the palette it applies is the one ``node`` has already (an opened file's palette is dirty
    until it loads, unedited), ``node`` is returned as it is; otherwise the pixels are
    completed and Pillow applies it to them (a leaf of the result): an opened file not loaded
    yet loads with it in place of its own, as Pillow's does."""
    before = palette.copy()  # what Pillow's load() reads, for the pixels if it changes them
    tiny = probe(node)
    if tiny is not None and tiny.mode in ("P", "PA"):
        try:
            unchanged = _palette_state(tiny)
        except ValueError:  # Pillow cannot apply the probe's own palette: the pixels answer
            unchanged = None
        if unchanged is not None:
            tiny.palette = palette
            tiny.load()  # Pillow's load(): marks the handed palette clean, as on the pixels
            if _palette_state(tiny) == unchanged:
                return node
            palette = before
    if undecoded_file(node):  # the file loads with it in place
        return pil_node(decode_leaf(node, palette))
    pixels = evaluate(node).copy()
    pixels.palette = palette
    pixels.load()
    return pil_node(pixels)


class PaletteEdits:
    """``palette``, ``putpalette`` and ``quantize`` for :class:`pillow_gpu.Image.Image`."""

    __slots__ = ()
    _node: Any
    _palette: tuple[ImagePalette.ImagePalette | None] | None
    _frame: Any  # the Pillow reader of a sought file (pillow_gpu._seek), or None
    _peek_node: Callable[[], Node]
    _probe: Callable[[], PILImage.Image]
    _unloaded_frame_reader: Callable[[], Any]

    @property
    def palette(self) -> ImagePalette.ImagePalette | None:
        """``PIL.Image.Image.palette``: the ``ImagePalette`` of a P or PA image, else None;
        one object, kept through in-place edits as Pillow keeps it, and a ``dirty`` one is
        applied at the next use, as Pillow's ``load()`` applies it (see the module docstring)."""
        handed = self._palette
        if handed is not None:
            return handed[0]
        stray = self._stray_palette()
        if stray is not None:
            return stray
        # A frame sought and not loaded yet: Pillow's reader as the seek left it (reading
        # its palette loads nothing, pillow_gpu._seek).
        reader = self._unloaded_frame_reader()
        found = self._probe().palette if reader is None else reader.image.palette
        palette = None if found is None else found.copy()
        self._palette = (palette,)  # type: ignore[misc]  # the slot is Image's
        return palette

    @palette.setter
    def palette(self, palette: ImagePalette.ImagePalette | None) -> None:
        self._palette = (palette,)  # type: ignore[misc]  # the slot is Image's

    def _stray_palette(self) -> ImagePalette.ImagePalette | None:
        """The palette object Pillow's image keeps beside pixels of another mode: a GIF's
        frames after the first load as RGB or RGBA and keep the frame's palette (through the
        handle's in-place edits, until it seeks again); None for any other image."""
        reader = self._frame
        if reader is None or self._palette is not None or reader.image.mode in ("P", "PA"):
            return None
        palette: ImagePalette.ImagePalette | None = reader.image.palette
        return palette

    def putpalette(
        self,
        data: ImagePalette.ImagePalette | bytes | list[int] | tuple[int, ...],
        rawmode: str = "RGB",
    ) -> None:
        """``PIL.Image.Image.putpalette`` in place: L becomes P, LA becomes PA (as in Pillow)."""
        kept = data.copy() if isinstance(data, ImagePalette.ImagePalette) else bytes(data)
        probe = put_palette(_probe_image(self._node.mode), kept, rawmode)  # Pillow's checks
        self._node = self._derive(  # type: ignore[attr-defined]
            "putpalette", {"data": kept, "rawmode": rawmode}, mode=probe.mode
        )._node
        self._palette = None  # type: ignore[misc]  # Pillow's image gets a new palette object

    def quantize(
        self,
        colors: int = 256,
        method: int | None = None,
        kmeans: int = 0,
        palette: Any = None,
        dither: PILImage.Dither = PILImage.Dither.FLOYDSTEINBERG,
    ) -> Image:
        """Record ``PIL.Image.Image.quantize`` (runs with Pillow; refused on the GPU: the
        palette and every index depend on all the pixels). ``palette`` is read now."""
        source = _pil(palette)
        if source is not None:
            source = source.copy()
        params = {
            "colors": colors,
            "method": method,
            "kmeans": kmeans,
            "palette": source,
            "dither": dither,
        }
        # Pillow's checks, on an empty image where this one is (its C quantize of an empty
        # image returns one before it checks the mode)
        quantized(_probe_image(self._node.mode, probe_size(self._node.size)), params)
        return self._derive("quantize", params, mode="P")  # type: ignore[attr-defined]
