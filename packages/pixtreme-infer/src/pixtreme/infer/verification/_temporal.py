"""Temporal evidence (sequences, isolation, state lifecycle) and the checks that judge it.

Checks: ``reset-equivalence`` (a reset instance matches a fresh one for at least
``startup_frames + 1`` calls), ``reset-continuation`` (continuing after a reset matches a
reference), ``instance-isolation`` (interleaved instances do not share state) and
``state-footprint`` (persistent state matches the declared footprint and is released on close).
Stateless modules report these checks as not-applicable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pixtreme.infer.verification._factory import (
    AllocationIdentity,
    ResourceSnapshot,
    _identities,
)
from pixtreme.infer.verification._results import (
    CheckResult,
    VerificationFinding,
    VerificationInputError,
    _finding,
    _judged,
)

RESET_EQUIVALENCE = "reset-equivalence"
RESET_CONTINUATION = "reset-continuation"
INSTANCE_ISOLATION = "instance-isolation"
STATE_FOOTPRINT = "state-footprint"
TEMPORAL_CHECKS = (RESET_EQUIVALENCE, RESET_CONTINUATION, INSTANCE_ISOLATION, STATE_FOOTPRINT)

_LIFECYCLE = ("before-open", "after-open", "after-run", "after-reset", "after-close")

_Equivalent = Callable[[object, object], bool]


@dataclass(frozen=True)
class SequenceFacts:
    """Outputs of the same request sequence on two separate instances, call by call."""

    reference_instance: object
    candidate_instance: object
    reference: tuple[object, ...]
    candidate: tuple[object, ...]


@dataclass(frozen=True)
class IsolationFacts:
    """Two instances run interleaved, each compared with its own uninterrupted reference."""

    instance_a: object
    instance_b: object
    reference_a: tuple[object, ...]
    observed_a: tuple[object, ...]
    reference_b: tuple[object, ...]
    observed_b: tuple[object, ...]


@dataclass(frozen=True)
class StateLifecycleFacts:
    """GPU resources of one instance before open, after open, run, reset and close."""

    instance: object
    before_open: ResourceSnapshot
    after_open: ResourceSnapshot
    after_run: ResourceSnapshot
    after_reset: ResourceSnapshot
    after_close: ResourceSnapshot


def _output_findings(
    path: str,
    reference: tuple[object, ...],
    observed: tuple[object, ...],
    equivalent: _Equivalent,
    detail: str,
) -> list[VerificationFinding]:
    return [
        _finding("output-mismatch", f"{path}/{index}", got, want, detail)
        for index, (want, got) in enumerate(zip(reference, observed, strict=True))
        if not equivalent(want, got)
    ]


def _sequence_findings(
    name: str, facts: SequenceFacts, minimum: int, equivalent: _Equivalent
) -> list[VerificationFinding]:
    """Findings of one sequence comparison (shared with graph-replay-equivalence)."""
    if len(facts.reference) != len(facts.candidate):
        raise VerificationInputError(
            why="a sequence comparison pairs every reference output with a candidate output",
            what=f"{name}: {len(facts.reference)} reference and {len(facts.candidate)} "
            "candidate outputs",
            how="record one output per call on both instances",
        )
    findings: list[VerificationFinding] = []
    if facts.reference_instance == facts.candidate_instance:
        findings.append(
            _finding(
                "instance-shared",
                f"{name}/instance",
                facts.candidate_instance,
                "distinct instance",
                "sequence evidence needs two separate instances",
            )
        )
    if len(facts.reference) < minimum:
        findings.append(
            _finding(
                "sequence-too-short",
                f"{name}/length",
                len(facts.reference),
                minimum,
                "the sequence does not reach past the boundary it must cross",
            )
        )
    findings.extend(
        _output_findings(
            name,
            facts.reference,
            facts.candidate,
            equivalent,
            "corresponding outputs differ",
        )
    )
    return findings


def _judge_sequence(
    name: str, facts: SequenceFacts, minimum: int, equivalent: _Equivalent
) -> CheckResult:
    """``reset-equivalence`` or ``reset-continuation``: one sequence of at least ``minimum``."""
    return _judged(name, _sequence_findings(name, facts, minimum, equivalent))


def _judge_isolation(facts: IsolationFacts, equivalent: _Equivalent) -> CheckResult:
    """The ``instance-isolation`` check."""
    sides = (
        ("a", facts.reference_a, facts.observed_a),
        ("b", facts.reference_b, facts.observed_b),
    )
    for label, reference, observed in sides:
        if len(reference) != len(observed):
            raise VerificationInputError(
                why="isolation evidence pairs every reference output with an observed one",
                what=f"{INSTANCE_ISOLATION}/{label}: {len(reference)} reference and "
                f"{len(observed)} observed outputs",
                how="record one output per interleaved call",
            )
    findings: list[VerificationFinding] = []
    if facts.instance_a == facts.instance_b:
        findings.append(
            _finding(
                "instance-shared",
                f"{INSTANCE_ISOLATION}/instance",
                facts.instance_b,
                "distinct instance",
                "the interleaved sequences ran on one instance",
            )
        )
    for label, reference, observed in sides:
        path = f"{INSTANCE_ISOLATION}/{label}"
        if not reference:
            findings.append(_finding("sequence-empty", path, 0, ">=1", "no outputs were recorded"))
        findings.extend(
            _output_findings(
                path,
                reference,
                observed,
                equivalent,
                "an interleaved output differs from its uninterrupted reference",
            )
        )
    return _judged(INSTANCE_ISOLATION, findings)


def _in_order(
    snapshot: ResourceSnapshot, keep: set[AllocationIdentity]
) -> tuple[AllocationIdentity, ...]:
    return tuple(item for item in snapshot.allocations if item in keep)


def _judge_footprint(
    declared: ResourceSnapshot,
    facts: StateLifecycleFacts,
    equivalent: Callable[[ResourceSnapshot, ResourceSnapshot], bool],
) -> CheckResult:
    """The ``state-footprint`` check against the normalized declared footprint."""
    if declared.allocations:
        raise VerificationInputError(
            why="a normalized footprint declaration is an amount, not a set of allocations",
            what=f"{STATE_FOOTPRINT}: normalize_footprint returned allocations "
            f"{declared.allocations!r}",
            how="return ResourceSnapshot(amount, unit, ()) from normalize_footprint",
        )
    snapshots = (
        facts.before_open,
        facts.after_open,
        facts.after_run,
        facts.after_reset,
        facts.after_close,
    )
    units = [
        _finding(
            "unit-mismatch",
            f"{STATE_FOOTPRINT}/{label}/unit",
            snapshot.unit,
            declared.unit,
            "the snapshot's unit differs from the declared footprint's",
        )
        for label, snapshot in zip(_LIFECYCLE, snapshots, strict=True)
        if snapshot.unit != declared.unit
    ]
    if units:
        return _judged(STATE_FOOTPRINT, units)
    before, opened, run, reset, closed = (
        _identities(snapshot, f"{STATE_FOOTPRINT}/{label}")
        for label, snapshot in zip(_LIFECYCLE, snapshots, strict=True)
    )
    opened_only = opened - before
    grown = ResourceSnapshot(
        facts.after_open.amount - facts.before_open.amount,
        declared.unit,
        _in_order(facts.after_open, opened_only),
    )
    findings: list[VerificationFinding] = []
    for label, observed, expected in (
        ("open", grown, declared),
        ("run", facts.after_run, facts.after_open),
        ("reset", facts.after_reset, facts.after_open),
        ("close", facts.after_close, facts.before_open),
    ):
        if not equivalent(observed, expected):
            findings.append(
                _finding(
                    "amount-mismatch",
                    f"{STATE_FOOTPRINT}/{label}/amount",
                    observed.amount,
                    expected.amount,
                    f"the persistent amount after {label} differs from what it must be",
                )
            )
    for label, identities, snapshot in (
        ("run", run, facts.after_run),
        ("reset", reset, facts.after_reset),
    ):
        if identities != opened:
            findings.append(
                _finding(
                    "allocation-changed",
                    f"{STATE_FOOTPRINT}/{label}/allocations",
                    snapshot.allocations,
                    facts.after_open.allocations,
                    f"the persistent allocations changed during {label}",
                )
            )
    leaked = opened_only & closed
    if leaked:
        findings.append(
            _finding(
                "allocation-leaked",
                f"{STATE_FOOTPRINT}/close/allocations",
                _in_order(facts.after_open, leaked),
                (),
                "allocations made by open are still live after close",
            )
        )
    return _judged(STATE_FOOTPRINT, findings)
