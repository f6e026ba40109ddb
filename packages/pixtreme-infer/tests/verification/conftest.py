"""Builders shared by the verification tests: contracts, stand-in Frames and passing facts.

Facts are plain values, so no GPU is needed: a Frame is built with ``Frame.model_construct``
around a small stand-in array that has the attributes the judges read (shape, dtype, device).
Every builder returns evidence that passes its check; tests replace one field to plant a defect.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pixtreme.core import Frame
from pixtreme.infer import (
    FrameContract,
    GpuArrayParamContract,
    ShapeProfile,
    StateFootprint,
    StatelessFamilyContract,
    StatelessModuleContract,
    StatelessOpenContract,
    TemporalModuleContract,
)
from pixtreme.infer.verification.contracts import (
    AllocationFacts,
    ClosedInferenceFacts,
    CommonContractCases,
    EngineBindingFacts,
    EngineRoundTripFacts,
    FactoryContractCases,
    FrameBoundaryFacts,
    GpuArrayFacts,
    IsolationFacts,
    OpenedContractFacts,
    QueryAllocationFacts,
    RejectionFacts,
    ResourceSnapshot,
    SequenceFacts,
    StatelessContractSuite,
    StateLifecycleFacts,
    TemporalContractSuite,
)

from ..conftest import make_rgb_contract

#: Every check verify_module_contract reports, in the published order.
MODULE_CHECK_ORDER = [
    "frame-boundary",
    "dlpack-allocation",
    "engine-round-trip",
    "engine-incompatibility",
    "checkpoint-selector-rejection",
    "query-gpu-allocation",
    "opened-contract",
    "closed-inference",
    "reset-equivalence",
    "reset-continuation",
    "instance-isolation",
    "state-footprint",
]


@dataclasses.dataclass(frozen=True)
class Device:
    """A CUDA device as CuPy describes it: ``id`` is its index."""

    id: int


@dataclasses.dataclass(frozen=True)
class StandInArray:
    """What the judges read from ``Frame.data``: shape, dtype and device."""

    shape: tuple[int, int, int]
    dtype: np.dtype[Any]
    device: object


def equal(left: object, right: object) -> bool:
    """The outputs_equivalent comparator of the builders: plain equality."""
    return left == right


def same_amount(observed: ResourceSnapshot, expected: ResourceSnapshot) -> bool:
    """The resources_equivalent comparator of the builders: amounts and units only."""
    return (observed.amount, observed.unit) == (expected.amount, expected.unit)


class Builders:
    """Passing evidence for every check; keyword arguments replace single fields."""

    SHA = "ab" * 32
    BYTES = 4608

    def device(self, index: int) -> Device:
        return Device(index)

    def rgb(self, **overrides: object) -> FrameContract:
        return make_rgb_contract(**overrides)

    def strength(self) -> GpuArrayParamContract:
        return GpuArrayParamContract("strength", ("H", "W"), "float32", "1")

    def stateless(self, **overrides: Any) -> StatelessModuleContract:
        fields: dict[str, Any] = {
            "input_frame": self.rgb(),
            "output_frame": self.rgb(),
            "params": (self.strength(),),
            "scale": 2,
        }
        fields.update(overrides)
        return StatelessModuleContract(**fields)

    def temporal(self, **overrides: Any) -> TemporalModuleContract[object]:
        fields: dict[str, Any] = {
            "input_frame": self.rgb(),
            "output_frame": self.rgb(),
            "params": (),
            "scale": 1,
            "startup_frames": 2,
            "state_footprint": StateFootprint(self.BYTES),
        }
        fields.update(overrides)
        return TemporalModuleContract(**fields)

    def profile(self) -> ShapeProfile:
        return ShapeProfile((16, 16), (32, 32), (64, 64))

    def open_contract(self, artifact: str = "weights-a") -> StatelessOpenContract[str]:
        family = StatelessFamilyContract(self.rgb(), self.rgb(), (self.strength(),))
        return StatelessOpenContract(family, artifact, "fp32", (32, 48), 2)

    def frame(
        self,
        height: int = 32,
        width: int = 48,
        *,
        channels: tuple[str, ...] = ("R", "G", "B"),
        components: int | None = None,
        dtype: str = "float32",
        device: object = Device(0),
        colorspace: str = "sRGB",
        gamma: str = "sRGB",
        matrix: str | None = None,
    ) -> Frame:
        count = len(channels) if components is None else components
        data = StandInArray((height, width, count), np.dtype(dtype), device)
        return Frame.model_construct(
            data=data, colorspace=colorspace, gamma=gamma, channels=channels, matrix=matrix
        )

    def param(self, height: int = 32, width: int = 48, **overrides: Any) -> GpuArrayFacts:
        fields: dict[str, Any] = {
            "name": "strength",
            "shape": (height, width),
            "dtype": "float32",
            "device": "cuda:0",
        }
        fields.update(overrides)
        return GpuArrayFacts(**fields)

    def accepted(self, **overrides: Any) -> FrameBoundaryFacts:
        """An accepted call on the stateless contract (scale 2)."""
        fields: dict[str, Any] = {
            "name": "accept",
            "expected": "accept",
            "input_frame": self.frame(),
            "input_profile": self.profile(),
            "dimension_bindings": {"H": 32, "W": 48},
            "params": (self.param(),),
            "output_frame": self.frame(64, 96),
            "error": None,
            "backend_started": True,
        }
        fields.update(overrides)
        return FrameBoundaryFacts(**fields)

    def rejected(self, **overrides: Any) -> FrameBoundaryFacts:
        """A refused call: the input's colorspace breaks the Exact("sRGB") field."""
        fields: dict[str, Any] = {
            "name": "reject",
            "expected": "reject",
            "input_frame": self.frame(colorspace="Rec.709"),
            "input_profile": self.profile(),
            "dimension_bindings": {"H": 32, "W": 48},
            "params": (self.param(),),
            "output_frame": None,
            "error": ValueError("observed colorspace Rec.709, accepted sRGB"),
            "backend_started": False,
        }
        fields.update(overrides)
        return FrameBoundaryFacts(**fields)

    def allocation(self, **overrides: Any) -> AllocationFacts:
        fields: dict[str, Any] = {
            "name": "frame",
            "producer": ("cuda:0", 4096),
            "consumer": ("cuda:0", 4096),
            "conversion_allocations": (),
        }
        fields.update(overrides)
        return AllocationFacts(**fields)

    def binding(self, name: str = "input", **overrides: Any) -> EngineBindingFacts:
        fields: dict[str, Any] = {
            "name": name,
            "direction": "output" if name == "output" else "input",
            "dtype": "float32",
            "min_shape": (1, 3, 16, 16),
            "opt_shape": (1, 3, 32, 32),
            "max_shape": (1, 3, 64, 64),
        }
        fields.update(overrides)
        return EngineBindingFacts(**fields)

    def round_trip(self, **overrides: Any) -> EngineRoundTripFacts:
        bindings = (self.binding("input"), self.binding("output"))
        fields: dict[str, Any] = {
            "producer_execution": "pid-100",
            "consumer_execution": "pid-200",
            "serialized_sha256": self.SHA,
            "loaded_sha256": self.SHA,
            "expected_bindings": bindings,
            "loaded_bindings": bindings,
            "original_output": (1.0, 2.0),
            "loaded_output": (1.0, 2.0),
        }
        fields.update(overrides)
        return EngineRoundTripFacts(**fields)

    def rejection(self, **overrides: Any) -> RejectionFacts:
        fields: dict[str, Any] = {
            "name": "fp16-engine",
            "error": ValueError("engine precision fp16 does not match the requested fp32"),
            "instance_accepted": False,
            "backend_started": False,
            "fallback_events": (),
            "observed": "fp16",
            "expected": "fp32",
        }
        fields.update(overrides)
        return RejectionFacts(**fields)

    def snapshot(
        self, amount: int = 0, *allocations: object, unit: str = "bytes"
    ) -> ResourceSnapshot:
        return ResourceSnapshot(amount, unit, tuple(allocations))

    def query(self, **overrides: Any) -> QueryAllocationFacts:
        fields: dict[str, Any] = {
            "name": "query",
            "before_query": self.snapshot(100, "a"),
            "after_query": self.snapshot(100, "a"),
            "allocations_during_query": (),
        }
        fields.update(overrides)
        return QueryAllocationFacts(**fields)

    def opened(self, **overrides: Any) -> OpenedContractFacts:
        fields: dict[str, Any] = {
            "name": "fp32",
            "queried_contract": self.open_contract(),
            "opened_contract": self.open_contract(),
        }
        fields.update(overrides)
        return OpenedContractFacts(**fields)

    def closed(self, **overrides: Any) -> ClosedInferenceFacts:
        fields: dict[str, Any] = {
            "name": "after-close",
            "error": RuntimeError("the instance is closed"),
            "backend_started": False,
        }
        fields.update(overrides)
        return ClosedInferenceFacts(**fields)

    def factory(self, **overrides: Any) -> FactoryContractCases:
        fields: dict[str, Any] = {
            "query_allocations": lambda: (self.query(),),
            "opened_contracts": lambda: (self.opened(),),
            "closed_inference": lambda: (self.closed(),),
            "resources_equivalent": same_amount,
        }
        fields.update(overrides)
        return FactoryContractCases(**fields)

    def common(self, **overrides: Any) -> CommonContractCases:
        fields: dict[str, Any] = {
            "frame_boundaries": lambda: (self.accepted(), self.rejected()),
            "dlpack_allocations": lambda: (self.allocation(),),
            "engine_round_trip": self.round_trip,
            "engine_incompatibilities": lambda: (self.rejection(),),
            "checkpoint_rejections": lambda: (
                self.rejection(
                    name="params",
                    error=KeyError("container params is absent; available: params_ema"),
                    observed="params",
                    expected="params_ema",
                ),
            ),
            "outputs_equivalent": equal,
            "factory": self.factory(),
        }
        fields.update(overrides)
        return CommonContractCases(**fields)

    def temporal_common(self, **overrides: Any) -> CommonContractCases:
        """Common cases matching the temporal contract (no params, scale 1)."""
        fields: dict[str, Any] = {
            "frame_boundaries": lambda: (
                self.accepted(params=(), dimension_bindings={}, output_frame=self.frame()),
            ),
        }
        fields.update(overrides)
        return self.common(**fields)

    def stateless_suite(self, **common: Any) -> StatelessContractSuite:
        return StatelessContractSuite(self.stateless(), self.common(**common))

    def sequence(self, length: int = 3, **overrides: Any) -> SequenceFacts:
        outputs = tuple(range(length))
        fields: dict[str, Any] = {
            "reference_instance": "instance-1",
            "candidate_instance": "instance-2",
            "reference": outputs,
            "candidate": outputs,
        }
        fields.update(overrides)
        return SequenceFacts(**fields)

    def isolation(self, **overrides: Any) -> IsolationFacts:
        fields: dict[str, Any] = {
            "instance_a": "instance-a",
            "instance_b": "instance-b",
            "reference_a": (1, 2),
            "observed_a": (1, 2),
            "reference_b": (3, 4),
            "observed_b": (3, 4),
        }
        fields.update(overrides)
        return IsolationFacts(**fields)

    def lifecycle(self, **overrides: Any) -> StateLifecycleFacts:
        opened = self.snapshot(1000 + self.BYTES, "pool", "state")
        fields: dict[str, Any] = {
            "instance": "instance-1",
            "before_open": self.snapshot(1000, "pool"),
            "after_open": opened,
            "after_run": opened,
            "after_reset": opened,
            "after_close": self.snapshot(1000, "pool"),
        }
        fields.update(overrides)
        return StateLifecycleFacts(**fields)

    def footprint(self, footprint: object) -> ResourceSnapshot:
        assert isinstance(footprint, StateFootprint)
        return ResourceSnapshot(footprint.amount, footprint.unit, ())

    def temporal_suite(
        self, common: CommonContractCases | None = None, **overrides: Any
    ) -> TemporalContractSuite:
        fields: dict[str, Any] = {
            "contract": self.temporal(),
            "common": common or self.temporal_common(),
            "reset_equivalence": self.sequence,
            "reset_continuation": lambda: self.sequence(1),
            "instance_isolation": self.isolation,
            "state_lifecycle": self.lifecycle,
            "normalize_footprint": self.footprint,
            "resources_equivalent": same_amount,
        }
        fields.update(overrides)
        return TemporalContractSuite(**fields)


@pytest.fixture
def build() -> Builders:
    """Builders of passing verification evidence."""
    return Builders()


@pytest.fixture
def raises() -> Callable[[BaseException], Callable[[], Any]]:
    """A provider that raises the given exception when called."""

    def provider(error: BaseException) -> Callable[[], Any]:
        def call(*_: object) -> Any:
            raise error

        return call

    return provider
