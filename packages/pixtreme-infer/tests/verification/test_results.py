"""The result model: statuses, findings, checks, reports, overall_status and the two errors."""

from __future__ import annotations

import dataclasses
from typing import get_args

import pytest
from pixtreme.infer.verification import overall_status
from pixtreme.infer.verification.contracts import (
    CheckResult,
    CheckStatus,
    VerificationExecutionError,
    VerificationFinding,
    VerificationInputError,
    VerificationReport,
)

pytestmark = pytest.mark.req("spec.verification.result-model")

FINDING = VerificationFinding("code", "check/case", 1, 2, "detail")


def _check(name: str, status: CheckStatus) -> CheckResult:
    findings = () if status == "passed" else (FINDING,)
    return CheckResult(name, status, findings)


def test_statuses_are_the_four_documented_literals() -> None:
    assert get_args(CheckStatus) == ("passed", "failed", "unverified", "not-applicable")


@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        (VerificationFinding, ("code", "path", "observed", "expected", "detail")),
        (CheckResult, ("name", "status", "findings")),
        (VerificationReport, ("scope", "checks")),
    ],
    ids=["finding", "check", "report"],
)
def test_records_are_positional_frozen_dataclasses(kind: type, fields: tuple[str, ...]) -> None:
    assert tuple(field.name for field in dataclasses.fields(kind)) == fields
    assert not any(field.kw_only for field in dataclasses.fields(kind))
    value = {
        VerificationFinding: FINDING,
        CheckResult: _check("c", "passed"),
        VerificationReport: VerificationReport("s", ()),
    }[kind]
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.__setattr__(fields[0], "other")


def test_a_check_rejects_an_undocumented_status() -> None:
    with pytest.raises(VerificationInputError, match=r"status='ok'") as caught:
        CheckResult("c", "ok", ())  # type: ignore[arg-type]
    assert isinstance(caught.value, ValueError)


@pytest.mark.req("spec.verification.missing-evidence-unverified")
@pytest.mark.parametrize(
    ("statuses", "overall"),
    [
        (("passed", "not-applicable"), "passed"),
        (("passed", "unverified"), "unverified"),
        (("unverified", "failed", "passed"), "failed"),
        (("not-applicable",), "unverified"),
        ((), "unverified"),
    ],
    ids=["passed", "unverified-beats-passed", "failed-beats-all", "only-na", "empty"],
)
def test_report_status_never_passes_without_an_applicable_passed_check(
    statuses: tuple[CheckStatus, ...], overall: CheckStatus
) -> None:
    report = VerificationReport("s", tuple(_check(f"c{i}", s) for i, s in enumerate(statuses)))
    assert report.status == overall
    assert overall_status((report,)) == overall


def test_overall_status_combines_reports() -> None:
    passed = VerificationReport("a", (_check("x", "passed"),))
    unverified = VerificationReport("b", (_check("y", "unverified"),))
    failed = VerificationReport("c", (_check("z", "failed"),))
    assert overall_status(()) == "unverified"
    assert overall_status([passed, passed]) == "passed"
    assert overall_status([passed, unverified]) == "unverified"
    assert overall_status(iter([unverified, failed, passed])) == "failed"


def test_report_lookup_names_the_checks_it_has() -> None:
    check = _check("frame-boundary", "passed")
    report = VerificationReport("module-contract", (check,))
    assert report.check("frame-boundary") is check
    with pytest.raises(KeyError, match=r"no check named 'nope'; checks: \['frame-boundary'\]"):
        report.check("nope")


@pytest.mark.parametrize(
    ("kind", "builtin"),
    [(VerificationInputError, ValueError), (VerificationExecutionError, RuntimeError)],
    ids=["input", "execution"],
)
def test_errors_keep_the_published_builtin_bases_and_plain_messages(
    kind: type[Exception], builtin: type[Exception]
) -> None:
    error = kind("frame-boundary/x: input_frame must be a Frame")
    assert isinstance(error, builtin)
    assert str(error) == "frame-boundary/x: input_frame must be a Frame"
    assert (error.why, error.what, error.how) == (None, None, None)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("kind", "prefix", "message"),
    [
        (VerificationInputError, None, "why=a; what=b; how=c"),
        (VerificationExecutionError, "archive-read", "archive-read: why=a; what=b; how=c"),
    ],
    ids=["parts-only", "code-and-parts"],
)
def test_errors_take_the_shared_why_what_how_shape(
    kind: type[VerificationInputError | VerificationExecutionError],
    prefix: str | None,
    message: str,
) -> None:
    error = kind(prefix, why="a", what="b", how="c")
    assert str(error) == message
    assert (error.why, error.what, error.how) == ("a", "b", "c")
