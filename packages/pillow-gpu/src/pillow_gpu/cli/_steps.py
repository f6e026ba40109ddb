"""The steps of ``pillow-gpu apply``'s chains: each step's name, its arguments (parsers and
defaults), the Pillow call it stands for and how it is built on a lazy pillow-gpu image or a live
Pillow one (:data:`STEPS`); :mod:`pillow_gpu.cli._chain` parses chains of them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageColor
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageOps as PILImageOps

from pillow_gpu import Image, ImageChops, ImageEnhance, ImageFilter, ImageOps

__all__ = ["LAZY", "LIVE", "STEPS", "StepSpec", "describe_steps"]


def _number(text: str) -> float:
    return float(text)


def _integer(text: str) -> int:
    return int(text)


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    return int(width), int(height)


#: Pillow's modes by their upper-case spelling, where that spelling names one mode.
_MODES = {
    mode.upper(): mode
    for mode in PILImage.MODES
    if sum(other.upper() == mode.upper() for other in PILImage.MODES) == 1
}


def _mode(text: str) -> str:
    """A mode as written (``RGB``, ``La``) or in any case where unambiguous (``ycbcr``)."""
    if text in PILImage.MODES:
        return text
    return _MODES.get(text.upper(), text.upper())


#: Resampling filters of the ``resize`` step by name.
_FILTERS = {
    "nearest": Image.NEAREST,
    "box": Image.BOX,
    "bilinear": Image.BILINEAR,
    "hamming": Image.HAMMING,
    "bicubic": Image.BICUBIC,
    "lanczos": Image.LANCZOS,
}


#: Filters of the ``rotate`` step (the three Pillow's rotate takes).
_ROTATE_FILTERS = ("nearest", "bilinear", "bicubic")

#: Dithers of the ``convert`` step by name (Pillow's default is Floyd-Steinberg).
_DITHERS = {"floydsteinberg": Image.Dither.FLOYDSTEINBERG, "none": Image.Dither.NONE}


def _one_of(name: str, names: Collection[str], kind: str, text: str) -> str:
    """``name`` (``text`` normalised) when it is one of ``names``; else a ValueError naming
    the choices."""
    if name not in names:
        msg = f"unknown {kind} {text!r}; choose one of {', '.join(names)}"
        raise ValueError(msg)
    return name


def _dither(text: str) -> str:
    return _one_of(text.lower().replace("-", "").replace("_", ""), _DITHERS, "dither", text)


def _color(text: str) -> str:
    """A colour Pillow names (``white``, ``#ff8000``, ``hsl(30,100%,50%)`` without commas)."""
    ImageColor.getrgb(text)  # Pillow's own parser: ValueError for an unknown colour
    return text


def _rotate_filter(text: str) -> str:
    return _one_of(text.lower(), _ROTATE_FILTERS, "rotation filter", text)


def _filter(text: str) -> str:
    return _one_of(text.lower(), _FILTERS, "resampling filter", text)


@dataclass(frozen=True, slots=True)
class _Modules:
    """The modules a step calls: pillow-gpu's (recording) or Pillow's (running)."""

    image: ModuleType
    ops: ModuleType
    chops: ModuleType
    enhance: ModuleType


#: pillow-gpu's modules: steps record lazy operations.
LAZY = _Modules(image=Image, ops=ImageOps, chops=ImageChops, enhance=ImageEnhance)
#: Pillow's modules: steps run on live images (the CPU fallback).
LIVE = _Modules(image=PILImage, ops=PILImageOps, chops=PILImageChops, enhance=PILImageEnhance)

#: ``build(modules, image, *args)``: the step on a lazy or a live image.
_Builder = Callable[..., Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class StepSpec:
    """One chain operation: its arguments (parsers and defaults) and the call it records."""

    name: str
    call: str
    #: (name shown in usage, parser) per argument, in order.
    parsers: tuple[tuple[str, Callable[[str], Any]], ...] = ()
    defaults: tuple[Any, ...] = ()
    build: _Builder
    #: Print trailing arguments that equal their default only when this is False (``convert``'s
    #: dither matters for P and 1 targets only, so ``convert:RGB`` stays as written).
    print_defaults: bool = True

    @property
    def usage(self) -> str:
        """The step as written in a chain, e.g. ``gaussian_blur:RADIUS``."""
        required = len(self.parsers) - len(self.defaults)
        names = [name for name, _ in self.parsers]
        parts = [name if index < required else f"[{name}]" for index, name in enumerate(names)]
        return ":".join([self.name, *parts])


def _rotate(modules: _Modules, image: Any, degrees: float, filter_name: str = "nearest") -> Any:
    # Pillow records 90/180/270 (expanded) as transposes and 0 as a copy; others are affine.
    return image.rotate(degrees, _FILTERS[filter_name], expand=True)


def _convert(modules: _Modules, image: Any, mode: str, dither: str = "floydsteinberg") -> Any:
    # Pillow's convert to the image's own mode is ``copy()``: nothing for the GPU to do. The
    # dither only matters for P and 1 targets.
    if image.mode == mode:
        return image.copy()
    return image.convert(mode, dither=_DITHERS[dither])


def _threshold(modules: _Modules, image: Any, level: int = 128) -> Any:
    # The bilevel image of the gray levels at or above ``level``: Pillow's point to mode 1.
    gray = image if image.mode == "L" else image.convert("L")
    return gray.point([255 if value >= level else 0 for value in range(256)], "1")


def _flatten(modules: _Modules, image: Any, color: str = "white") -> Any:
    # Transparency (an alpha band, or info["transparency"]) pasted over the colour through its
    # own alpha, as Pillow users flatten before saving a JPEG; other images are convert("RGB").
    if not {"A", "a"} & set(image.getbands()) and "transparency" not in image.info:
        return image.copy() if image.mode == "RGB" else image.convert("RGB")
    rgba = image if image.mode == "RGBA" else image.convert("RGBA")
    background = modules.image.new("RGB", rgba.size, color)
    background.paste(rgba, (0, 0), rgba)
    return background


def _thumbnail(image: Any, size: tuple[int, int], resample: int) -> Any:
    # Pillow (and an in-place pillow-gpu) changes the image and returns None.
    result = image.thumbnail(size, resample)
    return image if result is None else result


def _builtin(kernel: Any) -> _Builder:
    return lambda modules, image: image.filter(kernel)


def _module(attribute: str, name: str) -> _Builder:
    """A step calling ``name`` of the ``attribute`` module (``ops``: ImageOps) on the image."""
    return lambda modules, image, *args: getattr(getattr(modules, attribute), name)(image, *args)


def _enhancer(name: str) -> _Builder:
    return lambda modules, image, factor: getattr(modules.enhance, name)(image).enhance(factor)


def _sized_step(
    name: str,
    call: str,
    function: Callable[[_Modules, Any, tuple[int, int], int], Any],
    *,
    default: str = "bicubic",
) -> StepSpec:
    """A step taking ``WIDTHxHEIGHT[:FILTER]``: ``function(modules, image, size, resample)``."""
    return StepSpec(
        name=name,
        call=call,
        parsers=(("WIDTHxHEIGHT", _size), ("FILTER", _filter)),
        defaults=(default,),
        build=lambda modules, image, size, filter_name: function(
            modules, image, size, _FILTERS[filter_name]
        ),
    )


_SPECS: tuple[StepSpec, ...] = (
    StepSpec(name="invert", call="ImageOps.invert (L, RGB)", build=_module("ops", "invert")),
    StepSpec(
        name="chops_invert",
        call="ImageChops.invert (every byte)",
        build=_module("chops", "invert"),
    ),
    StepSpec(
        name="grayscale",
        call="ImageOps.grayscale (convert L; a copy of an L image)",
        build=lambda modules, image: _convert(modules, image, "L"),
    ),
    StepSpec(
        name="equalize",
        call="ImageOps.equalize (L, RGB; histogram built on the device)",
        build=_module("ops", "equalize"),
    ),
    StepSpec(
        name="autocontrast",
        call="ImageOps.autocontrast(cutoff=CUTOFF) (L, RGB; range found on the device)",
        parsers=(("CUTOFF", _number),),
        defaults=(0.0,),
        build=_module("ops", "autocontrast"),
    ),
    StepSpec(
        name="convert",
        call="Image.convert(MODE, dither=DITHER), e.g. convert:RGBA or convert:1:none (a copy "
        "when the image is in MODE; DITHER floydsteinberg (Pillow's default) or none)",
        parsers=(("MODE", _mode), ("DITHER", _dither)),
        defaults=("floydsteinberg",),
        build=_convert,
        print_defaults=False,
    ),
    StepSpec(
        name="threshold",
        call="image.convert('L').point(table, '1'): white at or above gray LEVEL (default 128), "
        "black below it, with no dither (the convert is skipped for an L image)",
        parsers=(("LEVEL", _integer),),
        defaults=(128,),
        build=_threshold,
    ),
    StepSpec(
        name="gaussian_blur",
        call="ImageFilter.GaussianBlur(RADIUS)",
        parsers=(("RADIUS", _number),),
        defaults=(2.0,),
        build=lambda modules, image, radius: image.filter(ImageFilter.GaussianBlur(radius)),
    ),
    StepSpec(
        name="box_blur",
        call="ImageFilter.BoxBlur(RADIUS)",
        parsers=(("RADIUS", _number),),
        build=lambda modules, image, radius: image.filter(ImageFilter.BoxBlur(radius)),
    ),
    StepSpec(
        name="median",
        call="ImageFilter.MedianFilter(SIZE)",
        parsers=(("SIZE", _integer),),
        defaults=(3,),
        build=lambda modules, image, size: image.filter(ImageFilter.MedianFilter(size)),
    ),
    StepSpec(
        name="min",
        call="ImageFilter.MinFilter(SIZE)",
        parsers=(("SIZE", _integer),),
        defaults=(3,),
        build=lambda modules, image, size: image.filter(ImageFilter.MinFilter(size)),
    ),
    StepSpec(
        name="max",
        call="ImageFilter.MaxFilter(SIZE)",
        parsers=(("SIZE", _integer),),
        defaults=(3,),
        build=lambda modules, image, size: image.filter(ImageFilter.MaxFilter(size)),
    ),
    StepSpec(name="sharpen", call="ImageFilter.SHARPEN", build=_builtin(ImageFilter.SHARPEN)),
    StepSpec(name="smooth", call="ImageFilter.SMOOTH", build=_builtin(ImageFilter.SMOOTH)),
    StepSpec(name="blur", call="ImageFilter.BLUR", build=_builtin(ImageFilter.BLUR)),
    StepSpec(
        name="find_edges", call="ImageFilter.FIND_EDGES", build=_builtin(ImageFilter.FIND_EDGES)
    ),
    StepSpec(name="emboss", call="ImageFilter.EMBOSS", build=_builtin(ImageFilter.EMBOSS)),
    StepSpec(name="flip", call="ImageOps.flip (top to bottom)", build=_module("ops", "flip")),
    StepSpec(name="mirror", call="ImageOps.mirror (left to right)", build=_module("ops", "mirror")),
    StepSpec(
        name="rotate",
        call="Image.rotate(DEGREES, FILTER, expand=True), counter-clockwise; FILTER nearest "
        "(default), bilinear or bicubic (90/180/270 are Pillow's transposes)",
        parsers=(("DEGREES", _number), ("FILTER", _rotate_filter)),
        defaults=("nearest",),
        print_defaults=False,
        build=_rotate,
    ),
    StepSpec(
        name="transpose",
        call="Image.transpose(TRANSPOSE)",
        build=lambda modules, image: image.transpose(Image.TRANSPOSE),
    ),
    StepSpec(
        name="exif_transpose",
        call="ImageOps.exif_transpose (the EXIF orientation, then removed from info)",
        build=_module("ops", "exif_transpose"),
    ),
    StepSpec(
        name="solarize",
        call="ImageOps.solarize(THRESHOLD) (L, RGB)",
        parsers=(("THRESHOLD", _integer),),
        defaults=(128,),
        build=_module("ops", "solarize"),
    ),
    StepSpec(
        name="posterize",
        call="ImageOps.posterize(BITS) (L, RGB)",
        parsers=(("BITS", _integer),),
        build=_module("ops", "posterize"),
    ),
    StepSpec(
        name="brightness",
        call="ImageEnhance.Brightness(image).enhance(FACTOR)",
        parsers=(("FACTOR", _number),),
        build=_enhancer("Brightness"),
    ),
    StepSpec(
        name="color",
        call="ImageEnhance.Color(image).enhance(FACTOR)",
        parsers=(("FACTOR", _number),),
        build=_enhancer("Color"),
    ),
    StepSpec(
        name="contrast",
        call="ImageEnhance.Contrast(image).enhance(FACTOR) (mean computed on the device)",
        parsers=(("FACTOR", _number),),
        build=_enhancer("Contrast"),
    ),
    _sized_step(
        "resize",
        "Image.resize(SIZE, FILTER), SIZE written WIDTHxHEIGHT, FILTER one of "
        + "/".join(_FILTERS)
        + " (default bicubic, Pillow's default)",
        lambda modules, image, size, resample: image.resize(size, resample),
    ),
    _sized_step(
        "contain",
        "ImageOps.contain(SIZE, FILTER), largest aspect-kept size within WIDTHxHEIGHT",
        lambda modules, image, size, resample: modules.ops.contain(image, size, resample),
    ),
    _sized_step(
        "fit",
        "ImageOps.fit(SIZE, FILTER), centre crop to WIDTHxHEIGHT",
        lambda modules, image, size, resample: modules.ops.fit(image, size, resample),
    ),
    _sized_step(
        "pad",
        "ImageOps.pad(SIZE, FILTER), contain then centre on black WIDTHxHEIGHT",
        lambda modules, image, size, resample: modules.ops.pad(image, size, resample),
    ),
    _sized_step(
        "thumbnail",
        "Image.thumbnail(SIZE, FILTER) (JPEG files decode with Pillow's draft)",
        lambda modules, image, size, resample: _thumbnail(image, size, resample),
    ),
    StepSpec(
        name="reduce",
        call="Image.reduce(DIVISOR) (integer box reduction)",
        parsers=(("DIVISOR", _integer),),
        build=lambda modules, image, factor: image.reduce(factor),
    ),
    StepSpec(
        name="unsharp",
        call="ImageFilter.UnsharpMask(RADIUS, PERCENT, THRESHOLD)",
        parsers=(("RADIUS", _number), ("PERCENT", _integer), ("THRESHOLD", _integer)),
        defaults=(2.0, 150, 3),
        build=lambda modules, image, radius, percent, threshold: image.filter(
            ImageFilter.UnsharpMask(radius, percent, threshold)
        ),
    ),
    StepSpec(
        name="mode_filter",
        call="ImageFilter.ModeFilter(SIZE)",
        parsers=(("SIZE", _integer),),
        defaults=(3,),
        build=lambda modules, image, size: image.filter(ImageFilter.ModeFilter(size)),
    ),
    StepSpec(
        name="sharpness",
        call="ImageEnhance.Sharpness(image).enhance(FACTOR)",
        parsers=(("FACTOR", _number),),
        build=_enhancer("Sharpness"),
    ),
    StepSpec(
        name="flatten",
        call="Image.new('RGB', size, COLOR).paste(rgba, (0, 0), rgba) of image.convert('RGBA'): "
        "transparency onto COLOR (default white); images without it convert('RGB')",
        parsers=(("COLOR", _color),),
        defaults=("white",),
        build=_flatten,
    ),
    StepSpec(
        name="expand",
        call="ImageOps.expand(border=BORDER)",
        parsers=(("BORDER", _integer),),
        build=_module("ops", "expand"),
    ),
    StepSpec(
        name="crop",
        call="ImageOps.crop(border=BORDER)",
        parsers=(("BORDER", _integer),),
        build=_module("ops", "crop"),
    ),
)

#: Every chain step by name.
STEPS: Mapping[str, StepSpec] = {spec.name: spec for spec in _SPECS}


def describe_steps() -> str:
    """One line per step: how it is written and the Pillow call it records."""
    width = max(len(spec.usage) for spec in _SPECS)
    return "\n".join(f"  {spec.usage:<{width}}  {spec.call}" for spec in _SPECS)
