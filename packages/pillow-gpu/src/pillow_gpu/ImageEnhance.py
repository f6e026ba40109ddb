"""Lazy counterparts of ``PIL.ImageEnhance.Brightness`` and ``PIL.ImageEnhance.Color``."""

from __future__ import annotations

from typing import Any

from PIL import ImageEnhance as PILImageEnhance

from pillow_gpu.Image import Image, _probe

__all__ = ["Brightness", "Color"]


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
