"""verify_module_contract: check order, suite validation and what providers' failures become."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from pixtreme.infer.errors import EvidenceUnavailable
from pixtreme.infer.verification.contracts import (
    CommonContractCases,
    StatelessContractSuite,
    TemporalContractSuite,
    VerificationInputError,
    verify_module_contract,
)
from pixtreme.infer.verification.measurement import LatencySummary, summarize_latency

if TYPE_CHECKING:
    from conftest import Builders

from .conftest import MODULE_CHECK_ORDER

pytestmark = pytest.mark.req("spec.verification.module-contract")


# (where the provider lives, its field, the check it feeds)
_PROVIDERS = [
    ("common", "frame_boundaries", "frame-boundary"),
    ("common", "dlpack_allocations", "dlpack-allocation"),
    ("common", "engine_round_trip", "engine-round-trip"),
    ("common", "engine_incompatibilities", "engine-incompatibility"),
    ("common", "checkpoint_rejections", "checkpoint-selector-rejection"),
    ("factory", "query_allocations", "query-gpu-allocation"),
    ("factory", "opened_contracts", "opened-contract"),
    ("factory", "closed_inference", "closed-inference"),
    ("suite", "reset_equivalence", "reset-equivalence"),
    ("suite", "reset_continuation", "reset-continuation"),
    ("suite", "instance_isolation", "instance-isolation"),
    ("suite", "state_lifecycle", "state-footprint"),
    ("suite", "normalize_footprint", "state-footprint"),
]
_IDS = [f"{field}" for _, field, _ in _PROVIDERS]


def _with_provider(
    build: Builders, place: str, field: str, provider: object
) -> TemporalContractSuite:
    if place == "common":
        return build.temporal_suite(build.temporal_common(**{field: provider}))
    if place == "factory":
        factory = build.factory(**{field: provider})
        return build.temporal_suite(build.temporal_common(factory=factory))
    return build.temporal_suite(**{field: provider})


@pytest.mark.parametrize("kind", ["stateless", "temporal"])
def test_every_check_is_reported_once_in_the_documented_order(build: Builders, kind: str) -> None:
    suite = build.stateless_suite() if kind == "stateless" else build.temporal_suite()
    report = verify_module_contract(suite)
    assert report.scope == "module-contract"
    assert [check.name for check in report.checks] == MODULE_CHECK_ORDER
    assert report.status == "passed"


def test_suites_are_positional_frozen_dataclasses(build: Builders) -> None:
    common = build.common()
    suite = StatelessContractSuite(build.stateless(), common)
    assert suite.common is common
    assert (
        CommonContractCases(
            *(
                getattr(common, name)
                for name in (
                    "frame_boundaries",
                    "dlpack_allocations",
                    "engine_round_trip",
                    "engine_incompatibilities",
                    "checkpoint_rejections",
                    "outputs_equivalent",
                )
            )
        ).factory
        is None
    )


def test_case_lists_are_accepted_like_tuples(build: Builders) -> None:
    suite = build.stateless_suite(frame_boundaries=lambda: [build.accepted()])
    assert verify_module_contract(suite).check("frame-boundary").status == "passed"


@pytest.mark.parametrize(
    ("suite", "pattern"),
    [
        pytest.param(
            lambda b: StatelessContractSuite(b.temporal(), b.common()),
            "StatelessContractSuite.contract is TemporalModuleContract",
            id="stateless-with-temporal-contract",
        ),
        pytest.param(
            lambda b: b.temporal_suite(contract=b.stateless()),
            "TemporalContractSuite.contract is StatelessModuleContract",
            id="temporal-with-stateless-contract",
        ),
        pytest.param(lambda b: b.common(), "received CommonContractCases", id="not-a-suite"),
        pytest.param(
            lambda b: StatelessContractSuite(b.stateless(), "common"),  # type: ignore[arg-type]
            "suite.common is str",
            id="common-not-cases",
        ),
        pytest.param(
            lambda b: b.stateless_suite(factory="factory"),
            "factory is FactoryContractCases or None",
            id="factory-not-cases",
        ),
        pytest.param(
            lambda b: b.stateless_suite(dlpack_allocations=(b.allocation(),)),
            "supplies evidence through a callable",
            id="evidence-not-callable",
        ),
    ],
)
def test_malformed_suites_raise_verification_input_error(
    build: Builders, suite: Callable[[Builders], Any], pattern: str
) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        verify_module_contract(suite(build))


@pytest.mark.req("spec.verification.missing-evidence-unverified")
@pytest.mark.parametrize(("place", "field", "check"), _PROVIDERS, ids=_IDS)
def test_unavailable_evidence_leaves_only_its_check_unverified(
    build: Builders, raises: Callable[[BaseException], Any], place: str, field: str, check: str
) -> None:
    error = EvidenceUnavailable(why="needs a GPU", what="no CUDA device here", how="run on one")
    report = verify_module_contract(_with_provider(build, place, field, raises(error)))
    result = report.check(check)
    assert result.status == "unverified"
    (finding,) = result.findings
    assert (finding.code, finding.path, finding.observed) == (
        "evidence-unavailable",
        check,
        "no CUDA device here",
    )
    assert "how=run on one" in finding.detail
    others = [c.status for c in report.checks if c.name != check]
    assert set(others) == {"passed"}


@pytest.mark.parametrize(("place", "field", "check"), _PROVIDERS, ids=_IDS)
def test_a_provider_exception_propagates_unchanged(
    build: Builders, raises: Callable[[BaseException], Any], place: str, field: str, check: str
) -> None:
    error = RuntimeError(f"the {check} fixture broke")
    with pytest.raises(RuntimeError) as caught:
        verify_module_contract(_with_provider(build, place, field, raises(error)))
    assert caught.value is error


@pytest.mark.req("spec.verification.performance-not-status")
@pytest.mark.parametrize(
    ("place", "field", "check"),
    [provider for provider in _PROVIDERS if provider[1] != "normalize_footprint"],
    ids=[field for field in _IDS if field != "normalize_footprint"],
)
@pytest.mark.parametrize(
    "measurement",
    [lambda: summarize_latency((1.0, 2.0)), lambda: (summarize_latency((1.0,)),)],
    ids=["summary", "tuple-of-summaries"],
)
def test_a_measurement_can_never_stand_in_for_evidence(
    build: Builders,
    place: str,
    field: str,
    check: str,
    measurement: Callable[[], LatencySummary | tuple[LatencySummary, ...]],
) -> None:
    with pytest.raises(VerificationInputError, match=r"LatencySummary|tuple"):
        verify_module_contract(_with_provider(build, place, field, measurement))
