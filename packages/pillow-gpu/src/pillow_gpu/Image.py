"""Lazy counterparts of ``PIL.Image``: record operations now, evaluate later.

``open``, ``new``, ``frombytes`` and ``from_pil`` create an :class:`Image`, a handle on one
node of an immutable graph; each operation returns a new :class:`Image` that records one node.
``mode``, ``size``, ``width``, ``height`` and ``info`` never evaluate anything. ``to_pil()``,
``tobytes()``, ``save()`` and ``load()`` evaluate the graph with real Pillow (the normal CPU
routing) and cache the result; ``pillow_gpu.gpu.evaluate(image)`` evaluates it on the GPU.

Arguments are validated when an operation is recorded, raising the exception types Pillow raises
for the same call (mode- and parameter-dependent checks are delegated to Pillow itself on a 1x1
image of the same mode, see :mod:`pillow_gpu._probes`), so recording allocates O(1) memory
whatever size is asked for.

As in Pillow, ``paste``, ``putpixel``, ``putalpha`` and ``thumbnail`` change the image in place
and return None: the handle is pointed at a new node (nodes never change, so another handle,
an earlier operation that used this one as its input, or a job already submitted to an
executor keeps the graph it had). ``copy()`` returns a new handle on the same pixels (as
Pillow's copy, which loads first, no file: one frame, the loaded ``info``).
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Sequence
from typing import IO, Any, Literal

from PIL import Image as PILImage

from pillow_gpu._image import Image, alpha_composite
from pillow_gpu._leaves import new_node, open_node, pil_node
from pillow_gpu._palette_inside import refuse_palette_inside
from pillow_gpu._pil_inputs import accepts_pil
from pillow_gpu._probes import _probe, _probe_image

__all__ = [
    "Image",
    "alpha_composite",
    "blend",
    "composite",
    "effect_mandelbrot",
    "effect_noise",
    "eval",
    "from_pil",
    "fromarray",
    "fromarrow",
    "frombuffer",
    "frombytes",
    "fromqimage",
    "fromqpixmap",
    "linear_gradient",
    "merge",
    "new",
    "open",
    "radial_gradient",
]

# Re-exported Pillow names, so ``Image.Transpose.ROTATE_90``, ``except
# Image.UnidentifiedImageError`` or ``Image.getmodebands("RGB")`` work as in Pillow.
Transpose = PILImage.Transpose
Resampling = PILImage.Resampling
Transform = PILImage.Transform
Dither = PILImage.Dither
Palette = PILImage.Palette
Quantize = PILImage.Quantize
Exif = PILImage.Exif
UnidentifiedImageError = PILImage.UnidentifiedImageError
DecompressionBombError = PILImage.DecompressionBombError
DecompressionBombWarning = PILImage.DecompressionBombWarning
ImagePointHandler = PILImage.ImagePointHandler
ImagePointTransform = PILImage.ImagePointTransform
ImageTransformHandler = PILImage.ImageTransformHandler
DeferredError = PILImage.DeferredError
getmodebase = PILImage.getmodebase
getmodetype = PILImage.getmodetype
getmodebandnames = PILImage.getmodebandnames
getmodebands = PILImage.getmodebands
MODES = PILImage.MODES
core = PILImage.core
# Pillow's settings, read and written through to PIL.Image (``_PillowSettings`` below); the
# annotations tell type checkers they are here.
MAX_IMAGE_PIXELS: int | None
WARN_POSSIBLE_FORMATS: bool

# Pillow's plugin registry: the same objects, since Pillow's open and save (which read and
# write every file here) consult them; a plugin registered through either module counts.
ID = PILImage.ID
OPEN = PILImage.OPEN
MIME = PILImage.MIME
SAVE = PILImage.SAVE
SAVE_ALL = PILImage.SAVE_ALL
EXTENSION = PILImage.EXTENSION
DECODERS = PILImage.DECODERS
ENCODERS = PILImage.ENCODERS
preinit = PILImage.preinit
init = PILImage.init
registered_extensions = PILImage.registered_extensions
register_open = PILImage.register_open
register_mime = PILImage.register_mime
register_save = PILImage.register_save
register_save_all = PILImage.register_save_all
register_extension = PILImage.register_extension
register_extensions = PILImage.register_extensions
register_decoder = PILImage.register_decoder
register_encoder = PILImage.register_encoder

# The module-level names Pillow keeps for its enums' members (``Image.NONE``, ``Image.ADAPTIVE``).
FLIP_LEFT_RIGHT = PILImage.Transpose.FLIP_LEFT_RIGHT
FLIP_TOP_BOTTOM = PILImage.Transpose.FLIP_TOP_BOTTOM
ROTATE_90 = PILImage.Transpose.ROTATE_90
ROTATE_180 = PILImage.Transpose.ROTATE_180
ROTATE_270 = PILImage.Transpose.ROTATE_270
TRANSPOSE = PILImage.Transpose.TRANSPOSE
TRANSVERSE = PILImage.Transpose.TRANSVERSE
AFFINE = PILImage.Transform.AFFINE
EXTENT = PILImage.Transform.EXTENT
PERSPECTIVE = PILImage.Transform.PERSPECTIVE
QUAD = PILImage.Transform.QUAD
MESH = PILImage.Transform.MESH
NEAREST = PILImage.Resampling.NEAREST
BOX = PILImage.Resampling.BOX
BILINEAR = PILImage.Resampling.BILINEAR
HAMMING = PILImage.Resampling.HAMMING
BICUBIC = PILImage.Resampling.BICUBIC
LANCZOS = PILImage.Resampling.LANCZOS
MKS2013 = PILImage.Resampling.MKS2013
MKS2021 = PILImage.Resampling.MKS2021
NONE = PILImage.Dither.NONE
ORDERED = PILImage.Dither.ORDERED
RASTERIZE = PILImage.Dither.RASTERIZE
FLOYDSTEINBERG = PILImage.Dither.FLOYDSTEINBERG
WEB = PILImage.Palette.WEB
ADAPTIVE = PILImage.Palette.ADAPTIVE
MEDIANCUT = PILImage.Quantize.MEDIANCUT
MAXCOVERAGE = PILImage.Quantize.MAXCOVERAGE
FASTOCTREE = PILImage.Quantize.FASTOCTREE
LIBIMAGEQUANT = PILImage.Quantize.LIBIMAGEQUANT
# zlib's compression strategies, for the PNG writer's ``compress_type``.
DEFAULT_STRATEGY = PILImage.DEFAULT_STRATEGY
FILTERED = PILImage.FILTERED
HUFFMAN_ONLY = PILImage.HUFFMAN_ONLY
RLE = PILImage.RLE
FIXED = PILImage.FIXED


def composite(
    image1: Image | PILImage.Image, image2: Image | PILImage.Image, mask: Image | PILImage.Image
) -> Image:
    """Record ``PIL.Image.composite``: ``image1`` pasted over ``image2`` through ``mask``."""
    image = image2.copy() if isinstance(image2, Image) else from_pil(image2)
    image.paste(image1, None, mask)
    return image


def merge(mode: str, bands: Sequence[Image | PILImage.Image]) -> Image:
    """Record ``PIL.Image.merge``: one single-band image of equal size per band of ``mode``."""
    PILImage.getmodebands(mode)  # Pillow's own error for an unknown mode comes first
    first = getattr(bands[0], "size", None) if len(bands) else None
    probes = [
        _probe_image(band.mode, (1, 1) if band.size == first else (2, 1))
        if isinstance(band, (Image, PILImage.Image))
        else band  # Pillow raises its own error for a non-image band
        for band in bands
    ]
    probe = PILImage.merge(mode, probes)
    images = [band if isinstance(band, Image) else from_pil(band) for band in bands]
    return images[0]._derive("merge", {"mode": probe.mode}, mode=probe.mode, extra=images[1:])


def from_pil(image: PILImage.Image) -> Image:
    """Wrap a private copy of a ``PIL.Image.Image`` as a lazy leaf.

    The copy is of the pixels as they are now: changing ``image`` afterwards changes no graph
    recorded from it.
    """
    return Image(pil_node(image))


def new(
    mode: str, size: tuple[int, int], color: float | str | tuple[float, ...] | None = 0
) -> Image:
    """Record ``PIL.Image.new``: a constant image, filled on the device when evaluated."""
    return Image(new_node(mode, size, color))


def open(
    fp: str | bytes | os.PathLike[str] | os.PathLike[bytes] | IO[bytes],
    mode: Literal["r"] = "r",
    formats: list[str] | tuple[str, ...] | None = None,
) -> Image:
    """Lazy ``PIL.Image.open``: reads the header now, decodes only when evaluated (an ICNS
    icon, whose header says no mode, and a WebP or AVIF file whose timing no walk of its
    chunks or boxes reads, are decoded at open too)."""
    node, file_format, tags = open_node(fp, mode, formats)
    return Image(node, file_format, tags)


def frombytes(
    mode: str, size: tuple[int, int], data: bytes, decoder_name: str = "raw", *args: Any
) -> Image:
    """``PIL.Image.frombytes``: the bytes are unpacked at once, as Pillow does."""
    return from_pil(PILImage.frombytes(mode, size, data, decoder_name, *args))


def frombuffer(
    mode: str, size: tuple[int, int], data: Any, decoder_name: str = "raw", *args: Any
) -> Image:
    """``PIL.Image.frombuffer``: a copy of the buffer's pixels now (a graph never changes)."""
    return from_pil(PILImage.frombuffer(mode, size, data, decoder_name, *args))


def fromarray(obj: Any, mode: str | None = None) -> Image:
    """``PIL.Image.fromarray``: a NumPy (or array-interface) array, copied now."""
    return from_pil(PILImage.fromarray(obj, mode))


def fromarrow(obj: Any, mode: str, size: tuple[int, int]) -> Image:
    """``PIL.Image.fromarrow``: an Arrow array of pixels, copied now."""
    return from_pil(PILImage.fromarrow(obj, mode, size))


def linear_gradient(mode: str) -> Image:
    """``PIL.Image.linear_gradient``: Pillow's 256 x 256 gradient, as a leaf."""
    return from_pil(PILImage.linear_gradient(mode))


def radial_gradient(mode: str) -> Image:
    """``PIL.Image.radial_gradient``: Pillow's 256 x 256 gradient, as a leaf."""
    return from_pil(PILImage.radial_gradient(mode))


def effect_mandelbrot(
    size: tuple[int, int], extent: tuple[float, float, float, float], quality: int
) -> Image:
    """``PIL.Image.effect_mandelbrot``: Pillow's Mandelbrot set, as a leaf."""
    return from_pil(PILImage.effect_mandelbrot(size, extent, quality))


def effect_noise(size: tuple[int, int], sigma: float) -> Image:
    """``PIL.Image.effect_noise``: Pillow's Gaussian noise (drawn now), as a leaf."""
    return from_pil(PILImage.effect_noise(size, sigma))


def fromqimage(im: Any) -> Image:
    """``PIL.Image.fromqimage``: a Qt image's pixels, copied now."""
    return from_pil(PILImage.fromqimage(im))


def fromqpixmap(im: Any) -> Image:
    """``PIL.Image.fromqpixmap``: a Qt pixmap's pixels, copied now."""
    return from_pil(PILImage.fromqpixmap(im))


@accepts_pil("im1", "im2")
def blend(im1: Image, im2: Image, alpha: float) -> Image:
    """Record ``PIL.Image.blend`` (also ``ImageChops.blend``); modes and sizes must match."""
    try:
        _probe(lambda a, b: PILImage.blend(a, b, alpha), im1.mode, im2.mode)
    except ValueError:  # Pillow's C blend looks for a palette before it compares the images
        refuse_palette_inside(im1.node, im2.node)
        raise
    refuse_palette_inside(im1.node, im2.node)
    if im1.size != im2.size:
        msg = "images do not match"
        raise ValueError(msg)
    return im1._derive("blend", {"alpha": float(alpha)}, extra=[im2])


@accepts_pil("image")
def eval(image: Image, *args: Any) -> Image:
    """``PIL.Image.eval``: ``image.point(args[0])``, as Pillow records it."""
    return image.point(args[0])


class _PillowSettings(types.ModuleType):
    """This module, with Pillow's module-level settings read and written through to
    ``PIL.Image``, where Pillow's ``open`` (which reads every file opened here) reads them."""

    @property
    def MAX_IMAGE_PIXELS(self) -> int | None:
        """The decompression-bomb limit of ``open`` (pixels; None turns the check off)."""
        return PILImage.MAX_IMAGE_PIXELS

    @MAX_IMAGE_PIXELS.setter
    def MAX_IMAGE_PIXELS(self, value: int | None) -> None:
        PILImage.MAX_IMAGE_PIXELS = value

    @property
    def WARN_POSSIBLE_FORMATS(self) -> bool:
        """Whether ``open`` warns with each format's reason a file was not it."""
        return PILImage.WARN_POSSIBLE_FORMATS

    @WARN_POSSIBLE_FORMATS.setter
    def WARN_POSSIBLE_FORMATS(self, value: bool) -> None:
        PILImage.WARN_POSSIBLE_FORMATS = value

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), "MAX_IMAGE_PIXELS", "WARN_POSSIBLE_FORMATS"})


sys.modules[__name__].__class__ = _PillowSettings
