"""The engine-round-trip, engine-incompatibility and checkpoint-selector-rejection checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from pixtreme.infer.verification.contracts import (
    CheckResult,
    VerificationInputError,
    verify_module_contract,
)

if TYPE_CHECKING:
    from conftest import Builders

pytestmark = pytest.mark.req("spec.verification.engine-evidence")

_B = "engine-round-trip/bindings"


def _round_trip(build: Builders, **overrides: Any) -> CheckResult:
    suite = build.stateless_suite(engine_round_trip=lambda: build.round_trip(**overrides))
    return verify_module_contract(suite).check("engine-round-trip")


def test_a_faithful_round_trip_between_two_processes_passes(build: Builders) -> None:
    assert _round_trip(build).status == "passed"


def test_uppercase_hex_digests_are_well_formed(build: Builders) -> None:
    digest = "AB" * 32
    assert _round_trip(build, serialized_sha256=digest, loaded_sha256=digest).status == "passed"


_DEFECTS = [
    pytest.param(
        lambda b: {"producer_execution": ""},
        [("execution-missing", "engine-round-trip/producer")],
        id="no-producer",
    ),
    pytest.param(
        lambda b: {"consumer_execution": "pid-100"},
        [("execution-not-distinct", "engine-round-trip/execution")],
        id="same-process",
    ),
    pytest.param(
        lambda b: {"serialized_sha256": "abc", "loaded_sha256": "abc"},
        [
            ("digest-invalid", "engine-round-trip/serialized/sha256"),
            ("digest-invalid", "engine-round-trip/loaded/sha256"),
        ],
        id="malformed-digests",
    ),
    pytest.param(
        lambda b: {"loaded_sha256": "cd" * 32},
        [("contract-mismatch", "engine-round-trip/sha256")],
        id="other-bytes",
    ),
    pytest.param(
        lambda b: {
            "expected_bindings": (b.binding("input"),),
            "loaded_bindings": (b.binding("input"),),
        },
        [("bindings-incomplete", "engine-round-trip/expected-bindings")],
        id="no-output-binding",
    ),
    pytest.param(
        lambda b: {"loaded_bindings": (b.binding("input"),)},
        [("binding-missing", f"{_B}/output")],
        id="binding-missing",
    ),
    pytest.param(
        lambda b: {"loaded_bindings": (b.binding("input"), b.binding("output"), b.binding("aux"))},
        [("binding-extra", f"{_B}/aux")],
        id="binding-extra",
    ),
    pytest.param(
        lambda b: {
            "loaded_bindings": (b.binding("input"), b.binding("output"), b.binding("output"))
        },
        [("binding-duplicate", f"{_B}/output")],
        id="binding-duplicate",
    ),
    pytest.param(
        lambda b: {
            "loaded_bindings": (
                b.binding("input", dtype="float16", max_shape=(1, 3, 32, 32)),
                b.binding("output"),
            )
        },
        [
            ("contract-mismatch", f"{_B}/input/dtype"),
            ("contract-mismatch", f"{_B}/input/max_shape"),
        ],
        id="binding-fields",
    ),
    pytest.param(
        lambda b: {"loaded_output": (1.0, 2.5)},
        [("output-mismatch", "engine-round-trip/output")],
        id="output-differs",
    ),
]


@pytest.mark.parametrize(("defect", "expected"), _DEFECTS)
def test_a_broken_round_trip_fails_with_the_finding_that_explains_it(
    build: Builders,
    defect: Callable[[Builders], dict[str, Any]],
    expected: list[tuple[str, str]],
) -> None:
    check = _round_trip(build, **defect(build))
    assert check.status == "failed"
    assert [(finding.code, finding.path) for finding in check.findings] == expected


def test_binding_findings_come_missing_extra_duplicate_then_fields(build: Builders) -> None:
    expected = (build.binding("input"), build.binding("output"), build.binding("mask"))
    loaded = (
        build.binding("input", dtype="int8"),
        build.binding("zeta"),
        build.binding("alpha"),
        build.binding("alpha"),
    )
    check = _round_trip(build, expected_bindings=expected, loaded_bindings=loaded)
    assert [(finding.code, finding.path) for finding in check.findings] == [
        ("binding-missing", f"{_B}/mask"),
        ("binding-missing", f"{_B}/output"),
        ("binding-extra", f"{_B}/alpha"),
        ("binding-extra", f"{_B}/zeta"),
        ("binding-duplicate", f"{_B}/alpha"),
        ("contract-mismatch", f"{_B}/input/dtype"),
    ]


def test_repeated_expected_bindings_are_malformed_evidence(build: Builders) -> None:
    bindings = (build.binding("input"), build.binding("input"), build.binding("output"))
    with pytest.raises(VerificationInputError, match=r"repeated expected binding name\(s\)"):
        _round_trip(build, expected_bindings=bindings)


def test_outputs_are_compared_with_the_module_comparator(build: Builders) -> None:
    seen: list[tuple[object, object]] = []

    def close(left: object, right: object) -> bool:
        seen.append((left, right))
        return True

    suite = build.stateless_suite(
        engine_round_trip=lambda: build.round_trip(loaded_output=(1.0, 2.0001)),
        outputs_equivalent=close,
    )
    assert verify_module_contract(suite).check("engine-round-trip").status == "passed"
    assert ((1.0, 2.0), (1.0, 2.0001)) in seen


def _rejections(build: Builders, name: str, *cases: Any) -> CheckResult:
    field = (
        "engine_incompatibilities" if name == "engine-incompatibility" else "checkpoint_rejections"
    )
    suite = build.stateless_suite(**{field: lambda: cases})
    return verify_module_contract(suite).check(name)


_KINDS = ["engine-incompatibility", "checkpoint-selector-rejection"]


@pytest.mark.parametrize("name", _KINDS)
def test_a_clean_refusal_passes(build: Builders, name: str) -> None:
    assert _rejections(build, name, build.rejection()).status == "passed"


@pytest.mark.req("spec.verification.missing-evidence-unverified")
@pytest.mark.parametrize("name", _KINDS)
def test_no_refusals_leave_the_check_unverified(build: Builders, name: str) -> None:
    assert _rejections(build, name).status == "unverified"


@pytest.mark.parametrize("name", _KINDS)
@pytest.mark.parametrize(
    ("overrides", "paths"),
    [
        ({"error": None}, ["error"]),
        ({"error": ValueError("wrong engine")}, ["error/observed", "error/expected"]),
        ({"error": ValueError("fp16 is not supported")}, ["error/expected"]),
        ({"instance_accepted": True}, ["instance-accepted"]),
        ({"backend_started": True}, ["backend-started"]),
        ({"fallback_events": ("fell back to the normal path",)}, ["fallback-events"]),
    ],
    ids=["no-error", "silent-error", "half-diagnostic", "accepted", "started", "fallback"],
)
def test_a_refusal_must_happen_before_anything_starts_and_say_why(
    build: Builders, name: str, overrides: dict[str, Any], paths: list[str]
) -> None:
    check = _rejections(build, name, build.rejection(**overrides))
    assert check.status == "failed"
    assert [finding.path for finding in check.findings] == [
        f"{name}/fp16-engine/{path}" for path in paths
    ]
    assert {finding.code for finding in check.findings} <= {
        "contract-mismatch",
        "diagnostic-missing",
    }
