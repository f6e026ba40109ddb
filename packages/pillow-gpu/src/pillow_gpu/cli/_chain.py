"""The chain syntax of ``pillow-gpu apply``: ``invert,gaussian_blur:2,grayscale``.

Grammar::

    chain := step ("," step)*
    step  := name (":" argument)*

Names are case-insensitive; spaces around names and arguments are ignored. Every step is one
Pillow call (the one :data:`~pillow_gpu.cli._steps.STEPS` names), written once against a set of
modules: :meth:`Chain.apply` records it on a lazy pillow-gpu image (an ordinary lazy graph;
nothing runs), :meth:`Chain.apply_pil` runs it on a live ``PIL.Image.Image`` (the CPU
fallback). Each step applies to each file as Pillow would: ``convert:MODE`` (and ``grayscale``)
on an image already in that mode is Pillow's copy and records nothing, so a chain never asks
the GPU for an identity conversion; Pillow's in-place ``thumbnail`` (which returns None) and
pillow-gpu's (which returns the result, or None once it is in place too) are both handled.
:func:`admitted_modes` asks the GPU planner which native modes a chain is admitted for, on a
tiny ``Image.new`` probe graph (no file is read, nothing runs).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PIL import Image as PILImage

from pillow_gpu import Image
from pillow_gpu.cli._steps import LAZY, LIVE, STEPS, StepSpec
from pillow_gpu.errors import GpuError
from pillow_gpu.gpu._layout import NATIVE_MODES
from pillow_gpu.gpu._planner import plan_graph

__all__ = [
    "PROBE_EDGES",
    "Admission",
    "Chain",
    "ChainError",
    "Step",
    "admitted_modes",
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One parsed step: the operation and its parsed arguments (defaults filled in)."""

    spec: StepSpec
    args: tuple[Any, ...]

    def __str__(self) -> str:
        args = list(self.args)
        if not self.spec.print_defaults:
            required = len(self.spec.parsers) - len(self.spec.defaults)
            while len(args) > required and args[-1] == self.spec.defaults[len(args) - 1 - required]:
                args.pop()
        return ":".join([self.spec.name, *(_format_arg(arg) for arg in args)])


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
        """Record every step on ``image`` and return the lazy result (nothing runs).

        Pillow's result of every step but ``thumbnail`` is a loaded image, which a later
        ``thumbnail`` can no longer draft; a step that leaves pillow-gpu's undecoded
        ``Image.open`` leaf as it is (a copy: ``convert`` to the file's own mode, ``rotate:0``)
        is therefore followed by a full crop when a ``thumbnail`` comes later, as
        ``ImageOps.exif_transpose`` does.
        """
        for index, step in enumerate(self.steps):
            result = step.spec.build(LAZY, image, *step.args)
            if (
                step.spec.name != "thumbnail"
                and result.node.op == "open"
                and any(later.spec.name == "thumbnail" for later in self.steps[index + 1 :])
            ):
                result = result.crop((0, 0, *result.size))
            image = result
        return image

    def apply_pil(self, image: PILImage.Image) -> PILImage.Image:
        """Run every step on the live Pillow ``image`` and return the result (the CPU path)."""
        for step in self.steps:
            image = step.spec.build(LIVE, image, *step.args)
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
    _check_commas(text, parts)
    return Chain(steps=tuple(_parse_step(part, index) for index, part in enumerate(parts, 1)))


def _check_commas(text: str, parts: list[str]) -> None:
    """Refuse a step's arguments written as Pillow's tuple (``crop:0,0,10,10``,
    ``resize:8,8``): the commas split them into steps named by numbers."""
    named: tuple[int, StepSpec] | None = None  # the last step that names a known operation
    for index, part in enumerate(parts, 1):
        name = part.split(":")[0].strip()
        if not _is_number(name):
            spec = STEPS.get(name.lower())
            named = None if spec is None else (index, spec)
        elif named is not None:
            position, spec = named
            raise ChainError(
                f"step {index} is a number, not an operation: commas separate steps, and a "
                "step's arguments follow its name after colons",
                observed=f"{part.strip()!r} after step {position} ({spec.name}) in {text!r}",
                fix=f"write step {position} as {spec.usage}",
            )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


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
