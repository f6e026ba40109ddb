"""Engine evidence (round trip, incompatibility, checkpoint selectors) and its checks.

Checks: ``engine-round-trip`` (an engine serialized in one process loads in another with the
same bytes, bindings and output), ``engine-incompatibility`` and
``checkpoint-selector-rejection`` (an incompatible engine or checkpoint selector is refused
before any instance or backend exists, with no fallback and a diagnostic naming both sides).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pixtreme.infer.verification._results import (
    CheckResult,
    VerificationFinding,
    VerificationInputError,
    _expect,
    _finding,
    _judged,
    _judged_cases,
)

ENGINE_ROUND_TRIP = "engine-round-trip"
ENGINE_INCOMPATIBILITY = "engine-incompatibility"
CHECKPOINT_SELECTOR_REJECTION = "checkpoint-selector-rejection"

_HEX_DIGEST = re.compile(r"[0-9a-fA-F]{64}")
_BINDING_FIELDS = ("direction", "dtype", "min_shape", "opt_shape", "max_shape")


@dataclass(frozen=True)
class EngineBindingFacts:
    """One engine binding: direction, dtype and its min/opt/max shapes."""

    name: str
    direction: Literal["input", "output"]
    dtype: str
    min_shape: tuple[int, ...]
    opt_shape: tuple[int, ...]
    max_shape: tuple[int, ...]


@dataclass(frozen=True)
class EngineRoundTripFacts:
    """An engine serialized by one process and loaded by another.

    ``producer_execution`` and ``consumer_execution`` identify the two processes; the digests
    are the sha256 of the serialized and of the loaded bytes; the outputs come from the same
    request on the original and on the loaded engine.
    """

    producer_execution: str
    consumer_execution: str
    serialized_sha256: str
    loaded_sha256: str
    expected_bindings: tuple[EngineBindingFacts, ...]
    loaded_bindings: tuple[EngineBindingFacts, ...]
    original_output: object
    loaded_output: object


@dataclass(frozen=True)
class RejectionFacts:
    """One refused selection: the error, and whether anything started or fell back.

    ``observed`` and ``expected`` are what the diagnostic must show.
    """

    name: str
    error: BaseException | None
    instance_accepted: bool
    backend_started: bool
    fallback_events: tuple[str, ...]
    observed: object
    expected: object


def _by_name(
    bindings: tuple[EngineBindingFacts, ...],
) -> dict[str, list[EngineBindingFacts]]:
    grouped: dict[str, list[EngineBindingFacts]] = {}
    for binding in bindings:
        grouped.setdefault(binding.name, []).append(binding)
    return grouped


def _binding_findings(
    expected: tuple[EngineBindingFacts, ...], loaded: tuple[EngineBindingFacts, ...]
) -> list[VerificationFinding]:
    wanted = _by_name(expected)
    repeated = sorted(name for name, items in wanted.items() if len(items) > 1)
    if repeated:
        raise VerificationInputError(
            why="the expected bindings name each binding once",
            what=f"{ENGINE_ROUND_TRIP}: repeated expected binding name(s) {repeated}",
            how="list every expected binding exactly once",
        )
    found = _by_name(loaded)
    path = f"{ENGINE_ROUND_TRIP}/bindings"
    findings = [
        _finding(
            "binding-missing",
            f"{path}/{name}",
            None,
            wanted[name][0],
            "an expected binding is absent from the loaded engine",
        )
        for name in sorted(wanted.keys() - found.keys())
    ]
    findings.extend(
        _finding(
            "binding-extra",
            f"{path}/{name}",
            tuple(found[name]),
            None,
            "the loaded engine has a binding that was not expected",
        )
        for name in sorted(found.keys() - wanted.keys())
    )
    findings.extend(
        _finding(
            "binding-duplicate",
            f"{path}/{name}",
            tuple(items),
            wanted[name][0] if name in wanted else None,
            "the loaded engine names this binding more than once",
        )
        for name, items in sorted(found.items())
        if len(items) > 1
    )
    for name in sorted(wanted.keys() & found.keys()):
        if len(found[name]) != 1:
            continue
        want, got = wanted[name][0], found[name][0]
        for field in _BINDING_FIELDS:
            _expect(findings, f"{path}/{name}/{field}", getattr(got, field), getattr(want, field))
    return findings


def _execution_findings(facts: EngineRoundTripFacts) -> list[VerificationFinding]:
    findings: list[VerificationFinding] = []
    for label, token in (
        ("producer", facts.producer_execution),
        ("consumer", facts.consumer_execution),
    ):
        if not token:
            findings.append(
                _finding(
                    "execution-missing",
                    f"{ENGINE_ROUND_TRIP}/{label}",
                    token,
                    "nonempty process token",
                    f"no {label} process was recorded",
                )
            )
    if facts.producer_execution == facts.consumer_execution:
        findings.append(
            _finding(
                "execution-not-distinct",
                f"{ENGINE_ROUND_TRIP}/execution",
                facts.consumer_execution,
                "different process token",
                "the engine was loaded by the process that serialized it",
            )
        )
    return findings


def _digest_findings(facts: EngineRoundTripFacts) -> list[VerificationFinding]:
    findings: list[VerificationFinding] = []
    for label, digest in (("serialized", facts.serialized_sha256), ("loaded", facts.loaded_sha256)):
        if not isinstance(digest, str) or _HEX_DIGEST.fullmatch(digest) is None:
            findings.append(
                _finding(
                    "digest-invalid",
                    f"{ENGINE_ROUND_TRIP}/{label}/sha256",
                    digest,
                    "64 hexadecimal characters",
                    f"the {label} payload digest is missing or malformed",
                )
            )
    _expect(
        findings,
        f"{ENGINE_ROUND_TRIP}/sha256",
        facts.loaded_sha256,
        facts.serialized_sha256,
        "the loaded bytes differ from the serialized bytes",
    )
    return findings


def _judge_round_trip(
    facts: EngineRoundTripFacts, equivalent: Callable[[object, object], bool]
) -> CheckResult:
    """The ``engine-round-trip`` check."""
    findings = _execution_findings(facts) + _digest_findings(facts)
    directions = {binding.direction for binding in facts.expected_bindings}
    if directions != {"input", "output"}:
        findings.append(
            _finding(
                "bindings-incomplete",
                f"{ENGINE_ROUND_TRIP}/expected-bindings",
                tuple(sorted(directions)),
                ("input", "output"),
                "the expected bindings need at least one input and one output",
            )
        )
    findings.extend(_binding_findings(facts.expected_bindings, facts.loaded_bindings))
    if not equivalent(facts.original_output, facts.loaded_output):
        findings.append(
            _finding(
                "output-mismatch",
                f"{ENGINE_ROUND_TRIP}/output",
                facts.loaded_output,
                facts.original_output,
                "the loaded engine's output differs from the original's",
            )
        )
    return _judged(ENGINE_ROUND_TRIP, findings)


def _judge_rejections(name: str, cases: tuple[RejectionFacts, ...]) -> CheckResult:
    """``engine-incompatibility`` or ``checkpoint-selector-rejection`` over ``cases``."""
    findings: list[VerificationFinding] = []
    for case in cases:
        path = f"{name}/{case.name}"
        _expect(findings, f"{path}/error", case.error is not None, True)
        if case.error is not None:
            message = str(case.error)
            for label, value in (("observed", case.observed), ("expected", case.expected)):
                if str(value) not in message:
                    findings.append(
                        _finding(
                            "diagnostic-missing",
                            f"{path}/error/{label}",
                            message,
                            value,
                            f"the error does not show the {label} value",
                        )
                    )
        _expect(findings, f"{path}/instance-accepted", case.instance_accepted, False)
        _expect(findings, f"{path}/backend-started", case.backend_started, False)
        _expect(findings, f"{path}/fallback-events", case.fallback_events, ())
    return _judged_cases(name, cases, findings)
