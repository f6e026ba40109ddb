"""Fact records: the evidence a module's own fixtures measure and hand to the core checks.

The core needs no GPU: modules produce these records (on a GPU where needed) through callables,
and the checks in verify_module_contract only judge them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from pixtreme.infer import _validate as v
from pixtreme.infer._contract_values import FrameContract, FrameMetadata, StateFootprint
from pixtreme.infer._module_contracts import StatelessModuleContract

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_MESSAGE_SHAPE = re.compile(r"why=.+; what=.+; how=.+", re.DOTALL)


def has_error_shape(message: str) -> bool:
    """Whether ``message`` has the shared "why=...; what=...; how=..." shape."""
    return bool(_MESSAGE_SHAPE.search(message))


def _non_negative(owner: str, field: str, value: object) -> int:
    return v.positive_int(owner, field, value, minimum=0)


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameBoundaryFacts:
    """An output Frame's observed metadata and size against the declared output contract."""

    contract: FrameContract
    observed: FrameMetadata
    observed_hw: tuple[int, int]
    expected_hw: tuple[int, int]

    def __post_init__(self) -> None:
        owner = "FrameBoundaryFacts"
        v.instance_of(owner, "contract", self.contract, FrameContract)
        v.instance_of(owner, "observed", self.observed, FrameMetadata)
        v.hw_pair(owner, "observed_hw", self.observed_hw)
        v.hw_pair(owner, "expected_hw", self.expected_hw)


@dataclass(frozen=True, slots=True, kw_only=True)
class DlpackAllocationFacts:
    """Device pointers of the caller's Frame data and of the array the module imported."""

    source_pointer: int
    imported_pointer: int

    def __post_init__(self) -> None:
        _non_negative("DlpackAllocationFacts", "source_pointer", self.source_pointer)
        _non_negative("DlpackAllocationFacts", "imported_pointer", self.imported_pointer)


@dataclass(frozen=True, slots=True, kw_only=True)
class RejectionCase:
    """One bad request and how the module reacted: the error type name, or None if accepted."""

    label: str
    error_type: str | None
    message: str = ""

    def __post_init__(self) -> None:
        v.non_empty_str("RejectionCase", "label", self.label)
        if self.error_type is not None:
            v.identifier("RejectionCase", "error_type", self.error_type)
        v.text("RejectionCase", "message", self.message)

    @classmethod
    def from_call(cls, label: str, call: Callable[[], object]) -> RejectionCase:
        """Run ``call`` and record whether (and how) it raised."""
        try:
            call()
        except Exception as error:
            return cls(label=label, error_type=type(error).__name__, message=str(error))
        return cls(label=label, error_type=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class RejectionFacts:
    """Bad inputs (engines, checkpoints, selectors) and whether each was rejected."""

    cases: tuple[RejectionCase, ...]

    def __post_init__(self) -> None:
        cases = self.cases
        if (
            not isinstance(cases, tuple)
            or not cases
            or not all(isinstance(case, RejectionCase) for case in cases)
        ):
            v.fail(
                "RejectionFacts",
                "cases",
                self.cases,
                expected="a non-empty tuple of RejectionCase",
                how="record each bad input with RejectionCase.from_call(label, call)",
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineBindingFacts:
    """The input and output binding names a loaded engine exposes, in engine order."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]

    def __post_init__(self) -> None:
        for field in ("inputs", "outputs"):
            value = getattr(self, field)
            if not isinstance(value, tuple) or not all(
                isinstance(name, str) and name for name in value
            ):
                v.fail(
                    "EngineBindingFacts",
                    field,
                    value,
                    expected="a tuple of non-empty binding names",
                    how="read the names from the engine's I/O tensors",
                )


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineRoundTripFacts:
    """An engine serialized in one process and loaded in another, by sha256 and process id.

    ``bindings`` (optional) are the loaded engine's binding names; they must be exactly
    ``input`` and ``output``.
    """

    serialized_sha256: str
    loaded_sha256: str
    serialize_pid: int
    load_pid: int
    bindings: EngineBindingFacts | None = None

    def __post_init__(self) -> None:
        owner = "EngineRoundTripFacts"
        for field in ("serialized_sha256", "loaded_sha256"):
            value = getattr(self, field)
            if not isinstance(value, str) or not _SHA256.match(value):
                v.fail(
                    owner,
                    field,
                    value,
                    expected="64 lower-case hex digits",
                    how="pass hashlib.sha256(data).hexdigest()",
                )
        v.positive_int(owner, "serialize_pid", self.serialize_pid)
        v.positive_int(owner, "load_pid", self.load_pid)
        if self.bindings is not None:
            v.instance_of(owner, "bindings", self.bindings, EngineBindingFacts)


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryAllocationFacts:
    """GPU memory in use (bytes) before and after factory.query_contract."""

    bytes_before: int
    bytes_after: int

    def __post_init__(self) -> None:
        _non_negative("QueryAllocationFacts", "bytes_before", self.bytes_before)
        _non_negative("QueryAllocationFacts", "bytes_after", self.bytes_after)


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenedContractFacts:
    """The contract factory.query_contract returned and the opened instance's contract."""

    queried: StatelessModuleContract
    opened: object

    def __post_init__(self) -> None:
        owner = "OpenedContractFacts"
        v.instance_of(owner, "queried", self.queried, StatelessModuleContract)
        if self.opened is None:
            v.fail(
                owner,
                "opened",
                self.opened,
                expected="the opened instance's contract (not None)",
                how="pass opened=instance.contract",
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class ClosedInferenceFacts:
    """After close(): a second close() (None if it returned) and a call that must be rejected."""

    second_close_error: str | None
    call_after_close: RejectionCase

    def __post_init__(self) -> None:
        owner = "ClosedInferenceFacts"
        v.text(owner, "second_close_error", self.second_close_error, optional=True)
        v.instance_of(owner, "call_after_close", self.call_after_close, RejectionCase)


@dataclass(frozen=True, slots=True, kw_only=True)
class SequenceStep:
    """One compared call of two sequences: largest absolute output difference and its bound."""

    label: str
    max_abs_difference: float
    tolerance: float = 0.0

    def __post_init__(self) -> None:
        owner = "SequenceStep"
        v.non_empty_str(owner, "label", self.label)
        for field in ("max_abs_difference", "tolerance"):
            value = getattr(self, field)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or math.isnan(value)
                or value < 0
            ):
                v.fail(
                    owner,
                    field,
                    value,
                    expected="a non-negative number (inf for non-finite outputs)",
                    how="pass float(abs(a - b).max()) and an explicit tolerance",
                )


@dataclass(frozen=True, slots=True, kw_only=True)
class SequenceFacts:
    """Two call sequences compared step by step (reset, continuation or graph replay)."""

    steps: tuple[SequenceStep, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.steps, tuple) or not all(
            isinstance(step, SequenceStep) for step in self.steps
        ):
            v.fail(
                "SequenceFacts",
                "steps",
                self.steps,
                expected="a tuple of SequenceStep",
                how="record each compared call as SequenceStep(label=..., max_abs_difference=...)",
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class IsolationFacts:
    """Interleaved instances compared with separately run ones."""

    instances: int
    sequence: SequenceFacts

    def __post_init__(self) -> None:
        v.positive_int("IsolationFacts", "instances", self.instances)
        v.instance_of("IsolationFacts", "sequence", self.sequence, SequenceFacts)


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceSnapshot:
    """GPU memory in use (bytes) at one labelled moment."""

    label: str
    gpu_bytes: int

    def __post_init__(self) -> None:
        v.non_empty_str("ResourceSnapshot", "label", self.label)
        _non_negative("ResourceSnapshot", "gpu_bytes", self.gpu_bytes)


@dataclass(frozen=True, slots=True, kw_only=True)
class StateLifecycleFacts:
    """Memory over a temporal instance's life, against its declared persistent footprint."""

    declared: StateFootprint
    before_open: ResourceSnapshot
    after_open: ResourceSnapshot
    after_calls: ResourceSnapshot
    after_reset: ResourceSnapshot
    after_close: ResourceSnapshot

    def __post_init__(self) -> None:
        owner = "StateLifecycleFacts"
        v.instance_of(owner, "declared", self.declared, StateFootprint)
        for field in ("before_open", "after_open", "after_calls", "after_reset", "after_close"):
            v.instance_of(owner, field, getattr(self, field), ResourceSnapshot)
