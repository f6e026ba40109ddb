"""``PIL.ImageMorph`` for lazy images: binary morphology by Pillow's lookup tables.

Pillow runs a morphology on an L image's C buffer, so :class:`MorphOp` completes a lazy
image with Pillow first (its graph runs once, as for ``to_pil()``) and runs Pillow's own code
on it, its checks and errors included; ``apply`` of a lazy image returns its result as a lazy
image, ready for further operations on the GPU. ``LutBuilder`` and every other name are Pillow's.
"""

from __future__ import annotations

from typing import Any

from PIL import Image as PILImage
from PIL import ImageMorph as _PILImageMorph

from pillow_gpu._image import Image
from pillow_gpu._pixel_edits import lazy_result, pillow_image

__all__ = ["LutBuilder", "MorphOp"]

LutBuilder = _PILImageMorph.LutBuilder


class MorphOp(_PILImageMorph.MorphOp):
    """``PIL.ImageMorph.MorphOp`` that also takes lazy images."""

    def apply(self, image: Image | PILImage.Image) -> tuple[int, Any]:
        """The operation on ``image``: (pixels changed, the result; lazy for a lazy image)."""
        count, result = super().apply(pillow_image(image))
        return count, lazy_result(result) if isinstance(image, Image) else result

    def match(self, image: Image | PILImage.Image) -> list[tuple[int, int]]:
        """The coordinates where the operation's patterns match ``image``."""
        return super().match(pillow_image(image))

    def get_on_pixels(self, image: Image | PILImage.Image) -> list[tuple[int, int]]:
        """The coordinates of ``image``'s pixels that are not 0."""
        return super().get_on_pixels(pillow_image(image))


def __getattr__(name: str) -> Any:
    """Pillow's other names (``LUT_SIZE``, the pattern matrices) are its own."""
    return getattr(_PILImageMorph, name)
