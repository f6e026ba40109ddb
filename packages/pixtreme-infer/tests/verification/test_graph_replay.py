"""CudaGraphContractSuite and verify_cuda_graph_contract (facts only, no GPU)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from pixtreme.infer.errors import EvidenceUnavailable
from pixtreme.infer.verification.contracts import (
    CudaGraphContractSuite,
    SequenceFacts,
    VerificationInputError,
    verify_cuda_graph_contract,
    verify_module_contract,
)

if TYPE_CHECKING:
    from conftest import Builders

from .conftest import MODULE_CHECK_ORDER

pytestmark = pytest.mark.req("spec.cuda-graph.verification")


def _suite(
    build: Builders, cases: Callable[[], tuple[SequenceFacts, ...]], *, temporal: bool = False
) -> CudaGraphContractSuite:
    module = build.temporal_suite() if temporal else build.stateless_suite()
    return CudaGraphContractSuite(module, cases)


@pytest.mark.parametrize("temporal", [False, True], ids=["stateless", "temporal"])
def test_the_module_checks_run_unchanged_then_replay_equivalence(
    build: Builders, temporal: bool
) -> None:
    suite = _suite(build, lambda: (build.sequence(3),), temporal=temporal)
    report = verify_cuda_graph_contract(suite)
    assert report.scope == "cuda-graph-contract"
    assert [check.name for check in report.checks] == [
        *MODULE_CHECK_ORDER,
        "graph-replay-equivalence",
    ]
    assert report.checks[:-1] == verify_module_contract(suite.module).checks
    assert report.status == "passed"


@pytest.mark.req("spec.verification.missing-evidence-unverified")
def test_no_replay_sequences_leave_the_check_unverified(build: Builders) -> None:
    check = verify_cuda_graph_contract(_suite(build, lambda: ())).checks[-1]
    assert check.status == "unverified"
    assert [f.code for f in check.findings] == ["evidence-missing"]


@pytest.mark.parametrize(
    ("temporal", "length", "status"),
    [(False, 1, "passed"), (False, 0, "failed"), (True, 2, "failed"), (True, 3, "passed")],
    ids=["stateless-one-call", "stateless-none", "temporal-startup-only", "temporal-startup+1"],
)
def test_sequences_must_cross_the_startup_boundary(
    build: Builders, temporal: bool, length: int, status: str
) -> None:
    suite = _suite(build, lambda: (build.sequence(length),), temporal=temporal)
    check = verify_cuda_graph_contract(suite).checks[-1]
    assert check.status == status
    if status == "failed":
        assert [(f.code, f.path) for f in check.findings] == [
            ("sequence-too-short", "graph-replay-equivalence/length")
        ]


@pytest.mark.parametrize(
    ("cases", "expected"),
    [
        pytest.param(
            lambda b: (b.sequence(3), b.sequence(3, candidate=(0, 4, 2))),
            [("output-mismatch", "graph-replay-equivalence/1")],
            id="changed-values",
        ),
        pytest.param(
            lambda b: (b.sequence(2, candidate_instance="instance-1"),),
            [("instance-shared", "graph-replay-equivalence/instance")],
            id="graph-and-normal-share-an-instance",
        ),
    ],
)
def test_a_graph_that_replays_differently_fails(
    build: Builders,
    cases: Callable[[Builders], tuple[SequenceFacts, ...]],
    expected: list[tuple[str, str]],
) -> None:
    check = verify_cuda_graph_contract(_suite(build, lambda: cases(build))).checks[-1]
    assert (check.status, [(f.code, f.path) for f in check.findings]) == ("failed", expected)


def test_unavailable_replay_evidence_is_unverified(build: Builders) -> None:
    def unavailable() -> tuple[SequenceFacts, ...]:
        raise EvidenceUnavailable(why="needs a GPU", what="no CUDA device", how="run on one")

    check = verify_cuda_graph_contract(_suite(build, unavailable)).checks[-1]
    assert check.status == "unverified"
    assert [f.code for f in check.findings] == ["evidence-unavailable"]


@pytest.mark.parametrize(
    ("suite", "pattern"),
    [
        pytest.param(lambda b: b.stateless_suite(), "CudaGraphContractSuite", id="plain-suite"),
        pytest.param(
            lambda b: CudaGraphContractSuite(b.stateless_suite(), lambda: [1]),  # type: ignore[arg-type,list-item]
            "SequenceFacts",
            id="replay-not-sequences",
        ),
        pytest.param(
            lambda b: CudaGraphContractSuite("module", lambda: ()),  # type: ignore[arg-type]
            "StatelessContractSuite or a TemporalContractSuite",
            id="module-not-a-suite",
        ),
    ],
)
def test_malformed_graph_suites_raise(
    build: Builders, suite: Callable[[Builders], Any], pattern: str
) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        verify_cuda_graph_contract(suite(build))
