"""Lazy counterparts of ``PIL.ImageChops`` (and ``Image.blend`` as :func:`blend`).

``logical_and``, ``logical_or`` and ``logical_xor`` (mode 1 only, as in Pillow) are recorded
for Pillow's route; the GPU planner refuses them.

Every image argument may be a lazy image or a ``PIL.Image.Image`` (recorded from its pixels at
the call, as ``Image.from_pil`` records them; see :mod:`pillow_gpu._pil_inputs`).
"""

from __future__ import annotations

from PIL import ImageChops as PILImageChops

from pillow_gpu._pil_inputs import accepts_pil
from pillow_gpu._probes import _probe, _probe_mode
from pillow_gpu.Image import Image, blend, composite, new

__all__ = [
    "add",
    "add_modulo",
    "blend",
    "composite",
    "constant",
    "darker",
    "difference",
    "duplicate",
    "hard_light",
    "invert",
    "lighter",
    "logical_and",
    "logical_or",
    "logical_xor",
    "multiply",
    "offset",
    "overlay",
    "screen",
    "soft_light",
    "subtract",
    "subtract_modulo",
]


@accepts_pil("image")
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


@accepts_pil("image1", "image2")
def multiply(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.multiply``."""
    return _chop("multiply", image1, image2)


@accepts_pil("image1", "image2")
def screen(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.screen``."""
    return _chop("screen", image1, image2)


@accepts_pil("image1", "image2")
def overlay(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.overlay``."""
    return _chop("overlay", image1, image2)


@accepts_pil("image1", "image2")
def hard_light(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.hard_light``."""
    return _chop("hard_light", image1, image2)


@accepts_pil("image1", "image2")
def soft_light(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.soft_light``."""
    return _chop("soft_light", image1, image2)


@accepts_pil("image1", "image2")
def difference(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.difference``."""
    return _chop("difference", image1, image2)


@accepts_pil("image1", "image2")
def darker(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.darker``."""
    return _chop("darker", image1, image2)


@accepts_pil("image1", "image2")
def lighter(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.lighter``."""
    return _chop("lighter", image1, image2)


@accepts_pil("image1", "image2")
def add(image1: Image, image2: Image, scale: float = 1.0, offset: float = 0) -> Image:
    """Record ``ImageChops.add``."""
    return _chop("add", image1, image2, scale=scale, offset=offset)


@accepts_pil("image1", "image2")
def subtract(image1: Image, image2: Image, scale: float = 1.0, offset: float = 0) -> Image:
    """Record ``ImageChops.subtract``."""
    return _chop("subtract", image1, image2, scale=scale, offset=offset)


@accepts_pil("image1", "image2")
def add_modulo(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.add_modulo``."""
    return _chop("add_modulo", image1, image2)


@accepts_pil("image1", "image2")
def subtract_modulo(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.subtract_modulo``."""
    return _chop("subtract_modulo", image1, image2)


@accepts_pil("image")
def constant(image: Image, value: int) -> Image:
    """Record ``ImageChops.constant``: an L image of ``image``'s size filled with ``value``."""
    return new("L", image.size, value)


@accepts_pil("image")
def duplicate(image: Image) -> Image:
    """``ImageChops.duplicate``: a copy (``image.copy()``)."""
    return image.copy()


@accepts_pil("image")
def offset(image: Image, xoffset: int, yoffset: int | None = None) -> Image:
    """Record ``ImageChops.offset``: the image shifted by the offsets, wrapping around.

    Recorded as the crops of ``image`` pasted over it (every pixel is written; the palette and
    ``info`` are ``image``'s, as Pillow keeps them), so it runs on the GPU's copy routes.
    """
    yoffset = xoffset if yoffset is None else yoffset
    _probe(lambda im: PILImageChops.offset(im, xoffset, yoffset), image.mode)
    width, height = image.size
    if not width or not height:
        return image.copy()
    right, down = int(xoffset) % width, int(yoffset) % height
    out = image.copy()
    for box, at in (  # source box -> where it lands
        ((width - right, height - down, width, height), (0, 0)),
        ((0, height - down, width - right, height), (right, 0)),
        ((width - right, 0, width, height - down), (0, down)),
        ((0, 0, width - right, height - down), (right, down)),
    ):
        if box[2] > box[0] and box[3] > box[1]:
            out.paste(image.crop(box), at)
    return out


@accepts_pil("image1", "image2")
def logical_and(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.logical_and`` (mode 1; Pillow's route only)."""
    return _chop("logical_and", image1, image2)


@accepts_pil("image1", "image2")
def logical_or(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.logical_or`` (mode 1; Pillow's route only)."""
    return _chop("logical_or", image1, image2)


@accepts_pil("image1", "image2")
def logical_xor(image1: Image, image2: Image) -> Image:
    """Record ``ImageChops.logical_xor`` (mode 1; Pillow's route only)."""
    return _chop("logical_xor", image1, image2)
