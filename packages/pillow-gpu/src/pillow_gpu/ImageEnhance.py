"""Lazy counterparts of ``PIL.ImageEnhance``: Brightness, Color and Sharpness.

``Contrast`` is deliberately absent: its degenerate image is a constant at the mean of all
pixels, computed on the host before blending, so it cannot be recorded without evaluating the
image first. Reading ``ImageEnhance.Contrast`` raises an AttributeError that says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter

from pillow_gpu import ImageChops
from pillow_gpu.Image import Image, _probe

__all__ = ["Brightness", "Color", "Sharpness"]


class _Enhance:
    _op = ""
    _pil_class: Any = PILImageEnhance.Brightness

    def __init__(self, image: Image) -> None:
        _probe(self._pil_class, image.mode)
        self.image = image

    def enhance(self, factor: float) -> Image:
        """Record the enhancement with ``factor`` (1.0 gives the original image)."""
        _probe(lambda im: self._pil_class(im).enhance(factor), self.image.mode)
        return self.image._derive(self._op, {"factor": float(factor)})


class Brightness(_Enhance):
    """Record ``ImageEnhance.Brightness``: 0.0 gives black, 1.0 the original image."""

    _op = "brightness"
    _pil_class = PILImageEnhance.Brightness


class Color(_Enhance):
    """Record ``ImageEnhance.Color``: 0.0 gives grayscale, 1.0 the original image."""

    _op = "color"
    _pil_class = PILImageEnhance.Color


class Sharpness:
    """Record ``ImageEnhance.Sharpness``: 0.0 blurs (SMOOTH), 1.0 the original, 2.0 sharpens.

    Recorded as Pillow computes it: ``filter(SMOOTH)``, the source alpha put back for modes with
    an ``A`` band, then ``Image.blend(degenerate, image, factor)``.
    """

    def __init__(self, image: Image) -> None:
        probe_size = (min(image.width, 8), min(image.height, 8))  # see Image.filter
        _probe(lambda im: PILImageEnhance.Sharpness(im).degenerate, image.mode, size=probe_size)
        self.image = image
        degenerate = image.filter(ImageFilter.SMOOTH)
        if "A" in image.getbands():
            degenerate = degenerate.putalpha(image.getchannel("A"))
        self.degenerate = degenerate

    def enhance(self, factor: float) -> Image:
        """Record the enhancement with ``factor`` (1.0 gives the original image)."""
        return ImageChops.blend(self.degenerate, self.image, factor)


if not TYPE_CHECKING:  # type checkers see no Contrast at all; at run time it explains itself

    def __getattr__(name: str) -> NoReturn:
        if name == "Contrast":
            msg = (
                "why: ImageEnhance.Contrast is not recorded by pillow_gpu because its "
                "degenerate image is the mean of all pixels, computed on the host before "
                "blending (a value the lazy graph cannot know without evaluating); observed: "
                "pillow_gpu.ImageEnhance.Contrast requested; fix: use "
                "PIL.ImageEnhance.Contrast(image.to_pil()) and Image.from_pil() on the result"
            )
            raise AttributeError(msg)
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
