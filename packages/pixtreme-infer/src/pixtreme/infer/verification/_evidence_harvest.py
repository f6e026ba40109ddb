"""The harvesters: open instances from an EvidenceSubject's factory, call them, record facts.

Each harvester derives its calls from the factory protocols and the contract query_contract
returns, runs them inside the subject's environment (a CUDA stream by default) and returns the
published fact records. Outputs are kept as the subject's ``capture`` makes them; instances
are named by tokens, never kept alive by the facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pixtreme.infer.contracts import ShapeProfile
from pixtreme.infer.errors import EvidenceUnavailable
from pixtreme.infer.verification._evidence_inputs import (
    FrameCase,
    FrameRequest,
    ReferenceRequest,
    array_facts,
    default_frame_cases,
    device_pointer,
    reference_request,
    unconstrained_variation,
    varied,
)
from pixtreme.infer.verification._evidence_subject import EvidenceSubject, SettingCase
from pixtreme.infer.verification.contracts import (
    AllocationFacts,
    ClosedInferenceFacts,
    FrameBoundaryFacts,
    IsolationFacts,
    OpenedContractFacts,
    QueryAllocationFacts,
    RejectionFacts,
    SequenceFacts,
    StateLifecycleFacts,
    VerificationInputError,
)


@dataclass(frozen=True)
class _Step:
    seed: int
    reset: bool = False
    overrides: Mapping[str, object] = field(default_factory=dict)


def _detached(error: Exception) -> Exception:
    """The error without its traceback, so the facts keep no instance or buffer alive."""
    return error.with_traceback(None)


def instance_token(instance: object) -> str:
    """A name for an instance that is distinct from every other live instance's."""
    kind = type(instance)
    return f"{kind.__module__}.{kind.__qualname__}@{id(instance):#x}"


class _Harvest:
    """The subject's open contract and the request plumbing every harvester shares."""

    def __init__(self, subject: EvidenceSubject) -> None:
        self.subject = subject
        self.contract = subject.query()
        self.family = self.contract.family_contract
        self.startup = int(getattr(self.family, "startup_frames", 0))

    def request(
        self,
        seed: int,
        overrides: Mapping[str, object] | None = None,
        hw: tuple[int, int] | None = None,
    ) -> FrameRequest:
        base = reference_request(self.family.input_frame, hw or self.subject.input_hw, seed)
        return varied(base, overrides or {})

    def inputs(self, request: FrameRequest) -> tuple[object, dict[str, object]]:
        frames = self.subject.frames
        return frames.frame(request), frames.params(request, self.family.params)

    def call(self, instance: Any, frame: object, params: Mapping[str, object], reset: bool) -> Any:
        if self.subject.temporal:
            return instance(frame, reset=reset, **params)
        return instance(frame, **params)

    def run(
        self, instance: object, steps: Sequence[_Step], *, keep_requests: bool = False
    ) -> tuple[list[object], list[ReferenceRequest]]:
        capture = self.subject.capture
        outputs: list[object] = []
        requests: list[ReferenceRequest] = []
        for step in steps:
            frame, params = self.inputs(self.request(step.seed, step.overrides))
            outputs.append(capture(self.call(instance, frame, params, step.reset)))
            if keep_requests:
                requests.append(ReferenceRequest(capture(frame), params, step.reset))
        return outputs, requests

    def alone(self, steps: Sequence[_Step]) -> list[object]:
        instance = self.subject.open()
        try:
            return self.run(instance, steps)[0]
        finally:
            instance.close()


def frame_boundary_facts(subject: EvidenceSubject) -> tuple[FrameBoundaryFacts, ...]:
    """Call one opened instance with every Frame case (``subject.frame_cases`` or the cases
    derived from the input FrameContract) and record output, error and backend start."""
    harvest = _Harvest(subject)
    hw = subject.input_hw
    cases = subject.frame_cases
    if cases is None:
        cases = default_frame_cases(harvest.family.input_frame, hw)
    profile = ShapeProfile(hw, hw, hw)  # an opened instance serves exactly its input_hw
    with subject.environment():
        instance = subject.open()
        try:
            return tuple(
                _boundary(harvest, instance, case, 100 + index, profile)
                for index, case in enumerate(cases)
            )
        finally:
            instance.close()


def _boundary(
    harvest: _Harvest, instance: object, case: FrameCase, seed: int, profile: ShapeProfile
) -> FrameBoundaryFacts:
    subject = harvest.subject
    request = harvest.request(seed, case.overrides, case.hw)
    if case.params is None:
        frame, params = harvest.inputs(request)
    else:
        frame, params = subject.frames.frame(request), dict(case.params)
    before = subject.backend_launches(instance)
    output: Any = None
    error: BaseException | None = None
    try:
        output = harvest.call(instance, frame, params, reset=False)
    except Exception as caught:
        error = _detached(caught)
    started = subject.backend_launches(instance) > before
    bindings = {**subject.bindings, "H": request.hw[0], "W": request.hw[1]}
    observed = tuple(array_facts(name, value) for name, value in params.items())
    return FrameBoundaryFacts(
        case.name, case.expected, frame, profile, bindings, observed, output, error, started
    )


def dlpack_facts(subject: EvidenceSubject) -> tuple[AllocationFacts, ...]:
    """Hand every accepted Frame case to ``subject.dlpack_import`` and record both pointers
    and the allocations made during the import."""
    if subject.dlpack_import is None:
        raise EvidenceUnavailable(
            why="DLPack zero copy is judged on the module's own import of a Frame",
            what=f"{subject.name} supplies no dlpack_import",
            how="pass EvidenceSubject(dlpack_import=...) with the function the module uses",
        )
    harvest = _Harvest(subject)
    cases = subject.frame_cases
    if cases is None:
        cases = default_frame_cases(harvest.family.input_frame, subject.input_hw)
    facts = []
    with subject.environment(), subject.resources() as probe:
        for index, case in enumerate(cases):
            if case.expected != "accept":
                continue
            frame = subject.frames.frame(harvest.request(150 + index, case.overrides, case.hw))
            mark = len(probe.allocations())
            imported = subject.dlpack_import(frame)
            made = probe.allocations()[mark:]
            facts.append(
                AllocationFacts(case.name, device_pointer(frame), device_pointer(imported), made)
            )
    return tuple(facts)


def query_allocation_facts(subject: EvidenceSubject) -> tuple[QueryAllocationFacts, ...]:
    """GPU resources around ``family_contract`` and ``query_contract``, with every allocation
    made meanwhile."""
    facts = []
    with subject.environment(), subject.resources() as probe:
        for label, action in (
            ("family-contract", lambda: subject.factory.family_contract),
            ("query-contract", subject.query),
        ):
            before = probe.snapshot()
            mark = len(probe.allocations())
            action()
            after = probe.snapshot()
            facts.append(QueryAllocationFacts(label, before, after, probe.allocations()[mark:]))
    return tuple(facts)


def opened_contract_facts(subject: EvidenceSubject) -> tuple[OpenedContractFacts, ...]:
    """The queried contract and the contract of an instance opened with the same settings."""
    queried = subject.query()
    with subject.environment():
        instance = subject.open()
        try:
            opened = instance.contract
        finally:
            instance.close()
    return (OpenedContractFacts("open", queried, opened),)


def closed_inference_facts(subject: EvidenceSubject) -> tuple[ClosedInferenceFacts, ...]:
    """A valid call after one close() and after a second close() (close is idempotent)."""
    harvest = _Harvest(subject)
    facts = []
    with subject.environment():
        for label, closes in (("call-after-close", 1), ("call-after-second-close", 2)):
            instance = subject.open()
            frame, params = harvest.inputs(harvest.request(200 + closes))
            for _ in range(closes):
                instance.close()
            before = subject.backend_launches(instance)
            error: BaseException | None = None
            try:
                harvest.call(instance, frame, params, reset=False)
            except Exception as caught:
                error = _detached(caught)
            facts.append(
                ClosedInferenceFacts(label, error, subject.backend_launches(instance) > before)
            )
    return tuple(facts)


def setting_rejection_facts(
    subject: EvidenceSubject, cases: Sequence[SettingCase]
) -> tuple[RejectionFacts, ...]:
    """Ask query_contract and then open for every case; both must reject before any backend.

    Needs no GPU while the factory rejects the settings before building a backend. The facts
    record no fallback events: a harvester cannot observe one.
    """
    facts = []
    for case in cases:
        for step in ("query", "open"):
            method = subject.factory.query_contract if step == "query" else subject.factory.open
            error: BaseException | None = None
            try:
                result = method(
                    case.artifact_identity,
                    precision=case.precision,  # type: ignore[arg-type]
                    input_hw=case.input_hw,  # type: ignore[arg-type]
                )
            except Exception as caught:
                error = _detached(caught)
            else:
                close = getattr(result, "close", None)
                if step == "open" and callable(close):
                    close()
            accepted = error is None
            facts.append(
                RejectionFacts(
                    f"{case.name}/{step}",
                    error,
                    accepted,
                    accepted and step == "open",
                    (),
                    case.observed,
                    case.expected,
                )
            )
    return tuple(facts)


def reset_equivalence_facts(subject: EvidenceSubject) -> SequenceFacts:
    """An instance with history, reset at the first of ``startup_frames + 2`` Frames, against
    a fresh instance given the same Frames."""
    harvest = _Harvest(subject)
    count = harvest.startup + 2
    prefix = [_Step(300 + index) for index in range(count)]
    tail = [_Step(320 + index, reset=index == 0) for index in range(count)]
    fresh_tail = [_Step(320 + index) for index in range(count)]
    with subject.environment():
        used, fresh = subject.open(), subject.open()
        try:
            harvest.run(used, prefix)
            candidate = harvest.run(used, tail)[0]
            reference = harvest.run(fresh, fresh_tail)[0]
            tokens = instance_token(fresh), instance_token(used)
        finally:
            used.close()
            fresh.close()
    return SequenceFacts(*tokens, tuple(reference), tuple(candidate))


def reference_facts(subject: EvidenceSubject) -> SequenceFacts:
    """One instance over ``2 * (startup_frames + 2)`` Frames (temporal: reset halfway)
    against ``subject.reference`` for the same requests (the reset-continuation evidence)."""
    reference = subject.reference
    if reference is None:
        raise EvidenceUnavailable(
            why="this evidence compares outputs with the architecture's reference",
            what=f"{subject.name} supplies no reference",
            how="pass EvidenceSubject(reference=...) computing the expected outputs",
        )
    harvest = _Harvest(subject)
    count = 2 * (harvest.startup + 2)
    steps = [
        _Step(340 + index, reset=subject.temporal and index == count // 2) for index in range(count)
    ]
    with subject.environment():
        instance = subject.open()
        try:
            outputs, requests = harvest.run(instance, steps, keep_requests=True)
            token = instance_token(instance)
        finally:
            instance.close()
    expected = tuple(reference(requests))
    if len(expected) != len(outputs):
        raise VerificationInputError(
            why="a reference gives one expected output per request",
            what=f"{len(expected)} expected outputs for {len(outputs)} requests",
            how="return one output for each ReferenceRequest, in order",
        )
    return SequenceFacts(f"reference:{subject.name}", token, expected, tuple(outputs))


def instance_isolation_facts(subject: EvidenceSubject) -> IsolationFacts:
    """Two instances called in turn (one of them reset halfway) against the same two request
    sequences, each run alone on a fresh instance."""
    harvest = _Harvest(subject)
    count = harvest.startup + 3
    steps_a = [_Step(400 + index, reset=index == count // 2) for index in range(count)]
    steps_b = [_Step(420 + index) for index in range(count)]
    with subject.environment():
        first, second = subject.open(), subject.open()
        observed_a: list[object] = []
        observed_b: list[object] = []
        try:
            for step_a, step_b in zip(steps_a, steps_b, strict=True):
                observed_a.extend(harvest.run(first, [step_a])[0])
                observed_b.extend(harvest.run(second, [step_b])[0])
            tokens = instance_token(first), instance_token(second)
        finally:
            first.close()
            second.close()
        reference_a = harvest.alone(steps_a)
        reference_b = harvest.alone(steps_b)
    return IsolationFacts(
        *tokens,
        tuple(reference_a),
        tuple(observed_a),
        tuple(reference_b),
        tuple(observed_b),
    )


def state_lifecycle_facts(subject: EvidenceSubject) -> StateLifecycleFacts:
    """Resource snapshots before open, after open, after three calls, after a reset call and
    after close (inputs are made first; outputs are dropped at once)."""
    harvest = _Harvest(subject)
    with subject.environment():
        inputs = [harvest.inputs(harvest.request(460 + index)) for index in range(4)]
        with subject.resources() as probe:
            before = probe.snapshot()
            instance = subject.open()
            token = instance_token(instance)
            after_open = probe.snapshot()
            for frame, params in inputs[:3]:
                harvest.call(instance, frame, params, reset=False)
            after_run = probe.snapshot()
            harvest.call(instance, *inputs[3], reset=True)
            after_reset = probe.snapshot()
            instance.close()
            del instance
            after_close = probe.snapshot()
    return StateLifecycleFacts(token, before, after_open, after_run, after_reset, after_close)


def graph_replay_facts(subject: EvidenceSubject) -> tuple[SequenceFacts, ...]:
    """A normal and a graph instance (``factory.graph_factory()``) given the same requests:
    first call, continuation, changed values and metadata, and (temporal) resets."""
    graphs = subject.on_graphs()
    harvest = _Harvest(subject)
    change = unconstrained_variation(harvest.family.input_frame)
    steps = [_Step(500), _Step(501), _Step(502, overrides=change), _Step(502, overrides=change)]
    if subject.temporal:
        steps += [_Step(503, reset=True)]
        steps += [_Step(504 + index) for index in range(harvest.startup + 1)]
        steps += [_Step(510, reset=True, overrides=change), _Step(511)]
    reference: list[object] = []
    candidate: list[object] = []
    with subject.environment():
        normal, graph = subject.open(), graphs.open()
        try:
            for step in steps:
                frame, params = harvest.inputs(harvest.request(step.seed, step.overrides))
                for instance, outputs in ((normal, reference), (graph, candidate)):
                    result = harvest.call(instance, frame, params, step.reset)
                    outputs.append(subject.capture(result))
            tokens = instance_token(normal), instance_token(graph)
        finally:
            normal.close()
            graph.close()
    return (SequenceFacts(*tokens, tuple(reference), tuple(candidate)),)
