"""Contract value objects: precisions, Frame field wrappers, FrameContract, params and shapes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from pixtreme.core import Colorspace, Dtype, Gamma, Matrix
from pixtreme.core import channels as _normalize_channels
from pixtreme.infer import _validate as v
from pixtreme.infer.errors import ContractError

Precision = Literal["fp32", "fp16", "int8"]
"""Numeric precision an artifact is built for."""
PRECISIONS: tuple[Precision, ...] = get_args(Precision)

CheckpointContainer = Literal["bare", "params", "params_ema", "params-ema"]
"""Where a checkpoint keeps its weights: at the top level or under a named container key."""
CHECKPOINT_CONTAINERS: tuple[CheckpointContainer, ...] = get_args(CheckpointContainer)

COLORSPACES: tuple[Colorspace, ...] = get_args(Colorspace)
GAMMAS: tuple[Gamma, ...] = get_args(Gamma)
MATRICES: tuple[Matrix | None, ...] = (*get_args(Matrix), None)
DTYPES: tuple[Dtype, ...] = get_args(Dtype)

_RESERVED_PARAM_NAMES = frozenset({"frame", "reset"})
_FRAME_FIELDS = ("channels", "colorspace", "gamma", "matrix", "dtype")


def parse_precision(value: object) -> Precision:
    """Return ``value`` as a Precision, or raise ContractError listing the accepted ones."""
    return v.one_of("Precision", "precision", value, PRECISIONS)


def parse_checkpoint_container(value: object) -> CheckpointContainer:
    """Return ``value`` as a CheckpointContainer, or raise ContractError."""
    return v.one_of("CheckpointContainer", "container", value, CHECKPOINT_CONTAINERS)


# Exact and UnconstrainedWithReference take their one field positionally, as the published
# call form ``Exact(value)`` does; every other value object is keyword-only.
@dataclass(frozen=True, slots=True)
class Exact[T]:
    """A Frame field the contract fixes: observed values must equal ``value``."""

    value: T

    def accepts(self, observed: object) -> bool:
        """Whether ``observed`` satisfies this field constraint."""
        return bool(observed == self.value)


@dataclass(frozen=True, slots=True)
class UnconstrainedWithReference[T]:
    """A Frame field the contract leaves free; ``reference`` is the value used by its tests."""

    reference: T

    def accepts(self, observed: object) -> bool:
        """Any valid value is accepted."""
        return True


type FrameField[T] = Exact[T] | UnconstrainedWithReference[T]


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameMetadata:
    """The metadata of one Frame as observed at a boundary (no pixel data)."""

    channels: tuple[str, ...]
    colorspace: str
    gamma: str
    matrix: str | None
    dtype: str

    def __post_init__(self) -> None:
        owner = "FrameMetadata"
        if (
            not isinstance(self.channels, tuple)
            or not self.channels
            or not all(isinstance(label, str) and label for label in self.channels)
        ):
            v.fail(
                owner,
                "channels",
                self.channels,
                expected="a non-empty tuple of non-empty labels",
                how="pass tuple(frame.channels)",
            )
        for field in ("colorspace", "gamma", "dtype"):
            v.non_empty_str(owner, field, getattr(self, field))
        if self.matrix is not None:
            v.non_empty_str(owner, "matrix", self.matrix)


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameFieldMismatch:
    """One Frame field whose observed value breaks an Exact constraint."""

    field: str
    observed: object
    expected: object

    def __post_init__(self) -> None:
        v.one_of("FrameFieldMismatch", "field", self.field, _FRAME_FIELDS)


def _wrapped(field: str, value: object) -> Exact[object] | UnconstrainedWithReference[object]:
    if not isinstance(value, Exact | UnconstrainedWithReference):
        v.fail(
            "FrameContract",
            field,
            value,
            expected="wrapped in Exact(value=...) or UnconstrainedWithReference(reference=...)",
            how=f"pass {field}=Exact(value={value!r}) to fix it, or "
            f"UnconstrainedWithReference(reference={value!r}) to leave it free",
        )
    return value


def _inner(wrapper: Exact[object] | UnconstrainedWithReference[object]) -> object:
    return wrapper.value if isinstance(wrapper, Exact) else wrapper.reference


def _rewrap[T](
    wrapper: Exact[object] | UnconstrainedWithReference[object], inner: T
) -> Exact[T] | UnconstrainedWithReference[T]:
    if isinstance(wrapper, Exact):
        return Exact(value=inner)
    return UnconstrainedWithReference(reference=inner)


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameContract:
    """What a Frame at one boundary must look like; every field is Exact or unconstrained.

    ``channels`` accepts pixtreme's compact form ("RGB") and is normalized to a tuple.
    """

    channels: Exact[tuple[str, ...]] | UnconstrainedWithReference[tuple[str, ...]]
    colorspace: Exact[Colorspace] | UnconstrainedWithReference[Colorspace]
    gamma: Exact[Gamma] | UnconstrainedWithReference[Gamma]
    matrix: Exact[Matrix | None] | UnconstrainedWithReference[Matrix | None]
    dtype: Exact[Dtype] | UnconstrainedWithReference[Dtype]

    def __post_init__(self) -> None:
        channels = _wrapped("channels", self.channels)
        try:
            normalized = _normalize_channels(_inner(channels))
        except ValueError as error:
            raise ContractError(
                why="FrameContract.channels must hold pixtreme channel labels",
                what=f"received channels={_inner(channels)!r}: {error}",
                how="use a compact string such as 'RGB' or a tuple such as ('R', 'G', 'B')",
            ) from error
        object.__setattr__(self, "channels", _rewrap(channels, normalized))
        for field, accepted in (
            ("colorspace", COLORSPACES),
            ("gamma", GAMMAS),
            ("matrix", MATRICES),
            ("dtype", DTYPES),
        ):
            wrapper = _wrapped(field, getattr(self, field))
            v.one_of("FrameContract", field, _inner(wrapper), accepted)

    def reference_metadata(self) -> FrameMetadata:
        """The metadata made of every field's fixed or reference value."""
        return FrameMetadata(
            channels=_inner(self.channels),  # type: ignore[arg-type]
            colorspace=_inner(self.colorspace),  # type: ignore[arg-type]
            gamma=_inner(self.gamma),  # type: ignore[arg-type]
            matrix=_inner(self.matrix),  # type: ignore[arg-type]
            dtype=_inner(self.dtype),  # type: ignore[arg-type]
        )

    def mismatches(self, observed: FrameMetadata) -> tuple[FrameFieldMismatch, ...]:
        """The Exact fields whose observed value differs, in declaration order."""
        found = []
        for field in _FRAME_FIELDS:
            wrapper = getattr(self, field)
            value = getattr(observed, field)
            if not wrapper.accepts(value):
                found.append(
                    FrameFieldMismatch(field=field, observed=value, expected=wrapper.value)
                )
        return tuple(found)


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuArrayParamContract:
    """A keyword parameter passed as a GPU array alongside the Frame.

    ``shape`` items are positive ints or identifier symbols (for sizes tied to the request,
    such as "H" and "W"); ``unit`` says what the values mean ("1", "pixels", "radians").
    """

    name: str
    shape: tuple[int | str, ...]
    dtype: str
    unit: str

    def __post_init__(self) -> None:
        owner = "GpuArrayParamContract"
        v.identifier(owner, "name", self.name)
        if self.name in _RESERVED_PARAM_NAMES:
            v.fail(
                owner,
                "name",
                self.name,
                expected="not 'frame' or 'reset' (reserved by the call protocol)",
                how="choose another parameter name, such as 'mask' or 'strength_map'",
            )
        if not isinstance(self.shape, tuple) or not self.shape:
            v.fail(
                owner,
                "shape",
                self.shape,
                expected="a non-empty tuple",
                how="pass shape=('H', 'W') or shape=(3,)",
            )
        for item in self.shape:
            if isinstance(item, str):
                v.identifier(owner, "shape", item)
            else:
                v.positive_int(owner, "shape", item)
        v.non_empty_str(owner, "dtype", self.dtype)
        v.non_empty_str(owner, "unit", self.unit)


@dataclass(frozen=True, slots=True, kw_only=True)
class ShapeProfile:
    """The (height, width) range an artifact accepts: 1 <= min <= opt <= max on each axis."""

    min_hw: tuple[int, int]
    opt_hw: tuple[int, int]
    max_hw: tuple[int, int]

    def __post_init__(self) -> None:
        owner = "ShapeProfile"
        low = v.hw_pair(owner, "min_hw", self.min_hw)
        opt = v.hw_pair(owner, "opt_hw", self.opt_hw)
        high = v.hw_pair(owner, "max_hw", self.max_hw)
        for axis, name in enumerate(("height", "width")):
            if not low[axis] <= opt[axis] <= high[axis]:
                raise ContractError(
                    why=f"ShapeProfile needs min <= opt <= max on the {name} axis",
                    what=f"received min_hw={low}, opt_hw={opt}, max_hw={high}",
                    how="order the three shapes so each axis grows from min to opt to max",
                )

    def contains(self, hw: tuple[int, int]) -> bool:
        """Whether ``hw`` lies within [min_hw, max_hw] on both axes."""
        return all(self.min_hw[i] <= hw[i] <= self.max_hw[i] for i in range(2))


@dataclass(frozen=True, slots=True, kw_only=True)
class StateFootprint:
    """Persistent GPU state a temporal instance keeps between calls."""

    amount: int
    unit: Literal["bytes"] = "bytes"

    def __post_init__(self) -> None:
        v.positive_int("StateFootprint", "amount", self.amount)
        v.one_of("StateFootprint", "unit", self.unit, ("bytes",))
