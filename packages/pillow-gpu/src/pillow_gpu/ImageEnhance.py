"""Lazy counterparts of ``PIL.ImageEnhance``: Brightness, Color, Contrast and Sharpness.

``Contrast`` needs the mean of the image's L conversion; the GPU route computes it on the
device in the same submission as the blend (see :mod:`pillow_gpu.gpu.lowering.contrast`), so
recording it never reads pixels on the host.

Every image argument may be a lazy image or a ``PIL.Image.Image`` (recorded from its pixels at
the call, as ``Image.from_pil`` records them; see :mod:`pillow_gpu._pil_inputs`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from PIL import Image as PILImage
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter

from pillow_gpu import ImageChops
from pillow_gpu._convert_info import convert_info, probe
from pillow_gpu._palette_inside import refuse_palette_inside
from pillow_gpu._pil_inputs import accepts_pil
from pillow_gpu._probes import _probe
from pillow_gpu.Image import Image

__all__ = ["Brightness", "Color", "Contrast", "Sharpness"]


class _Enhance:
    _op = ""
    _pil_class: Any = PILImageEnhance.Brightness
    #: Whether Pillow's enhancer converts the image to L when it is made.
    _converts = False

    @accepts_pil("image")
    def __init__(self, image: Image) -> None:
        # Pillow's Color and Contrast convert the image to L at once, whose checks see its
        # info; where that conversion depends on the pixels (a P image's transparency given as
        # a colour), Pillow's enhancer is made of the completed image.
        node = image._peek_node()
        carrier = probe(node)
        if self._converts and convert_info(node, "L") is None:
            self._pil_class(image._pixels())
        elif carrier is None:  # a P image whose palette is not recorded: its mode alone
            _probe(self._pil_class, image.mode)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._pil_class(carrier)
        self.image = image

    def enhance(self, factor: float) -> Image:
        """Record the enhancement with ``factor`` (1.0 gives the original image)."""
        call = lambda im: self._pil_class(im).enhance(factor)  # noqa: E731
        _probe(call, self.image.mode)
        refuse_palette_inside(self.image.node)  # Pillow's enhance blends with the image
        return self.image._derive(
            self._op, {"factor": float(factor)}, info=_enhanced_info(self.image, call)
        )


def _enhanced_info(image: Image, call: Callable[[PILImage.Image], PILImage.Image]) -> Any:
    # Pillow's result carries its degenerate image's info (Image.blend keeps image1's): {} for
    # Brightness and Contrast, info["transparency"] converted there and back for Color.
    carrier = probe(image.node)
    if carrier is None:  # a P image whose palette is not recorded: keep what it carries
        return image.node.info
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(call(carrier).info)


class Brightness(_Enhance):
    """Record ``ImageEnhance.Brightness``: 0.0 gives black, 1.0 the original image."""

    _op = "brightness"
    _pil_class = PILImageEnhance.Brightness


#: Modes whose ``Color`` and ``Contrast`` are recorded as Pillow builds them (through an L
#: image, converted back, then blended): the steps have GPU routes for these modes, the fused
#: ``color`` and ``contrast`` kernels have not.
_COMPOSED_MODES = ("YCbCr", "HSV")


class Color(_Enhance):
    """Record ``ImageEnhance.Color``: 0.0 gives grayscale, 1.0 the original image.

    For YCbCr and HSV images it is recorded step by step, as Pillow computes it:
    ``Image.blend(image.convert("L").convert(mode), image, factor)``.
    """

    _op = "color"
    _pil_class = PILImageEnhance.Color
    _converts = True

    def enhance(self, factor: float) -> Image:
        """Record the enhancement with ``factor`` (1.0 gives the original image)."""
        image = self.image
        if image.mode not in _COMPOSED_MODES:
            return super().enhance(factor)
        _probe(lambda im: PILImageEnhance.Color(im).enhance(factor), image.mode)
        degenerate = image.convert("L").convert(image.mode)
        return ImageChops.blend(degenerate, image, factor)


class Contrast(_Enhance):
    """Record ``ImageEnhance.Contrast``: 0.0 gives solid gray at the mean, 1.0 the original.

    Pillow's degenerate image is ``Image.new("L", size, mean)`` converted to the mode (the
    source alpha put back), where ``mean = int(ImageStat.Stat(image.convert("L")).mean[0] +
    0.5)``; nothing is computed when recording, and the GPU route keeps the mean on the device.
    """

    _op = "contrast"
    _pil_class = PILImageEnhance.Contrast
    _converts = True

    def enhance(self, factor: float) -> Image:
        """Record the enhancement with ``factor`` (1.0 gives the original image).

        For YCbCr and HSV images it is recorded step by step, as Pillow computes it: the L
        image at the mean of ``image.convert("L")`` (``Contrast`` of that L image at 0.0, whose
        mean the device computes) converted to the mode, then ``Image.blend`` with ``image``.
        """
        image = self.image
        if image.mode not in _COMPOSED_MODES:
            return super().enhance(factor)
        _probe(lambda im: PILImageEnhance.Contrast(im).enhance(factor), image.mode)
        mean = Contrast(image.convert("L")).enhance(0.0)
        return ImageChops.blend(mean.convert(image.mode), image, factor)

    @property
    def degenerate(self) -> Image:
        """The lazy degenerate image (``enhance(0.0)``, which is exactly Pillow's degenerate)."""
        return self.enhance(0.0)


class Sharpness:
    """Record ``ImageEnhance.Sharpness``: 0.0 blurs (SMOOTH), 1.0 the original, 2.0 sharpens.

    Recorded as Pillow computes it: ``filter(SMOOTH)``, the source alpha put back for modes with
    an ``A`` band, then ``Image.blend(degenerate, image, factor)``.
    """

    @accepts_pil("image")
    def __init__(self, image: Image) -> None:
        probe_size = (min(image.width, 8), min(image.height, 8))  # see Image.filter
        _probe(lambda im: PILImageEnhance.Sharpness(im).degenerate, image.mode, size=probe_size)
        self.image = image
        degenerate = image.filter(ImageFilter.SMOOTH)
        if "A" in image.getbands():
            degenerate = degenerate._with_alpha(image.getchannel("A"))
        self.degenerate = degenerate

    def enhance(self, factor: float) -> Image:
        """Record the enhancement with ``factor`` (1.0 gives the original image)."""
        return ImageChops.blend(self.degenerate, self.image, factor)
