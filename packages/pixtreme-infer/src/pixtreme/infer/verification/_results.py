"""The verification result model: statuses, findings, check results, reports and their errors.

A check is ``passed`` only on supplied evidence; missing evidence is ``unverified`` (finding code
``evidence-missing``), and a check that does not apply to a module is ``not-applicable``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

from pixtreme.infer.errors import actionable_error

CheckStatus = Literal["passed", "failed", "unverified", "not-applicable"]

_STATUSES: tuple[CheckStatus, ...] = get_args(CheckStatus)

EVIDENCE_MISSING = "evidence-missing"
"""Finding code: no evidence was supplied for a check (the check is unverified)."""
EVIDENCE_UNAVAILABLE = "evidence-unavailable"
"""Finding code: a provider raised EvidenceUnavailable (the check is unverified)."""
EVIDENCE_RAISED = "evidence-raised"
"""Finding code: a provider raised while gathering evidence (the check failed)."""
EVIDENCE_INVALID = "evidence-invalid"
"""Finding code: supplied facts violate the verification contract (the check failed)."""
EVIDENCE_TYPE = "evidence-type"
"""Finding code: a provider returned something other than the facts it owes (failed)."""


class _ActionableMessage:
    """Accept either the published plain message or the shared why/what/how parts."""

    why: str | None
    what: str | None
    how: str | None

    def _message(
        self, message: str | None, why: str | None, what: str | None, how: str | None
    ) -> str:
        self.why, self.what, self.how = why, what, how
        if why is None and what is None and how is None:
            return "" if message is None else message
        parts = actionable_error(why=why or "", what=what or "", how=how or "")
        return parts if message is None else f"{message}: {parts}"


class VerificationInputError(_ActionableMessage, ValueError):
    """An argument or supplied fact violates a verification contract.

    Raise it with a plain message, as the published API does, or with the keyword parts
    ``why``, ``what`` and ``how`` (kept as attributes) for the shared message shape.
    """

    def __init__(
        self,
        message: str | None = None,
        /,
        *,
        why: str | None = None,
        what: str | None = None,
        how: str | None = None,
    ) -> None:
        super().__init__(self._message(message, why, what, how))


class VerificationExecutionError(_ActionableMessage, RuntimeError):
    """A verification provider or owned operation failed during execution.

    Takes a plain message or the keyword parts ``why``, ``what`` and ``how``.
    """

    def __init__(
        self,
        message: str | None = None,
        /,
        *,
        why: str | None = None,
        what: str | None = None,
        how: str | None = None,
    ) -> None:
        super().__init__(self._message(message, why, what, how))


@dataclass(frozen=True)
class VerificationFinding:
    """One observation behind a status: where, what was seen, what was expected, and why."""

    code: str
    path: str
    observed: object
    expected: object
    detail: str


@dataclass(frozen=True)
class CheckResult:
    """The status of one named check and the findings that explain it."""

    name: str
    status: CheckStatus
    findings: tuple[VerificationFinding, ...]

    def __post_init__(self) -> None:
        if self.status not in _STATUSES:
            raise VerificationInputError(
                why="a check status is one of the four documented statuses",
                what=f"check {self.name!r} has status={self.status!r}",
                how=f"use one of {list(_STATUSES)}",
            )


@dataclass(frozen=True)
class VerificationReport:
    """Every check run for one scope, in the documented order."""

    scope: str
    checks: tuple[CheckResult, ...]

    @property
    def status(self) -> CheckStatus:
        """The combined status of this report's checks (see overall_status)."""
        return _combine(check.status for check in self.checks)

    def check(self, name: str) -> CheckResult:
        """The check called ``name``; KeyError naming the checks present when there is none."""
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(
            actionable_error(
                why=f"report {self.scope!r} holds only the checks it ran",
                what=f"no check named {name!r}; checks: {[check.name for check in self.checks]}",
                how="look the check up by one of the listed names",
            )
        )


def _combine(statuses: Iterable[CheckStatus]) -> CheckStatus:
    seen = set(statuses)
    order: tuple[CheckStatus, ...] = ("failed", "unverified", "passed")
    return next((status for status in order if status in seen), "unverified")


def overall_status(reports: Iterable[VerificationReport], /) -> CheckStatus:
    """Combine every check of ``reports``: failed, else unverified, else passed.

    Checks that are not-applicable do not count; reports holding no applicable check (or no
    reports at all) are unverified, never passed.
    """
    return _combine(check.status for report in reports for check in report.checks)


def _finding(
    code: str, path: str, observed: object, expected: object, detail: str
) -> VerificationFinding:
    return VerificationFinding(code, path, observed, expected, detail)


def _unverified(name: str, detail: str = "no cases were supplied") -> CheckResult:
    """The result of a check without evidence."""
    return CheckResult(name, "unverified", (_finding(EVIDENCE_MISSING, name, 0, ">=1", detail),))


def _judged(name: str, findings: Iterable[VerificationFinding]) -> CheckResult:
    """Failed when any finding was made, passed otherwise."""
    collected = tuple(findings)
    return CheckResult(name, "failed" if collected else "passed", collected)


def _judged_cases(
    name: str, cases: tuple[object, ...], findings: Iterable[VerificationFinding]
) -> CheckResult:
    """As _judged, but unverified when no case was supplied at all."""
    return _judged(name, findings) if cases else _unverified(name)


def _differs(observed: object, expected: object) -> bool:
    try:
        return bool(observed != expected)
    except (TypeError, ValueError):  # an array-like comparison without one truth value
        return observed is not expected


def _expect(
    findings: list[VerificationFinding],
    path: str,
    observed: object,
    expected: object,
    detail: str = "the observed value differs from the contract",
) -> None:
    """Record a ``contract-mismatch`` finding when ``observed`` differs from ``expected``."""
    if _differs(observed, expected):
        findings.append(_finding("contract-mismatch", path, observed, expected, detail))


def _facts_tuple(check: str, value: object, kind: type, *, label: str) -> tuple[object, ...]:
    """Validate what an evidence provider returned: a sequence of ``kind`` records."""
    if isinstance(value, str | bytes) or not isinstance(value, tuple | list):
        raise VerificationInputError(
            why=f"the {label} provider returns a tuple of {kind.__name__}",
            what=f"{check}: received {type(value).__name__}",
            how=f"return a tuple of {kind.__name__} records (an empty tuple leaves {check} "
            "unverified)",
        )
    for index, item in enumerate(value):
        _facts_item(check, item, kind, label=f"{label}[{index}]")
    return tuple(value)


def _facts_item(check: str, value: object, kind: type, *, label: str) -> None:
    if not isinstance(value, kind):
        raise VerificationInputError(
            why=f"{label} must be a {kind.__name__} record",
            what=f"{check}: received {type(value).__name__}",
            how=f"build the evidence as {kind.__name__}(...)",
        )
