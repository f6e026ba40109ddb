"""The verification result model."""

from __future__ import annotations

from typing import Any

import pytest
from pixtreme.infer.errors import ContractError
from pixtreme.infer.verification import (
    CheckResult,
    CheckStatus,
    VerificationFinding,
    VerificationReport,
)

pytestmark = pytest.mark.req("issue6.results")

FINDING = VerificationFinding(code="x", path="p", observed=1.5, expected=(1, 2))


def test_status_values() -> None:
    assert [s.value for s in CheckStatus] == ["passed", "failed", "unverified", "not-applicable"]


def test_finding_record_is_json_compatible() -> None:
    record = VerificationFinding(
        code="c", path="p", observed=float("inf"), expected={"a": (1, None)}, detail="d"
    ).as_record()
    assert record == {
        "code": "c",
        "path": "p",
        "observed": "inf",
        "expected": {"a": [1, None]},
        "detail": "d",
    }


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [({"code": ""}, "code must be a non-empty string"), ({"path": None}, "path must be")],
)
def test_finding_rejects(fields: dict[str, Any], pattern: str) -> None:
    base: dict[str, Any] = {"code": "c", "path": "p"}
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        VerificationFinding(**base)


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"status": "passed"}, "status must be a CheckStatus"),
        ({"status": CheckStatus.FAILED}, "a failed check must say why"),
        ({"status": CheckStatus.UNVERIFIED}, "an? unverified check must say why"),
        ({"status": CheckStatus.PASSED, "findings": (FINDING,)}, "a passed check has no findings"),
        ({"status": CheckStatus.FAILED, "findings": ("x",)}, "findings must be a tuple"),
        ({"name": "", "status": CheckStatus.PASSED}, "name must be a non-empty"),
    ],
    ids=[
        "str-status",
        "failed-empty",
        "unverified-empty",
        "passed-findings",
        "bad-finding",
        "name",
    ],
)
def test_check_result_rejects(fields: dict[str, Any], pattern: str) -> None:
    base: dict[str, Any] = {"name": "n"}
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        CheckResult(**base)


@pytest.mark.req("spec.verification.missing-evidence-unverified")
@pytest.mark.parametrize(
    ("statuses", "overall"),
    [
        ((CheckStatus.PASSED, CheckStatus.NOT_APPLICABLE), CheckStatus.PASSED),
        ((CheckStatus.PASSED, CheckStatus.UNVERIFIED), CheckStatus.UNVERIFIED),
        ((CheckStatus.UNVERIFIED, CheckStatus.FAILED), CheckStatus.FAILED),
        ((CheckStatus.NOT_APPLICABLE,), CheckStatus.UNVERIFIED),
        ((), CheckStatus.UNVERIFIED),
    ],
    ids=["passed", "unverified", "failed", "only-na", "empty"],
)
def test_report_status(statuses: tuple[CheckStatus, ...], overall: CheckStatus) -> None:
    checks = tuple(
        CheckResult(
            name=f"c{i}",
            status=status,
            findings=(FINDING,) if status in (CheckStatus.FAILED, CheckStatus.UNVERIFIED) else (),
        )
        for i, status in enumerate(statuses)
    )
    report = VerificationReport(scope="s", checks=checks)
    assert report.status is overall
    assert report.as_record()["status"] == overall.value


def test_report_lookup_and_duplicates() -> None:
    check = CheckResult.from_findings("a", ())
    report = VerificationReport(scope="s", checks=(check,))
    assert report.check("a") is check
    with pytest.raises(KeyError, match=r"why=.*what=no check named 'b'; checks: \['a'\]; how="):
        report.check("b")
    with pytest.raises(ContractError, match=r"repeats check\(s\) \['a'\]"):
        VerificationReport(scope="s", checks=(check, check))
    with pytest.raises(ContractError, match="scope must be a non-empty string"):
        VerificationReport(scope="", checks=())
