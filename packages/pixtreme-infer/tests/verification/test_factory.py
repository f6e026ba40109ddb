"""The query-gpu-allocation, opened-contract and closed-inference checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from pixtreme.infer.verification.contracts import (
    CheckResult,
    ResourceSnapshot,
    VerificationInputError,
    VerificationReport,
    verify_module_contract,
)

if TYPE_CHECKING:
    from conftest import Builders

pytestmark = pytest.mark.req("spec.verification.factory")

_FACTORY_CHECKS = ("query-gpu-allocation", "opened-contract", "closed-inference")


def _report(build: Builders, **factory: Any) -> VerificationReport:
    return verify_module_contract(build.stateless_suite(factory=build.factory(**factory)))


def _query(build: Builders, **overrides: Any) -> CheckResult:
    report = _report(build, query_allocations=lambda: (build.query(**overrides),))
    return report.check("query-gpu-allocation")


def test_a_clean_factory_passes_all_three_checks(build: Builders) -> None:
    report = _report(build)
    assert [report.check(name).status for name in _FACTORY_CHECKS] == ["passed"] * 3


@pytest.mark.req("spec.verification.missing-evidence-unverified")
def test_without_factory_cases_the_factory_checks_are_unverified(build: Builders) -> None:
    report = verify_module_contract(build.stateless_suite(factory=None))
    for name in _FACTORY_CHECKS:
        check = report.check(name)
        assert check.status == "unverified"
        assert [(f.code, f.path) for f in check.findings] == [("evidence-missing", name)]


@pytest.mark.parametrize(
    "field", ["query_allocations", "opened_contracts", "closed_inference"], ids=_FACTORY_CHECKS
)
def test_empty_case_tuples_leave_their_check_unverified(build: Builders, field: str) -> None:
    report = _report(build, **{field: lambda: ()})
    statuses = [report.check(name).status for name in _FACTORY_CHECKS]
    assert statuses.count("unverified") == 1
    assert statuses.count("passed") == 2


_Q = "query-gpu-allocation/query"


@pytest.mark.req("spec.verification.query-allocates-nothing")
@pytest.mark.parametrize(
    ("defect", "expected"),
    [
        pytest.param(
            lambda b: {"after_query": b.snapshot(100, "a", unit="MiB")},
            [("unit-mismatch", f"{_Q}/unit", "MiB", "bytes")],
            id="units-differ",
        ),
        pytest.param(
            lambda b: {"after_query": b.snapshot(164, "a")},
            [("amount-mismatch", f"{_Q}/amount", 64, 0)],
            id="amount-grew",
        ),
        pytest.param(
            lambda b: {"allocations_during_query": ("scratch",)},
            [
                ("amount-mismatch", f"{_Q}/amount", 0, 0),
                ("gpu-allocation-created", f"{_Q}/allocations", ("scratch",), ()),
            ],
            id="temporary-allocation",
        ),
        pytest.param(
            lambda b: {
                "after_query": b.snapshot(120, "a", "kept"),
                "allocations_during_query": ("scratch", "kept"),
            },
            [
                ("amount-mismatch", f"{_Q}/amount", 20, 0),
                ("gpu-allocation-created", f"{_Q}/allocations", ("scratch", "kept"), ()),
            ],
            id="kept-allocation",
        ),
    ],
)
def test_a_query_that_touches_gpu_memory_fails(
    build: Builders,
    defect: Callable[[Builders], dict[str, Any]],
    expected: list[tuple[str, str, object, object]],
) -> None:
    def exact(observed: ResourceSnapshot, zero: ResourceSnapshot) -> bool:
        return observed == zero  # amounts and allocations

    report = _report(
        build,
        query_allocations=lambda: (build.query(**defect(build)),),
        resources_equivalent=exact,
    )
    check = report.check("query-gpu-allocation")
    assert check.status == "failed"
    assert [(f.code, f.path, f.observed, f.expected) for f in check.findings] == expected


def test_released_memory_is_no_growth(build: Builders) -> None:
    assert _query(build, after_query=build.snapshot(40, "a")).status == "passed"


def test_the_comparator_sees_the_growth_and_a_zero_snapshot(build: Builders) -> None:
    seen: list[tuple[ResourceSnapshot, ResourceSnapshot]] = []

    def record(observed: ResourceSnapshot, zero: ResourceSnapshot) -> bool:
        seen.append((observed, zero))
        return True

    _report(
        build,
        query_allocations=lambda: (build.query(after_query=build.snapshot(130, "a", "new")),),
        resources_equivalent=record,
    )
    assert seen == [(ResourceSnapshot(30, "bytes", ("new",)), ResourceSnapshot(0, "bytes", ()))]


@pytest.mark.parametrize(
    ("defect", "pattern"),
    [
        pytest.param(
            lambda b: {"before_query": b.snapshot(1, "a", "a")},
            "duplicate allocation identities",
            id="duplicate",
        ),
        pytest.param(
            lambda b: {"after_query": b.snapshot(1, ["unhashable"])},
            "hashable",
            id="unhashable-snapshot",
        ),
        pytest.param(
            lambda b: {"allocations_during_query": ({"id": 1},)},
            "hashable",
            id="unhashable-trace",
        ),
    ],
)
def test_allocation_identities_must_be_distinct_and_hashable(
    build: Builders, defect: Callable[[Builders], dict[str, Any]], pattern: str
) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        _query(build, **defect(build))


@pytest.mark.req("spec.verification.open-equals-query")
def test_an_open_contract_other_than_the_query_fails(build: Builders) -> None:
    other = build.open_contract("weights-b")
    report = _report(build, opened_contracts=lambda: (build.opened(opened_contract=other),))
    (finding,) = report.check("opened-contract").findings
    assert (finding.code, finding.path) == ("contract-mismatch", "opened-contract/fp32/contract")
    assert (finding.observed, finding.expected) == (other, build.open_contract())


@pytest.mark.parametrize("field", ["queried_contract", "opened_contract"])
def test_opened_contract_facts_must_hold_open_contracts(build: Builders, field: str) -> None:
    case = build.opened(**{field: build.stateless()})
    with pytest.raises(VerificationInputError, match="StatelessModuleContract"):
        _report(build, opened_contracts=lambda: (case,))


@pytest.mark.parametrize(
    ("overrides", "paths"),
    [
        ({"error": None}, ["closed-inference/after-close/error"]),
        ({"backend_started": True}, ["closed-inference/after-close/backend-started"]),
    ],
    ids=["no-error", "backend-started"],
)
def test_a_closed_instance_must_refuse_before_the_backend(
    build: Builders, overrides: dict[str, Any], paths: list[str]
) -> None:
    report = _report(build, closed_inference=lambda: (build.closed(**overrides),))
    check = report.check("closed-inference")
    assert (check.status, [f.path for f in check.findings]) == ("failed", paths)
