"""EvidenceSubject: one factory and configuration, with everything the harvesters need of it.

An author describes the factory, the artifact identity and settings, and how to observe the
module (backend launches, GPU resources, outputs); the harvesters derive every call from the
factory protocols and the contracts it returns.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, NoReturn

from pixtreme.infer.contracts import (
    Precision,
    StatelessInferenceFactory,
    StatelessOpenContract,
    TemporalInferenceFactory,
    TemporalOpenContract,
)
from pixtreme.infer.errors import EvidenceUnavailable
from pixtreme.infer.verification._evidence_inputs import (
    CupyFrameSource,
    FrameCase,
    FrameSource,
    Reference,
    host_frame,
    outputs_within,
)
from pixtreme.infer.verification._evidence_probes import (
    CupyPoolProbe,
    ResourceProbe,
    cuda_stream,
    resources_within,
)
from pixtreme.infer.verification.contracts import (
    EngineRoundTripFacts,
    RejectionFacts,
    ResourceSnapshot,
    VerificationInputError,
)

Factory = StatelessInferenceFactory[Any] | TemporalInferenceFactory[Any]
OpenContract = StatelessOpenContract[Any] | TemporalOpenContract[Any]


@dataclass(frozen=True)
class EvidenceSubject:
    """One factory opened with one artifact identity and settings, and how to observe it.

    ``backend_launches(instance)`` counts the backend operations an instance has started (it
    must grow on every call that reaches the backend and never on a rejected one).
    ``resources`` makes a fresh ResourceProbe; ``frames`` makes the inputs; ``capture`` turns
    an output into the value ``outputs_equivalent`` compares; ``reference`` gives expected
    outputs for a request sequence; ``dlpack_import`` is the module's own import of a Frame's
    pixels; ``environment`` is entered around every GPU harvest (by default a fresh CUDA
    stream, raising EvidenceUnavailable without a GPU). ``frame_cases`` replaces the cases
    derived from the input FrameContract; ``bindings`` sizes parameter shape symbols other
    than ``H`` and ``W``.
    """

    name: str
    factory: Factory
    artifact_identity: object
    precision: Precision
    input_hw: tuple[int, int]
    backend_launches: Callable[[object], int]
    resources: Callable[[], ResourceProbe] = CupyPoolProbe
    frames: FrameSource = field(default_factory=CupyFrameSource)
    capture: Callable[[object], object] = host_frame
    outputs_equivalent: Callable[[object, object], bool] = field(default_factory=outputs_within)
    resources_equivalent: Callable[[ResourceSnapshot, ResourceSnapshot], bool] = field(
        default_factory=resources_within
    )
    reference: Reference | None = None
    dlpack_import: Callable[[object], object] | None = None
    frame_cases: tuple[FrameCase, ...] | None = None
    bindings: Mapping[str, int] = field(default_factory=dict)
    environment: Callable[[], AbstractContextManager[object]] = cuda_stream

    @property
    def temporal(self) -> bool:
        """Whether the factory's family is temporal."""
        return bool(self.factory.family_contract.temporal)

    def query(self) -> OpenContract:
        """``factory.query_contract`` with the subject's identity and settings."""
        contract: OpenContract = self.factory.query_contract(
            self.artifact_identity, precision=self.precision, input_hw=self.input_hw
        )
        return contract

    def open(self) -> Any:
        """``factory.open`` with the subject's identity and settings."""
        return self.factory.open(
            self.artifact_identity, precision=self.precision, input_hw=self.input_hw
        )

    def on_graphs(self) -> EvidenceSubject:
        """The same subject on ``factory.graph_factory()`` (a CudaGraphFactoryProvider)."""
        select = getattr(self.factory, "graph_factory", None)
        if not callable(select):
            raise VerificationInputError(
                why="CUDA Graph evidence needs a CudaGraphFactoryProvider",
                what=f"{type(self.factory).__name__} has no graph_factory()",
                how="implement graph_factory() returning the graph factory",
            )
        graphs: Factory = select()
        return dataclasses.replace(self, name=f"{self.name}/cuda-graph", factory=graphs)


@dataclass(frozen=True)
class SettingCase:
    """An artifact identity or setting that query_contract and open must both reject.

    ``observed`` and ``expected`` are what the error message must name (compared as str).
    """

    name: str
    artifact_identity: object
    precision: object
    input_hw: object
    observed: object
    expected: object


def unavailable(why: str, what: str, how: str) -> Callable[[], NoReturn]:
    """An evidence callable that raises EvidenceUnavailable (its check reports unverified)."""

    def provide() -> NoReturn:
        raise EvidenceUnavailable(why=why, what=what, how=how)

    return provide


def _not_supplied(label: str) -> Callable[[], NoReturn]:
    return unavailable(
        f"{label} is evidence only the architecture can gather",
        f"no {label} provider was supplied",
        f"pass ArtifactEvidence({label.replace(' ', '_')}=...) to the suite builder",
    )


@dataclass(frozen=True)
class ArtifactEvidence:
    """Evidence about engines and checkpoints, which only the architecture can gather.

    A provider left out reports its check unverified with the reason.
    """

    round_trip: Callable[[], EngineRoundTripFacts] = field(
        default_factory=lambda: _not_supplied("round trip")
    )
    incompatibilities: Callable[[], tuple[RejectionFacts, ...]] = field(
        default_factory=lambda: _not_supplied("incompatibilities")
    )
    checkpoint_rejections: Callable[[], tuple[RejectionFacts, ...]] = field(
        default_factory=lambda: _not_supplied("checkpoint rejections")
    )
