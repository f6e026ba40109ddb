"""Module, family and open contracts: what an architecture declares before and after open."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, NoReturn, TypeAlias, TypeVar, get_args

from pixtreme.infer._frame_contract import FrameContract
from pixtreme.infer.errors import ContractError

Precision: TypeAlias = Literal["fp32", "fp16", "int8"]  # noqa: UP040 (published form)
CheckpointContainer: TypeAlias = Literal["bare", "params", "params_ema", "params-ema"]  # noqa: UP040

PRECISIONS: tuple[Precision, ...] = get_args(Precision)
"""Every precision an artifact can be built for."""
CHECKPOINT_CONTAINERS: tuple[CheckpointContainer, ...] = get_args(CheckpointContainer)
"""Every place a checkpoint can keep its weights: the top level or a named container key."""

StateFootprintT = TypeVar("StateFootprintT", covariant=True)  # noqa: PLC0105 (the published name)
ArtifactIdentityT = TypeVar("ArtifactIdentityT")

_RESERVED_NAMES = frozenset({"frame", "reset"})


def _reject(why: str, what: str, how: str) -> NoReturn:
    raise ContractError(why=why, what=what, how=how)


def _is_count(value: object, *, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _positive(value: object, name: str) -> None:
    if not _is_count(value, minimum=1):
        _reject(
            f"{name} must be a positive integer",
            f"observed {name}={value!r}",
            f"pass a whole number of at least 1 for {name}",
        )


def _hw(value: object, name: str) -> tuple[int, int] | None:
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and all(isinstance(axis, int) and not isinstance(axis, bool) for axis in value)
    ):
        return value
    return None


def parse_precision(value: object) -> Precision:
    """Return ``value`` as a Precision, or raise ContractError naming the accepted ones."""
    for precision in PRECISIONS:
        if type(value) is str and value == precision:
            return precision
    _reject(
        "precision must be one of the supported precisions",
        f"observed precision={value!r}",
        f"pass one of {list(PRECISIONS)}",
    )


def parse_checkpoint_container(value: object) -> CheckpointContainer:
    """Return ``value`` as a CheckpointContainer, or raise ContractError."""
    for container in CHECKPOINT_CONTAINERS:
        if type(value) is str and value == container:
            return container
    _reject(
        "a checkpoint container must be one of the known layouts",
        f"observed container={value!r}",
        f"pass one of {list(CHECKPOINT_CONTAINERS)}",
    )


@dataclass(frozen=True)
class GpuArrayParamContract:
    """One required keyword-only CUDA array parameter of a module call.

    ``shape`` items are positive ints or identifier symbols bound per request (such as "H");
    ``unit`` says what the values mean.
    """

    name: str
    shape: tuple[int | str, ...]
    dtype: str
    unit: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            _reject(
                "a GPU array parameter name must be a Python identifier",
                f"observed name={self.name!r}",
                "use the exact keyword name of the call",
            )
        if self.name in _RESERVED_NAMES:
            _reject(
                "'frame' and 'reset' are reserved by the inference call",
                f"observed name={self.name!r}",
                "choose another keyword, such as 'mask'",
            )
        if not isinstance(self.shape, tuple) or not all(
            _is_count(item, minimum=1) or (isinstance(item, str) and item.isidentifier())
            for item in self.shape
        ):
            _reject(
                "a GPU array parameter shape holds positive ints or identifier symbols",
                f"observed name={self.name!r}, shape={self.shape!r}",
                "declare each dimension as a positive int or a symbol such as 'H'",
            )
        for label in ("dtype", "unit"):
            value = getattr(self, label)
            if not isinstance(value, str) or not value.strip():
                _reject(
                    f"a GPU array parameter {label} must be a non-empty string",
                    f"observed name={self.name!r}, {label}={value!r}",
                    "declare the canonical dtype name"
                    if label == "dtype"
                    else "declare what the values mean and their unit",
                )


def _params(params: object) -> None:
    if not isinstance(params, tuple) or not all(
        isinstance(param, GpuArrayParamContract) for param in params
    ):
        _reject(
            "module params must be a tuple of GpuArrayParamContract",
            f"observed params={params!r}",
            "declare params=(GpuArrayParamContract(...), ...)",
        )
    names = [param.name for param in params]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        _reject(
            "each GPU array parameter may be declared once",
            f"observed names={names!r}, repeated={repeated!r}",
            "remove the repeated declarations",
        )


def _startup_frames(value: object) -> None:
    if not _is_count(value, minimum=0):
        _reject(
            "startup_frames must be a non-negative integer",
            f"observed startup_frames={value!r}",
            "count the frames (the reset frame included) before the output is steady",
        )


def _input_hw(value: object) -> None:
    hw = _hw(value, "input_hw")
    if hw is None or min(hw) < 1:
        _reject(
            "input_hw must be two positive integers (height, width)",
            f"observed input_hw={value!r}",
            "pass input_hw=(height, width)",
        )


@dataclass(frozen=True)
class StatelessModuleContract:
    """A stateless single-Frame module: Frame contracts, GPU parameters and spatial scale."""

    input_frame: FrameContract
    output_frame: FrameContract
    params: tuple[GpuArrayParamContract, ...]
    scale: int
    temporal: Literal[False] = field(default=False, init=False)

    def __post_init__(self) -> None:
        _params(self.params)
        _positive(self.scale, "scale")


@dataclass(frozen=True)
class TemporalModuleContract(Generic[StateFootprintT]):  # noqa: UP046 (the published form)
    """A stateful temporal module: as stateless, plus startup frames and its state footprint."""

    input_frame: FrameContract
    output_frame: FrameContract
    params: tuple[GpuArrayParamContract, ...]
    scale: int
    startup_frames: int
    state_footprint: StateFootprintT
    temporal: Literal[True] = field(default=True, init=False)
    reset_control: Literal["reset"] = field(default="reset", init=False)

    def __post_init__(self) -> None:
        _params(self.params)
        _positive(self.scale, "scale")
        _startup_frames(self.startup_frames)


@dataclass(frozen=True)
class StateFootprint:
    """Persistent state bytes one opened instance holds (workspace and outputs excluded)."""

    amount: int
    unit: Literal["bytes"] = "bytes"

    def __post_init__(self) -> None:
        _positive(self.amount, "amount")
        if self.unit != "bytes":
            _reject(
                "a state footprint is counted in bytes",
                f"observed unit={self.unit!r}",
                "express the amount in bytes and pass unit='bytes'",
            )


@dataclass(frozen=True)
class StatelessFamilyContract:
    """What a stateless architecture declares without an artifact or a device."""

    input_frame: FrameContract
    output_frame: FrameContract
    params: tuple[GpuArrayParamContract, ...]
    temporal: Literal[False] = field(default=False, init=False)

    def __post_init__(self) -> None:
        _params(self.params)


@dataclass(frozen=True)
class StatelessOpenContract(Generic[ArtifactIdentityT]):  # noqa: UP046
    """One artifact, precision and fixed input size of a stateless instance."""

    family_contract: StatelessFamilyContract
    artifact_identity: ArtifactIdentityT
    precision: Precision
    input_hw: tuple[int, int]
    scale: int

    def __post_init__(self) -> None:
        _input_hw(self.input_hw)
        _positive(self.scale, "scale")

    @property
    def module_contract(self) -> StatelessModuleContract:
        """The module contract this configuration serves (for verification and call checks)."""
        family = self.family_contract
        return StatelessModuleContract(
            family.input_frame, family.output_frame, family.params, self.scale
        )


@dataclass(frozen=True)
class TemporalFamilyContract:
    """What a temporal architecture declares without an artifact or a device."""

    input_frame: FrameContract
    output_frame: FrameContract
    params: tuple[GpuArrayParamContract, ...]
    startup_frames: int
    temporal: Literal[True] = field(default=True, init=False)
    reset_control: Literal["reset"] = field(default="reset", init=False)

    def __post_init__(self) -> None:
        _params(self.params)
        _startup_frames(self.startup_frames)


@dataclass(frozen=True)
class TemporalOpenContract(Generic[ArtifactIdentityT]):  # noqa: UP046
    """One artifact, precision and fixed input size of a temporal instance."""

    family_contract: TemporalFamilyContract
    artifact_identity: ArtifactIdentityT
    precision: Precision
    input_hw: tuple[int, int]
    scale: int
    state_footprint: StateFootprint

    def __post_init__(self) -> None:
        _input_hw(self.input_hw)
        _positive(self.scale, "scale")

    @property
    def module_contract(self) -> TemporalModuleContract[StateFootprint]:
        """A fresh module contract of this configuration for the temporal verification suite."""
        family = self.family_contract
        return TemporalModuleContract(
            family.input_frame,
            family.output_frame,
            family.params,
            self.scale,
            family.startup_frames,
            self.state_footprint,
        )


ModuleContract: TypeAlias = StatelessModuleContract | TemporalModuleContract[object]  # noqa: UP040


def validate_call_params(contract: ModuleContract, observed_names: set[str]) -> None:
    """Reject missing or undeclared call keywords before any Frame or backend access.

    Temporal contracts also accept their reset control.
    """
    observed = set(observed_names)
    declared = {param.name for param in contract.params}
    reset = contract.reset_control if isinstance(contract, TemporalModuleContract) else None
    accepted = declared | ({reset} if reset is not None else set())
    missing = sorted(declared - observed)
    undeclared = sorted(observed - accepted)
    if missing or undeclared:
        _reject(
            "a call must pass exactly the keyword parameters its contract declares",
            f"observed={sorted(observed)!r}, declared={sorted(declared)!r}, "
            f"reset control={reset!r}, missing={missing!r}, undeclared={undeclared!r}",
            "pass every declared GPU array parameter once by keyword"
            + (" and, optionally, reset=" if reset is not None else "")
            + "; remove the others",
        )


def _shape_point(value: object, name: str) -> tuple[int, int]:
    hw = _hw(value, name)
    if hw is None:
        _reject(
            "ShapeProfile points must be (height, width) tuples of two integers",
            f"observed {name}={value!r}",
            "pass min_hw, opt_hw and max_hw as (height, width) with 1 <= min <= opt <= max",
        )
    return hw


@dataclass(frozen=True)
class ShapeProfile:
    """The (height, width) range an engine accepts: 1 <= min <= opt <= max on each axis."""

    min_hw: tuple[int, int]
    opt_hw: tuple[int, int]
    max_hw: tuple[int, int]

    def __post_init__(self) -> None:
        low = _shape_point(self.min_hw, "min_hw")
        opt = _shape_point(self.opt_hw, "opt_hw")
        high = _shape_point(self.max_hw, "max_hw")
        bad = [
            axis for axis, a, b, c in zip("HW", low, opt, high, strict=True) if not 1 <= a <= b <= c
        ]
        if bad:
            _reject(
                "each ShapeProfile axis must satisfy 1 <= min <= opt <= max",
                f"observed min_hw={low!r}, opt_hw={opt!r}, max_hw={high!r}; invalid axes={bad!r}",
                "order the bounds of the listed axes from min to opt to max",
            )

    def contains(self, hw: tuple[int, int]) -> bool:
        """Whether ``hw`` lies within [min_hw, max_hw] on both axes."""
        return all(
            low <= value <= high
            for low, value, high in zip(self.min_hw, hw, self.max_hw, strict=True)
        )
