"""Lazy counterparts of ``PIL.ImageChops`` (and ``Image.blend`` as :func:`blend`)."""

from __future__ import annotations

from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops

from pillow_gpu._probes import _probe, _probe_mode
from pillow_gpu.Image import Image, composite

__all__ = [
    "add",
    "add_modulo",
    "blend",
    "composite",
    "darker",
    "difference",
    "hard_light",
    "invert",
    "lighter",
    "multiply",
    "overlay",
    "screen",
    "soft_light",
    "subtract",
    "subtract_modulo",
]


def invert(image: Image) -> Image:
    """Record ``ImageChops.invert``: ~x on every stored byte."""
    _probe_mode(PILImageChops.invert, image.mode)
    return image._derive("chops_invert", {})


def _chop(name: str, image1: Image, image2: Image, **extra: float) -> Image:
    function = getattr(PILImageChops, name)
    if extra:
        mode = _probe(lambda a, b: function(a, b, **extra), image1.mode, image2.mode).mode
    else:
        mode = _probe_mode(function, image1.mode, image2.mode)
    size = (min(image1.width, image2.width), min(image1.height, image2.height))
    return image1._derive("chop", {"name": name, **extra}, mode=mode, size=size, extra=[image2])


def multiply(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.multiply``."""
    return _chop("multiply", image1, image2)


def screen(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.screen``."""
    return _chop("screen", image1, image2)


def overlay(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.overlay``."""
    return _chop("overlay", image1, image2)


def hard_light(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.hard_light``."""
    return _chop("hard_light", image1, image2)


def soft_light(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.soft_light``."""
    return _chop("soft_light", image1, image2)


def difference(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.difference``."""
    return _chop("difference", image1, image2)


def darker(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.darker``."""
    return _chop("darker", image1, image2)


def lighter(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.lighter``."""
    return _chop("lighter", image1, image2)


def add(image1: Image, image2: Image, scale: float = 1.0, offset: float = 0) -> Image:
    """Record ``ImageChops.add``."""
    return _chop("add", image1, image2, scale=scale, offset=offset)


def subtract(image1: Image, image2: Image, scale: float = 1.0, offset: float = 0) -> Image:
    """Record ``ImageChops.subtract``."""
    return _chop("subtract", image1, image2, scale=scale, offset=offset)


def add_modulo(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.add_modulo``."""
    return _chop("add_modulo", image1, image2)


def subtract_modulo(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.subtract_modulo``."""
    return _chop("subtract_modulo", image1, image2)


def blend(image1: Image, image2: Image, alpha: float) -> Image:
    """Record ``Image.blend`` / ``ImageChops.blend``; modes and sizes must match."""
    _probe(lambda a, b: PILImage.blend(a, b, alpha), image1.mode, image2.mode)
    if image1.size != image2.size:
        msg = "images do not match"
        raise ValueError(msg)
    return image1._derive("blend", {"alpha": float(alpha)}, extra=[image2])
