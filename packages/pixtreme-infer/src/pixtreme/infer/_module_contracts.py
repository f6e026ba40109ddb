"""Module, family and open contracts for stateless and temporal inference, and call checks."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import ClassVar, Literal

from pixtreme.infer import _validate as v
from pixtreme.infer._contract_values import (
    PRECISIONS,
    FrameContract,
    GpuArrayParamContract,
    Precision,
    ShapeProfile,
    StateFootprint,
)
from pixtreme.infer.errors import ContractError

RESET_CONTROL: Literal["reset"] = "reset"


def _check_params(owner: str, params: object) -> None:
    if not isinstance(params, tuple) or not all(
        isinstance(item, GpuArrayParamContract) for item in params
    ):
        v.fail(
            owner,
            "params",
            params,
            expected="a tuple of GpuArrayParamContract",
            how="pass params=(GpuArrayParamContract(name=..., shape=..., dtype=..., unit=...),)",
        )
    names = [item.name for item in params]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        v.fail(
            owner,
            "params",
            names,
            expected="uniquely named",
            how=f"rename or drop the duplicated parameter(s) {duplicates}",
        )


def _check_frames(owner: str, input_frame: object, output_frame: object) -> None:
    v.instance_of(owner, "input_frame", input_frame, FrameContract)
    v.instance_of(owner, "output_frame", output_frame, FrameContract)


@dataclass(frozen=True, slots=True, kw_only=True)
class StatelessModuleContract:
    """What one opened stateless instance accepts and returns for each call."""

    input_frame: FrameContract
    output_frame: FrameContract
    input_hw: tuple[int, int]
    spatial_scale: int = 1
    params: tuple[GpuArrayParamContract, ...] = ()

    def __post_init__(self) -> None:
        owner = type(self).__name__
        _check_frames(owner, self.input_frame, self.output_frame)
        v.hw_pair(owner, "input_hw", self.input_hw)
        v.positive_int(owner, "spatial_scale", self.spatial_scale)
        _check_params(owner, self.params)

    @property
    def output_hw(self) -> tuple[int, int]:
        """Output (height, width): input_hw times spatial_scale."""
        return (self.input_hw[0] * self.spatial_scale, self.input_hw[1] * self.spatial_scale)

    @property
    def call_keywords(self) -> frozenset[str]:
        """Keyword names one call must pass (its GPU array parameters)."""
        return frozenset(item.name for item in self.params)


@dataclass(frozen=True, slots=True, kw_only=True)
class TemporalModuleContract(StatelessModuleContract):
    """A stateful module's contract: startup frames, persistent state and a reset control."""

    startup_frames: int
    state_footprint: StateFootprint
    reset_control: Literal["reset"] = "reset"

    def __post_init__(self) -> None:
        StatelessModuleContract.__post_init__(self)
        owner = type(self).__name__
        v.positive_int(owner, "startup_frames", self.startup_frames, minimum=0)
        v.instance_of(owner, "state_footprint", self.state_footprint, StateFootprint)
        v.one_of(owner, "reset_control", self.reset_control, (RESET_CONTROL,))


@dataclass(frozen=True, slots=True, kw_only=True)
class StatelessFamilyContract:
    """What a factory offers before any artifact or device is chosen."""

    architecture: str
    input_frame: FrameContract
    output_frame: FrameContract
    shape_profile: ShapeProfile
    precisions: tuple[Precision, ...]
    spatial_scale: int = 1
    params: tuple[GpuArrayParamContract, ...] = ()

    def __post_init__(self) -> None:
        owner = type(self).__name__
        v.non_empty_str(owner, "architecture", self.architecture)
        _check_frames(owner, self.input_frame, self.output_frame)
        v.instance_of(owner, "shape_profile", self.shape_profile, ShapeProfile)
        if not isinstance(self.precisions, tuple) or not self.precisions:
            v.fail(
                owner,
                "precisions",
                self.precisions,
                expected="a non-empty tuple of precisions",
                how=f"pass precisions=('fp32',) or a subset of {PRECISIONS}",
            )
        for precision in self.precisions:
            v.one_of(owner, "precisions", precision, PRECISIONS)
        v.positive_int(owner, "spatial_scale", self.spatial_scale)
        _check_params(owner, self.params)


@dataclass(frozen=True, slots=True, kw_only=True)
class TemporalFamilyContract(StatelessFamilyContract):
    """A temporal family: also declares startup frames and persistent state bytes per pixel."""

    startup_frames: int
    state_footprint_per_pixel: int

    def __post_init__(self) -> None:
        StatelessFamilyContract.__post_init__(self)
        owner = type(self).__name__
        v.positive_int(owner, "startup_frames", self.startup_frames, minimum=0)
        v.positive_int(owner, "state_footprint_per_pixel", self.state_footprint_per_pixel)


@dataclass(frozen=True, slots=True, kw_only=True)
class StatelessOpenContract[A: Hashable]:
    """A concrete choice within a family: artifact identity, precision and input size."""

    family: StatelessFamilyContract
    artifact: A
    precision: Precision
    input_hw: tuple[int, int]
    _FAMILY: ClassVar[type[StatelessFamilyContract]] = StatelessFamilyContract

    def __post_init__(self) -> None:
        owner = type(self).__name__
        v.instance_of(owner, "family", self.family, self._FAMILY)
        if self.artifact is None or not isinstance(self.artifact, Hashable):
            v.fail(
                owner,
                "artifact",
                self.artifact,
                expected="a hashable artifact identity (not None)",
                how="pass the identity the factory uses for its artifact, such as a RecipeIdentity",
            )
        v.one_of(owner, "precision", self.precision, self.family.precisions)
        hw = v.hw_pair(owner, "input_hw", self.input_hw)
        if not self.family.shape_profile.contains(hw):
            profile = self.family.shape_profile
            raise ContractError(
                why=f"{owner}.input_hw must lie within the family's shape profile",
                what=f"received input_hw={hw}; profile min_hw={profile.min_hw}, "
                f"max_hw={profile.max_hw}",
                how="choose an input size inside the profile, or use an artifact built for it",
            )

    @property
    def module_contract(self) -> StatelessModuleContract:
        """The per-call contract an instance opened with these settings has."""
        return StatelessModuleContract(
            input_frame=self.family.input_frame,
            output_frame=self.family.output_frame,
            input_hw=self.input_hw,
            spatial_scale=self.family.spatial_scale,
            params=self.family.params,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class TemporalOpenContract[A: Hashable](StatelessOpenContract[A]):
    """An open choice for a temporal family; derives a TemporalModuleContract."""

    family: TemporalFamilyContract
    _FAMILY: ClassVar[type[StatelessFamilyContract]] = TemporalFamilyContract

    @property
    def module_contract(self) -> TemporalModuleContract:
        """The per-call contract, with the state footprint for this input size."""
        height, width = self.input_hw
        return TemporalModuleContract(
            input_frame=self.family.input_frame,
            output_frame=self.family.output_frame,
            input_hw=self.input_hw,
            spatial_scale=self.family.spatial_scale,
            params=self.family.params,
            startup_frames=self.family.startup_frames,
            state_footprint=StateFootprint(
                amount=height * width * self.family.state_footprint_per_pixel
            ),
        )


def validate_call_params(
    contract: StatelessModuleContract, observed_names: Iterable[str]
) -> frozenset[str]:
    """Reject missing or undeclared call keywords before any Frame or backend access.

    Temporal contracts also accept their reset control. Returns the observed names.
    """
    observed = frozenset(observed_names)
    declared = contract.call_keywords
    allowed = declared | (
        {contract.reset_control} if isinstance(contract, TemporalModuleContract) else set()
    )
    missing = sorted(declared - observed)
    undeclared = sorted(observed - allowed)
    if missing or undeclared:
        raise ContractError(
            why="a call must pass exactly the keyword parameters its contract declares",
            what=f"missing={missing}, undeclared={undeclared}, declared={sorted(declared)}",
            how="pass every declared parameter by keyword and remove the others"
            + (" (temporal modules also accept reset=)" if declared != allowed else ""),
        )
    return observed
