"""The temporal checks: reset-equivalence, reset-continuation, instance-isolation and
state-footprint."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from pixtreme.infer.verification.contracts import (
    CheckResult,
    ResourceSnapshot,
    VerificationInputError,
    verify_module_contract,
)

if TYPE_CHECKING:
    from conftest import Builders

pytestmark = pytest.mark.req("spec.verification.temporal")

_TEMPORAL = ("reset-equivalence", "reset-continuation", "instance-isolation", "state-footprint")


def _check(build: Builders, name: str, **suite: Any) -> CheckResult:
    return verify_module_contract(build.temporal_suite(**suite)).check(name)


def _found(check: CheckResult) -> list[tuple[str, str, object, object]]:
    return [(f.code, f.path, f.observed, f.expected) for f in check.findings]


def test_complete_temporal_evidence_passes(build: Builders) -> None:
    report = verify_module_contract(build.temporal_suite())
    assert report.status == "passed"
    assert [check.name for check in report.checks[-4:]] == list(_TEMPORAL)


def test_stateless_modules_report_the_temporal_checks_not_applicable(build: Builders) -> None:
    report = verify_module_contract(build.stateless_suite())
    for name in _TEMPORAL:
        check = report.check(name)
        assert check.status == "not-applicable"
        assert [(f.code, f.path) for f in check.findings] == [("stateless-module", name)]
    assert report.status == "passed"


@pytest.mark.parametrize(
    ("name", "field", "facts", "expected"),
    [
        pytest.param(
            "reset-equivalence",
            "reset_equivalence",
            lambda b: b.sequence(2),
            [("sequence-too-short", "reset-equivalence/length", 2, 3)],
            id="reset-shorter-than-startup",
        ),
        pytest.param(
            "reset-equivalence",
            "reset_equivalence",
            lambda b: b.sequence(3, candidate_instance="instance-1"),
            [("instance-shared", "reset-equivalence/instance", "instance-1", "distinct instance")],
            id="reset-one-instance",
        ),
        pytest.param(
            "reset-equivalence",
            "reset_equivalence",
            lambda b: b.sequence(4, candidate=(0, 1, 9, 8)),
            [
                ("output-mismatch", "reset-equivalence/2", 9, 2),
                ("output-mismatch", "reset-equivalence/3", 8, 3),
            ],
            id="reset-outputs-differ",
        ),
        pytest.param(
            "reset-continuation",
            "reset_continuation",
            lambda b: b.sequence(0),
            [("sequence-too-short", "reset-continuation/length", 0, 1)],
            id="continuation-empty",
        ),
        pytest.param(
            "reset-continuation",
            "reset_continuation",
            lambda b: b.sequence(1, candidate=(7,)),
            [("output-mismatch", "reset-continuation/0", 7, 0)],
            id="continuation-differs",
        ),
    ],
)
def test_sequence_defects_fail_with_located_findings(
    build: Builders,
    name: str,
    field: str,
    facts: Callable[[Builders], Any],
    expected: list[tuple[str, str, object, object]],
) -> None:
    check = _check(build, name, **{field: lambda: facts(build)})
    assert (check.status, _found(check)) == ("failed", expected)


def test_reset_equivalence_needs_startup_frames_plus_one_calls(build: Builders) -> None:
    contract = build.temporal(startup_frames=0)
    check = _check(
        build, "reset-equivalence", contract=contract, reset_equivalence=lambda: build.sequence(1)
    )
    assert check.status == "passed"


@pytest.mark.parametrize(
    ("field", "facts"),
    [
        ("reset_equivalence", lambda b: b.sequence(3, candidate=(0, 1))),
        ("instance_isolation", lambda b: b.isolation(observed_a=(1,))),
    ],
    ids=["sequence", "isolation"],
)
def test_unpaired_outputs_are_malformed_evidence(
    build: Builders, field: str, facts: Callable[[Builders], Any]
) -> None:
    with pytest.raises(VerificationInputError, match="outputs"):
        verify_module_contract(build.temporal_suite(**{field: lambda: facts(build)}))


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        pytest.param(
            lambda b: b.isolation(instance_b="instance-a"),
            [("instance-shared", "instance-isolation/instance", "instance-a", "distinct instance")],
            id="one-instance",
        ),
        pytest.param(
            lambda b: b.isolation(reference_b=(), observed_b=()),
            [("sequence-empty", "instance-isolation/b", 0, ">=1")],
            id="empty-side",
        ),
        pytest.param(
            lambda b: b.isolation(observed_b=(3, 5)),
            [("output-mismatch", "instance-isolation/b/1", 5, 4)],
            id="interleaving-leaks",
        ),
    ],
)
def test_isolation_defects_fail(
    build: Builders,
    facts: Callable[[Builders], Any],
    expected: list[tuple[str, str, object, object]],
) -> None:
    check = _check(build, "instance-isolation", instance_isolation=lambda: facts(build))
    assert (check.status, _found(check)) == ("failed", expected)


_FP = "state-footprint"


@pytest.mark.req("spec.verification.state-footprint")
@pytest.mark.parametrize(
    ("lifecycle", "expected"),
    [
        pytest.param(
            lambda b, o: {"after_run": b.snapshot(o.amount, *o.allocations, unit="MiB")},
            [("unit-mismatch", f"{_FP}/after-run/unit", "MiB", "bytes")],
            id="unit",
        ),
        pytest.param(
            lambda b, o: {
                "after_open": b.snapshot(9000, "pool", "state"),
                "after_run": b.snapshot(9000, "pool", "state"),
                "after_reset": b.snapshot(9000, "pool", "state"),
            },
            [("amount-mismatch", f"{_FP}/open/amount", 8000, 4608)],
            id="open-differs-from-declaration",
        ),
        pytest.param(
            lambda b, o: {"after_run": b.snapshot(7000, "pool", "state")},
            [("amount-mismatch", f"{_FP}/run/amount", 7000, 5608)],
            id="run-grows",
        ),
        pytest.param(
            lambda b, o: {"after_reset": b.snapshot(5608, "pool", "state2")},
            [
                (
                    "allocation-changed",
                    f"{_FP}/reset/allocations",
                    ("pool", "state2"),
                    ("pool", "state"),
                )
            ],
            id="reset-reallocates",
        ),
        pytest.param(
            lambda b, o: {"after_close": b.snapshot(1000, "pool", "state")},
            [("allocation-leaked", f"{_FP}/close/allocations", ("state",), ())],
            id="close-leaks-allocation",
        ),
        pytest.param(
            lambda b, o: {"after_close": b.snapshot(1100, "pool")},
            [("amount-mismatch", f"{_FP}/close/amount", 1100, 1000)],
            id="close-leaks-amount",
        ),
    ],
)
def test_state_footprint_defects_fail(
    build: Builders,
    lifecycle: Callable[[Builders, ResourceSnapshot], dict[str, Any]],
    expected: list[tuple[str, str, object, object]],
) -> None:
    opened = build.lifecycle().after_open
    facts = build.lifecycle(**lifecycle(build, opened))
    check = _check(build, "state-footprint", state_lifecycle=lambda: facts)
    assert (check.status, _found(check)) == ("failed", expected)


def test_the_open_delta_holds_only_allocations_made_by_open(build: Builders) -> None:
    seen: list[ResourceSnapshot] = []

    def record(observed: ResourceSnapshot, expected: ResourceSnapshot) -> bool:
        seen.append(observed)
        return True

    _check(build, "state-footprint", resources_equivalent=record)
    assert seen[0] == ResourceSnapshot(4608, "bytes", ("state",))


def test_the_declared_footprint_is_normalized_by_the_module(build: Builders) -> None:
    seen: list[object] = []

    def normalize(footprint: object) -> ResourceSnapshot:
        seen.append(footprint)
        return ResourceSnapshot(4608, "bytes", ())

    assert _check(build, "state-footprint", normalize_footprint=normalize).status == "passed"
    assert seen == [build.temporal().state_footprint]


@pytest.mark.parametrize(
    ("overrides", "pattern"),
    [
        pytest.param(
            {"normalize_footprint": lambda footprint: ResourceSnapshot(1, "bytes", ("x",))},
            "normalize_footprint returned allocations",
            id="declaration-with-allocations",
        ),
        pytest.param(
            {"normalize_footprint": lambda footprint: 4608},
            "ResourceSnapshot",
            id="declaration-not-a-snapshot",
        ),
    ],
)
def test_a_bad_normalized_declaration_is_malformed_evidence(
    build: Builders, overrides: dict[str, Any], pattern: str
) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        verify_module_contract(build.temporal_suite(**overrides))
