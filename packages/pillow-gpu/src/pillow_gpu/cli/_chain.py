"""The chain syntax of ``pillow-gpu apply``: ``invert,gaussian_blur:2,grayscale``.

Grammar::

    chain := step ("," step)*
    step  := name (":" argument)*

Names are case-insensitive; spaces around names and arguments are ignored. Every step records
one lazy pillow-gpu operation (the Pillow call in :data:`STEPS`), so a chain applied to an image
is an ordinary lazy graph. :func:`admitted_modes` asks the GPU planner which native modes a
chain is admitted for, on a tiny ``Image.new`` probe graph (no file is read, nothing runs).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pillow_gpu import Image, ImageChops, ImageEnhance, ImageFilter, ImageOps
from pillow_gpu.errors import GpuError
from pillow_gpu.gpu._layout import NATIVE_MODES
from pillow_gpu.gpu._planner import plan_graph

__all__ = [
    "PROBE_EDGES",
    "STEPS",
    "Admission",
    "Chain",
    "ChainError",
    "Step",
    "StepSpec",
    "admitted_modes",
    "describe_steps",
    "parse_chain",
]

#: Edges of the square probe images admission is checked on; a mode is admitted when any
#: probe is. Size-dependent steps (a crop border, an expand past the pixel bound) are checked
#: again on each file, and a file that fails them is reported by its path.
PROBE_EDGES = (64, 1024)


class ChainError(ValueError):
    """A chain that cannot be parsed or that the GPU planner admits for no mode."""

    def __init__(self, why: str, *, observed: str, fix: str) -> None:
        self.why = why
        self.observed = observed
        self.fix = fix
        super().__init__(f"why: {why}; observed: {observed}; fix: {fix}")


def _number(text: str) -> float:
    return float(text)


def _integer(text: str) -> int:
    return int(text)


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    return int(width), int(height)


def _mode(text: str) -> str:
    return text.upper()


#: Resampling filters of the ``resize`` step by name.
_FILTERS = {
    "nearest": Image.NEAREST,
    "box": Image.BOX,
    "bilinear": Image.BILINEAR,
    "hamming": Image.HAMMING,
    "bicubic": Image.BICUBIC,
    "lanczos": Image.LANCZOS,
}


def _filter(text: str) -> str:
    name = text.lower()
    if name not in _FILTERS:
        msg = f"unknown resampling filter {text!r}; choose one of {', '.join(_FILTERS)}"
        raise ValueError(msg)
    return name


_Builder = Callable[..., Image.Image]


@dataclass(frozen=True, slots=True, kw_only=True)
class StepSpec:
    """One chain operation: its arguments (parsers and defaults) and the call it records."""

    name: str
    call: str
    #: (name shown in usage, parser) per argument, in order.
    parsers: tuple[tuple[str, Callable[[str], Any]], ...] = ()
    defaults: tuple[Any, ...] = ()
    build: _Builder

    @property
    def usage(self) -> str:
        """The step as written in a chain, e.g. ``gaussian_blur:RADIUS``."""
        required = len(self.parsers) - len(self.defaults)
        names = [name for name, _ in self.parsers]
        parts = [name if index < required else f"[{name}]" for index, name in enumerate(names)]
        return ":".join([self.name, *parts])


def _rotate(image: Image.Image, degrees: float) -> Image.Image:
    # Pillow records 90/180/270 (expanded) as transposes and 0 as a copy; others are affine.
    return image.rotate(degrees, Image.NEAREST, expand=True)


def _builtin(kernel: Any) -> _Builder:
    return lambda image: image.filter(kernel)


def _sized_step(
    name: str,
    call: str,
    function: Callable[[Image.Image, tuple[int, int], int], Image.Image],
    *,
    default: str = "bicubic",
) -> StepSpec:
    """A step taking ``WIDTHxHEIGHT[:FILTER]`` that calls ``function(image, size, resample)``."""
    return StepSpec(
        name=name,
        call=call,
        parsers=(("WIDTHxHEIGHT", _size), ("FILTER", _filter)),
        defaults=(default,),
        build=lambda image, size, filter_name: function(image, size, _FILTERS[filter_name]),
    )


_SPECS: tuple[StepSpec, ...] = (
    StepSpec(name="invert", call="ImageOps.invert (L, RGB)", build=ImageOps.invert),
    StepSpec(name="chops_invert", call="ImageChops.invert (every byte)", build=ImageChops.invert),
    StepSpec(name="grayscale", call="ImageOps.grayscale", build=ImageOps.grayscale),
    StepSpec(
        name="equalize",
        call="ImageOps.equalize (L, RGB; histogram built on the device)",
        build=ImageOps.equalize,
    ),
    StepSpec(
        name="autocontrast",
        call="ImageOps.autocontrast(cutoff=CUTOFF) (L, RGB; range found on the device)",
        parsers=(("CUTOFF", _number),),
        defaults=(0.0,),
        build=ImageOps.autocontrast,
    ),
    StepSpec(
        name="convert",
        call="Image.convert(MODE), e.g. convert:RGBA",
        parsers=(("MODE", _mode),),
        build=lambda image, mode: image.convert(mode),
    ),
    StepSpec(
        name="gaussian_blur",
        call="ImageFilter.GaussianBlur(RADIUS)",
        parsers=(("RADIUS", _number),),
        defaults=(2.0,),
        build=lambda image, radius: image.filter(ImageFilter.GaussianBlur(radius)),
    ),
    StepSpec(
        name="box_blur",
        call="ImageFilter.BoxBlur(RADIUS)",
        parsers=(("RADIUS", _number),),
        build=lambda image, radius: image.filter(ImageFilter.BoxBlur(radius)),
    ),
    StepSpec(
        name="median",
        call="ImageFilter.MedianFilter(SIZE)",
        parsers=(("SIZE", _integer),),
        defaults=(3,),
        build=lambda image, size: image.filter(ImageFilter.MedianFilter(size)),
    ),
    StepSpec(
        name="min",
        call="ImageFilter.MinFilter(SIZE)",
        parsers=(("SIZE", _integer),),
        defaults=(3,),
        build=lambda image, size: image.filter(ImageFilter.MinFilter(size)),
    ),
    StepSpec(
        name="max",
        call="ImageFilter.MaxFilter(SIZE)",
        parsers=(("SIZE", _integer),),
        defaults=(3,),
        build=lambda image, size: image.filter(ImageFilter.MaxFilter(size)),
    ),
    StepSpec(name="sharpen", call="ImageFilter.SHARPEN", build=_builtin(ImageFilter.SHARPEN)),
    StepSpec(name="smooth", call="ImageFilter.SMOOTH", build=_builtin(ImageFilter.SMOOTH)),
    StepSpec(name="blur", call="ImageFilter.BLUR", build=_builtin(ImageFilter.BLUR)),
    StepSpec(
        name="find_edges", call="ImageFilter.FIND_EDGES", build=_builtin(ImageFilter.FIND_EDGES)
    ),
    StepSpec(name="emboss", call="ImageFilter.EMBOSS", build=_builtin(ImageFilter.EMBOSS)),
    StepSpec(name="flip", call="ImageOps.flip (top to bottom)", build=ImageOps.flip),
    StepSpec(name="mirror", call="ImageOps.mirror (left to right)", build=ImageOps.mirror),
    StepSpec(
        name="rotate",
        call="Image.rotate(DEGREES, NEAREST, expand=True), counter-clockwise "
        "(90/180/270 are Pillow's transposes)",
        parsers=(("DEGREES", _number),),
        build=_rotate,
    ),
    StepSpec(
        name="transpose",
        call="Image.transpose(TRANSPOSE)",
        build=lambda image: image.transpose(Image.TRANSPOSE),
    ),
    StepSpec(
        name="exif_transpose",
        call="ImageOps.exif_transpose (the EXIF orientation, then removed from info)",
        build=ImageOps.exif_transpose,
    ),
    StepSpec(
        name="solarize",
        call="ImageOps.solarize(THRESHOLD) (L, RGB)",
        parsers=(("THRESHOLD", _integer),),
        defaults=(128,),
        build=ImageOps.solarize,
    ),
    StepSpec(
        name="posterize",
        call="ImageOps.posterize(BITS) (L, RGB)",
        parsers=(("BITS", _integer),),
        build=ImageOps.posterize,
    ),
    StepSpec(
        name="brightness",
        call="ImageEnhance.Brightness(image).enhance(FACTOR)",
        parsers=(("FACTOR", _number),),
        build=lambda image, factor: ImageEnhance.Brightness(image).enhance(factor),
    ),
    StepSpec(
        name="color",
        call="ImageEnhance.Color(image).enhance(FACTOR)",
        parsers=(("FACTOR", _number),),
        build=lambda image, factor: ImageEnhance.Color(image).enhance(factor),
    ),
    StepSpec(
        name="contrast",
        call="ImageEnhance.Contrast(image).enhance(FACTOR) (mean computed on the device)",
        parsers=(("FACTOR", _number),),
        build=lambda image, factor: ImageEnhance.Contrast(image).enhance(factor),
    ),
    _sized_step(
        "resize",
        "Image.resize(SIZE, FILTER), SIZE written WIDTHxHEIGHT, FILTER one of "
        + "/".join(_FILTERS)
        + " (default bicubic, Pillow's default)",
        lambda image, size, resample: image.resize(size, resample),
    ),
    _sized_step(
        "contain",
        "ImageOps.contain(SIZE, FILTER), largest aspect-kept size within WIDTHxHEIGHT",
        ImageOps.contain,
    ),
    _sized_step("fit", "ImageOps.fit(SIZE, FILTER), centre crop to WIDTHxHEIGHT", ImageOps.fit),
    _sized_step(
        "pad", "ImageOps.pad(SIZE, FILTER), contain then centre on black WIDTHxHEIGHT", ImageOps.pad
    ),
    _sized_step(
        "thumbnail",
        "Image.thumbnail(SIZE, FILTER) (JPEG files decode with Pillow's draft)",
        lambda image, size, resample: image.thumbnail(size, resample),
    ),
    StepSpec(
        name="reduce",
        call="Image.reduce(DIVISOR) (integer box reduction)",
        parsers=(("DIVISOR", _integer),),
        build=lambda image, factor: image.reduce(factor),
    ),
    StepSpec(
        name="unsharp",
        call="ImageFilter.UnsharpMask(RADIUS, PERCENT, THRESHOLD)",
        parsers=(("RADIUS", _number), ("PERCENT", _integer), ("THRESHOLD", _integer)),
        defaults=(2.0, 150, 3),
        build=lambda image, radius, percent, threshold: image.filter(
            ImageFilter.UnsharpMask(radius, percent, threshold)
        ),
    ),
    StepSpec(
        name="mode_filter",
        call="ImageFilter.ModeFilter(SIZE)",
        parsers=(("SIZE", _integer),),
        defaults=(3,),
        build=lambda image, size: image.filter(ImageFilter.ModeFilter(size)),
    ),
    StepSpec(
        name="sharpness",
        call="ImageEnhance.Sharpness(image).enhance(FACTOR)",
        parsers=(("FACTOR", _number),),
        build=lambda image, factor: ImageEnhance.Sharpness(image).enhance(factor),
    ),
    StepSpec(
        name="expand",
        call="ImageOps.expand(border=BORDER)",
        parsers=(("BORDER", _integer),),
        build=ImageOps.expand,
    ),
    StepSpec(
        name="crop",
        call="ImageOps.crop(border=BORDER)",
        parsers=(("BORDER", _integer),),
        build=ImageOps.crop,
    ),
)

#: Every chain step by name.
STEPS: Mapping[str, StepSpec] = {spec.name: spec for spec in _SPECS}


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One parsed step: the operation and its parsed arguments (defaults filled in)."""

    spec: StepSpec
    args: tuple[Any, ...]

    def __str__(self) -> str:
        return ":".join([self.spec.name, *(_format_arg(arg) for arg in self.args)])


def _format_arg(arg: Any) -> str:
    if isinstance(arg, tuple):
        return "x".join(str(value) for value in arg)
    if isinstance(arg, float):
        return str(int(arg)) if arg.is_integer() else repr(arg)  # shortest exact form
    return str(arg)


@dataclass(frozen=True, slots=True, kw_only=True)
class Chain:
    """A parsed chain of steps, applied left to right."""

    steps: tuple[Step, ...]

    def __str__(self) -> str:
        return ",".join(str(step) for step in self.steps)

    def apply(self, image: Image.Image) -> Image.Image:
        """Record every step on ``image`` and return the lazy result (nothing runs)."""
        for step in self.steps:
            image = step.spec.build(image, *step.args)
        return image


def _suggest(name: str) -> str:
    close = difflib.get_close_matches(name, list(STEPS), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"{hint}known steps: {', '.join(STEPS)}"


def _parse_step(text: str, position: int) -> Step:
    name, *raw_args = (part.strip() for part in text.split(":"))
    name = name.lower()
    if not name:
        raise ChainError(
            f"step {position} is empty",
            observed=f"{text!r}",
            fix="write steps separated by single commas, e.g. invert,gaussian_blur:2",
        )
    spec = STEPS.get(name)
    if spec is None:
        raise ChainError(
            f"step {position} names an unknown operation",
            observed=f"{name!r}",
            fix=_suggest(name),
        )
    required = len(spec.parsers) - len(spec.defaults)
    if not required <= len(raw_args) <= len(spec.parsers):
        expected = (
            str(required) if required == len(spec.parsers) else f"{required}..{len(spec.parsers)}"
        )
        raise ChainError(
            f"step {position} ({name}) takes {expected} argument(s)",
            observed=f"{len(raw_args)} in {text.strip()!r}",
            fix=f"write it as {spec.usage}",
        )
    args: list[Any] = []
    for (arg_name, parser), raw in zip(spec.parsers, raw_args, strict=False):
        try:
            args.append(parser(raw))
        except ValueError as error:
            raise ChainError(
                f"step {position} ({name}) has an invalid {arg_name} "
                f"(expected {parser.__name__.lstrip('_')})",
                observed=f"{raw!r} ({error})",
                fix=f"write it as {spec.usage}",
            ) from error
    args.extend(spec.defaults[len(args) - required :])  # defaults of the omitted arguments
    return Step(spec=spec, args=tuple(args))


def parse_chain(text: str) -> Chain:
    """Parse ``text`` (see the module docstring); raise :class:`ChainError` when invalid."""
    if not text.strip():
        raise ChainError(
            "the chain is empty",
            observed=repr(text),
            fix="name at least one step, e.g. invert or gaussian_blur:2",
        )
    parts = text.split(",")
    return Chain(steps=tuple(_parse_step(part, index) for index, part in enumerate(parts, 1)))


@dataclass(frozen=True, slots=True, kw_only=True)
class Admission:
    """Which native modes the planner admits a chain for, and why the others are refused."""

    admitted: tuple[str, ...]
    refused: Mapping[str, str]

    def require_any(self, chain: Chain) -> None:
        """Raise :class:`ChainError` when no native mode is admitted."""
        if self.admitted:
            return
        reasons = "; ".join(f"{mode}: {why}" for mode, why in self.refused.items())
        raise ChainError(
            f"the GPU planner admits chain {str(chain)!r} for no native mode",
            observed=reasons,
            fix="change the parameters or steps named above (see `pillow-gpu info` for the "
            "native routes)",
        )


def _reason(error: Exception) -> str:
    if isinstance(error, GpuError):
        return f"{error.kind}: {error.why}"
    return f"{type(error).__name__}: {error}"


def _admits(chain: Chain, mode: str, edge: int) -> str | None:
    """None when the planner admits ``chain`` on an ``edge``-square probe, else the reason."""
    try:
        plan_graph(chain.apply(Image.new(mode, (edge, edge))))
    except (GpuError, ValueError, OSError, TypeError) as error:
        return _reason(error)
    return None


def admitted_modes(chain: Chain, modes: tuple[str, ...] = NATIVE_MODES) -> Admission:
    """Plan ``chain`` on ``Image.new`` probes of each mode; nothing is read, allocated or run."""
    admitted: list[str] = []
    refused: dict[str, str] = {}
    for mode in modes:
        reasons = [_admits(chain, mode, edge) for edge in PROBE_EDGES]
        if None in reasons:
            admitted.append(mode)
        else:
            refused[mode] = str(reasons[0])
    return Admission(admitted=tuple(admitted), refused=refused)


def describe_steps() -> str:
    """One line per step: how it is written and the Pillow call it records."""
    width = max(len(spec.usage) for spec in _SPECS)
    return "\n".join(f"  {spec.usage:<{width}}  {spec.call}" for spec in _SPECS)
