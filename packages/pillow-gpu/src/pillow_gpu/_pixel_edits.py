"""Pillow's calls that need an image's pixels at the call: run with Pillow, then go on lazily.

``putdata``, ``frombytes`` and ``apply_transparency`` change an image in place, and
``remap_palette`` and ``effect_spread`` return a new one; each needs the current pixels now
(``remap_palette`` a palette read off them, ``effect_spread`` Pillow's random offsets). As
drawing does (:mod:`pillow_gpu.ImageDraw`), the graph so far is completed with Pillow once, the
call runs on that copy exactly as Pillow runs it (its errors raised, the handle then unchanged),
and the result becomes a leaf that later operations take to the GPU again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from PIL import Image as PILImage

from pillow_gpu._cpu import evaluate
from pillow_gpu._leaves import pil_node

if TYPE_CHECKING:
    from pillow_gpu._image import Image

__all__ = ["PixelEdits", "edit_in_place", "lazy_result", "pillow_image"]


def pillow_image(value: Any) -> Any:
    """A lazy image's pixels as Pillow's image of its completed graph (not to be changed: it
    is the handle's cached result); any other value as it is."""
    from pillow_gpu._image import Image

    return evaluate(value._node) if isinstance(value, Image) else value


def lazy_result(value: Any) -> Any:
    """A ``PIL.Image.Image`` a Pillow call returned as a lazy image of a copy of it (later
    operations go to the GPU); any other value as it is."""
    from pillow_gpu._image import Image

    return Image(pil_node(value)) if isinstance(value, PILImage.Image) else value


def edit_in_place(image: PixelEdits, edit: Callable[[PILImage.Image], Any]) -> None:
    """Run ``edit`` on a copy of ``image``'s current pixels, then make that copy the handle's
    pixels (``edit``'s errors pass through, the handle then unchanged)."""
    image._node = pil_node(image._edited(edit))


class PixelEdits:
    """Pillow's pixel editors for :class:`pillow_gpu.Image.Image` (see the module docstring)."""

    __slots__ = ()
    _node: Any

    def _edited(self, edit: Callable[[PILImage.Image], Any]) -> PILImage.Image:
        """A copy of the current pixels after ``edit(copy)`` (Pillow's errors pass through)."""
        pixels = evaluate(self._node).copy()
        edit(pixels)
        return pixels

    def putdata(self, data: Any, scale: float = 1.0, offset: float = 0.0) -> None:
        """``PIL.Image.Image.putdata`` in place (the sequence is read at the call)."""
        edit_in_place(self, lambda im: im.putdata(data, scale, offset))

    def frombytes(self, data: Any, decoder_name: str = "raw", *args: Any) -> None:
        """``PIL.Image.Image.frombytes`` in place: the image's pixels from ``data``."""
        edit_in_place(self, lambda im: im.frombytes(data, decoder_name, *args))

    def apply_transparency(self) -> None:
        """``PIL.Image.Image.apply_transparency`` in place: a P image's ``info["transparency"]``
        moved into its palette's alpha."""
        edit_in_place(self, lambda im: im.apply_transparency())

    def remap_palette(self, dest_map: list[int], source_palette: Any = None) -> Image:
        """``PIL.Image.Image.remap_palette``: a new image with the palette reordered."""
        if self._node.mode not in ("L", "P"):  # Pillow's first check, before it loads a file
            msg = "illegal image mode"
            raise ValueError(msg)
        pixels = evaluate(self._node)
        return cast("Image", lazy_result(pixels.remap_palette(dest_map, source_palette)))

    def effect_spread(self, distance: int) -> Image:
        """``PIL.Image.Image.effect_spread``: each pixel moved by a random offset, by Pillow."""
        return cast("Image", lazy_result(evaluate(self._node).effect_spread(distance)))
