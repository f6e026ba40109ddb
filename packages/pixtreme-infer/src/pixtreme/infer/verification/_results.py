"""The verification result model: statuses, findings, check results and reports."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from pixtreme.infer import _validate as v
from pixtreme.infer.errors import ContractError, format_error

type JsonValue = bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None

EVIDENCE_MISSING = "evidence-missing"
EVIDENCE_UNAVAILABLE = "evidence-unavailable"
EVIDENCE_RAISED = "evidence-raised"
EVIDENCE_TYPE = "evidence-type"
EVIDENCE_INSUFFICIENT = "evidence-insufficient"


class CheckStatus(StrEnum):
    """Outcome of one check. Missing evidence is UNVERIFIED, never PASSED."""

    PASSED = "passed"
    FAILED = "failed"
    UNVERIFIED = "unverified"
    NOT_APPLICABLE = "not-applicable"


def jsonable(value: object) -> JsonValue:
    """Convert a finding value to JSON: containers recursively, non-finite floats as strings."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, tuple | list):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    return repr(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class VerificationFinding:
    """One observation behind a non-passing status: what was seen where, and what was expected."""

    code: str
    path: str
    observed: object = None
    expected: object = None
    detail: str = ""

    def __post_init__(self) -> None:
        v.non_empty_str("VerificationFinding", "code", self.code)
        v.non_empty_str("VerificationFinding", "path", self.path)
        v.text("VerificationFinding", "detail", self.detail)

    def as_record(self) -> dict[str, JsonValue]:
        """The finding as a JSON-compatible mapping."""
        return {
            "code": self.code,
            "path": self.path,
            "observed": jsonable(self.observed),
            "expected": jsonable(self.expected),
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    """The status of one named check; failed and unverified results carry findings."""

    name: str
    status: CheckStatus
    findings: tuple[VerificationFinding, ...] = ()
    detail: str = ""

    def __post_init__(self) -> None:
        owner = "CheckResult"
        v.non_empty_str(owner, "name", self.name)
        v.instance_of(owner, "status", self.status, CheckStatus)
        v.text(owner, "detail", self.detail)
        if not isinstance(self.findings, tuple) or not all(
            isinstance(item, VerificationFinding) for item in self.findings
        ):
            v.fail(
                owner,
                "findings",
                self.findings,
                expected="a tuple of VerificationFinding",
                how="wrap each observation in VerificationFinding(code=..., path=...)",
            )
        needs_findings = self.status in (CheckStatus.FAILED, CheckStatus.UNVERIFIED)
        if needs_findings and not self.findings:
            raise ContractError(
                why=f"a {self.status.value} check must say why with at least one finding",
                what=f"check {self.name!r} has status {self.status.value!r} and no findings",
                how="add a VerificationFinding naming the code, path, observed and expected",
            )
        if self.status is CheckStatus.PASSED and self.findings:
            raise ContractError(
                why="a passed check has no findings",
                what=f"check {self.name!r} is passed with {len(self.findings)} finding(s)",
                how="mark the check failed or unverified, or drop the findings",
            )

    @classmethod
    def unverified(cls, name: str, *, code: str, path: str, detail: str) -> CheckResult:
        """An unverified result with one finding (missing or unusable evidence)."""
        finding = VerificationFinding(code=code, path=path, detail=detail)
        return cls(name=name, status=CheckStatus.UNVERIFIED, findings=(finding,))

    @classmethod
    def from_findings(
        cls, name: str, findings: tuple[VerificationFinding, ...], *, detail: str = ""
    ) -> CheckResult:
        """Failed when there are findings, else passed."""
        status = CheckStatus.FAILED if findings else CheckStatus.PASSED
        return cls(name=name, status=status, findings=findings, detail=detail)

    def as_record(self) -> dict[str, JsonValue]:
        """The check as a JSON-compatible mapping."""
        return {
            "name": self.name,
            "status": self.status.value,
            "detail": self.detail,
            "findings": [finding.as_record() for finding in self.findings],
        }


def overall_status(statuses: tuple[CheckStatus, ...]) -> CheckStatus:
    """Failed beats unverified beats passed; only not-applicable checks (or none) is unverified."""
    if CheckStatus.FAILED in statuses:
        return CheckStatus.FAILED
    if CheckStatus.UNVERIFIED in statuses:
        return CheckStatus.UNVERIFIED
    if CheckStatus.PASSED in statuses:
        return CheckStatus.PASSED
    return CheckStatus.UNVERIFIED


@dataclass(frozen=True, slots=True, kw_only=True)
class VerificationReport:
    """All checks run for one scope (a module suite, an ONNX graph, a distribution)."""

    scope: str
    checks: tuple[CheckResult, ...]

    def __post_init__(self) -> None:
        v.non_empty_str("VerificationReport", "scope", self.scope)
        if not isinstance(self.checks, tuple) or not all(
            isinstance(check, CheckResult) for check in self.checks
        ):
            v.fail(
                "VerificationReport",
                "checks",
                self.checks,
                expected="a tuple of CheckResult",
                how="collect the results of the checks in a tuple",
            )
        names = [check.name for check in self.checks]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ContractError(
                why="each check appears once in a report",
                what=f"scope {self.scope!r} repeats check(s) {duplicates}",
                how="give every check a distinct name",
            )

    @property
    def status(self) -> CheckStatus:
        """The overall status; a report without applicable checks is unverified."""
        return overall_status(tuple(check.status for check in self.checks))

    def check(self, name: str) -> CheckResult:
        """The check called ``name``; KeyError if there is none."""
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(
            format_error(
                why=f"report {self.scope!r} holds only the checks it ran",
                what=f"no check named {name!r}; checks: {[check.name for check in self.checks]}",
                how="look up one of the listed names (MODULE_CHECKS lists the module checks)",
            )
        )

    def as_record(self) -> dict[str, JsonValue]:
        """The report as a JSON-compatible mapping (suitable for canonical_json)."""
        return {
            "scope": self.scope,
            "status": self.status.value,
            "checks": [check.as_record() for check in self.checks],
        }
