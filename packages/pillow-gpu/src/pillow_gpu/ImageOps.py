"""Lazy counterparts of the ``PIL.ImageOps`` functions pillow-gpu records."""

from __future__ import annotations

from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps

from pillow_gpu.Image import Image, _probe, _probe_mode

__all__ = [
    "colorize",
    "crop",
    "expand",
    "flip",
    "grayscale",
    "invert",
    "mirror",
    "posterize",
    "solarize",
]

#: Every L value once: live Pillow's colorize of this ramp is its per-value table.
_RAMP = PILImage.frombytes("L", (256, 1), bytes(range(256)))


def invert(image: Image) -> Image:
    """Record ``ImageOps.invert`` (255 - x; Pillow allows L and RGB here)."""
    _probe_mode(PILImageOps.invert, image.mode)
    return image._derive("invert", {})


def flip(image: Image) -> Image:
    """Record ``ImageOps.flip`` (top to bottom)."""
    return image.transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)


def mirror(image: Image) -> Image:
    """Record ``ImageOps.mirror`` (left to right)."""
    return image.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT)


def solarize(image: Image, threshold: int = 128) -> Image:
    """Record ``ImageOps.solarize``: x if x < threshold else 255 - x."""
    _probe(lambda im: PILImageOps.solarize(im, threshold), image.mode)
    return image._derive("solarize", {"threshold": threshold})


def posterize(image: Image, bits: int) -> Image:
    """Record ``ImageOps.posterize``: keep the top ``bits`` bits of each sample."""
    _probe(lambda im: PILImageOps.posterize(im, bits), image.mode)
    return image._derive("posterize", {"bits": bits})


def grayscale(image: Image) -> Image:
    """Record ``ImageOps.grayscale`` (``convert("L")``)."""
    return image.convert("L")


def _border(border: int | tuple[int, ...]) -> tuple[int, int, int, int]:
    if isinstance(border, tuple):
        if len(border) == 2:
            left, top = right, bottom = border
        elif len(border) == 4:
            left, top, right, bottom = border
        else:  # Pillow indexes the tuple and fails the same way
            left, top, right, bottom = border[0], border[1], border[2], border[3]
    else:
        left = top = right = bottom = border
    return left, top, right, bottom


def expand(image: Image, border: int | tuple[int, ...] = 0, fill: object = 0) -> Image:
    """Record ``ImageOps.expand``: a ``fill`` border around ``image``."""
    _probe(lambda im: PILImageOps.expand(im, border, fill), image.mode)  # type: ignore[arg-type]
    left, top, right, bottom = _border(border)
    size = (left + image.width + right, top + image.height + bottom)
    if size[0] < 0 or size[1] < 0:
        PILImage.new(image.mode, size)  # Pillow's own error for a negative size
    params = {"border": (left, top, right, bottom), "fill": fill}
    return image._derive("expand", params, size=size)


def crop(image: Image, border: int = 0) -> Image:
    """Record ``ImageOps.crop``: remove ``border`` pixels from every side."""
    left, top, right, bottom = _border(border)
    return image.crop((left, top, image.width - right, image.height - bottom))


def colorize(  # noqa: PLR0917 - Pillow's positional signature
    image: Image,
    black: str | tuple[int, ...],
    white: str | tuple[int, ...],
    mid: str | int | tuple[int, ...] | None = None,
    blackpoint: int = 0,
    whitepoint: int = 255,
    midpoint: int = 127,
) -> Image:
    """Record ``ImageOps.colorize`` of an L image as ``convert("RGB")`` + ``point(table)``.

    That is how Pillow computes it; the table is live Pillow's colorize of a 0..255 ramp.
    """

    def call(im: PILImage.Image) -> PILImage.Image:
        return PILImageOps.colorize(im, black, white, mid, blackpoint, whitepoint, midpoint)

    _probe(call, image.mode)
    table = [value for band in call(_RAMP).split() for value in band.tobytes()]
    return image.convert("RGB").point(table)
