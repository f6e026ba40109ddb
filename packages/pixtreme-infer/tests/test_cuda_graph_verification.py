"""CudaGraphContractSuite and verify_cuda_graph_contract (no GPU: evidence is facts)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pixtreme.infer.contracts import StatelessModuleContract, TemporalModuleContract
from pixtreme.infer.errors import ContractError, EvidenceUnavailable
from pixtreme.infer.verification import (
    CheckStatus,
    CudaGraphContractSuite,
    OpenedContractFacts,
    SequenceFacts,
    SequenceStep,
    StatelessContractSuite,
    TemporalContractSuite,
    verify_cuda_graph_contract,
    verify_module_contract,
)
from pixtreme.infer.verification import FactoryContractCases as Factory
from pixtreme.infer.verification._cuda_graph import CUDA_GRAPH_CHECKS, GRAPH_REPLAY_CHECK

REPLAY_STEPS = ("first-call", "continuation", "changed-values", "changed-metadata", "reset")


def _sequence(*differences: float, tolerance: float = 0.0) -> SequenceFacts:
    return SequenceFacts(
        steps=tuple(
            SequenceStep(label=f"step-{index}", max_abs_difference=value, tolerance=tolerance)
            for index, value in enumerate(differences)
        )
    )


def _stateless(contract: StatelessModuleContract) -> StatelessContractSuite:
    return StatelessContractSuite(
        name="example-graph",
        contract=contract,
        factory=Factory(
            opened_contract=lambda: OpenedContractFacts(queried=contract, opened=contract)
        ),
    )


def _temporal(contract: TemporalModuleContract) -> TemporalContractSuite:
    return TemporalContractSuite(name="example-temporal-graph", contract=contract)


def test_check_names_extend_module_checks_in_order(
    stateless_contract: StatelessModuleContract,
) -> None:
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(module=_stateless(stateless_contract))
    )
    assert tuple(check.name for check in report.checks) == CUDA_GRAPH_CHECKS
    assert CUDA_GRAPH_CHECKS[-1] == GRAPH_REPLAY_CHECK == "graph-replay-equivalence"
    assert report.scope == "example-graph"


def test_module_checks_run_unchanged(stateless_contract: StatelessModuleContract) -> None:
    module = _stateless(stateless_contract)
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(module=module, replay_equivalence=lambda: _sequence(0.0))
    )
    assert report.checks[:-1] == verify_module_contract(module).checks
    assert report.check("opened-contract").status is CheckStatus.PASSED
    assert report.check("reset-equivalence").status is CheckStatus.NOT_APPLICABLE


def test_missing_replay_evidence_is_unverified(stateless_contract: StatelessModuleContract) -> None:
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(module=_stateless(stateless_contract))
    )
    check = report.check(GRAPH_REPLAY_CHECK)
    assert check.status is CheckStatus.UNVERIFIED
    assert [finding.code for finding in check.findings] == ["evidence-missing"]
    assert report.status is CheckStatus.UNVERIFIED


def test_equal_replay_passes(stateless_contract: StatelessModuleContract) -> None:
    steps = SequenceFacts(
        steps=tuple(SequenceStep(label=label, max_abs_difference=0.0) for label in REPLAY_STEPS)
    )
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(
            module=_stateless(stateless_contract), replay_equivalence=lambda: steps
        )
    )
    check = report.check(GRAPH_REPLAY_CHECK)
    assert check.status is CheckStatus.PASSED
    assert check.detail == "5 step(s)"


@pytest.mark.parametrize(
    ("differences", "tolerance", "failing"),
    [
        pytest.param((0.0, 0.5, 0.0), 0.0, ["step-1"], id="one-step-over"),
        pytest.param((1e-3, 2e-3), 1e-3, ["step-1"], id="over-tolerance"),
        pytest.param((float("inf"),), 1.0, ["step-0"], id="non-finite"),
        pytest.param((0.2, 0.3), 0.1, ["step-0", "step-1"], id="every-step"),
    ],
)
def test_replay_difference_over_tolerance_fails(
    stateless_contract: StatelessModuleContract,
    differences: tuple[float, ...],
    tolerance: float,
    failing: list[str],
) -> None:
    facts = _sequence(*differences, tolerance=tolerance)
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(
            module=_stateless(stateless_contract), replay_equivalence=lambda: facts
        )
    )
    check = report.check(GRAPH_REPLAY_CHECK)
    assert check.status is CheckStatus.FAILED
    assert [finding.path for finding in check.findings] == [
        f"{GRAPH_REPLAY_CHECK}.{label}" for label in failing
    ]
    assert {finding.code for finding in check.findings} == {"sequence-mismatch"}
    assert report.status is CheckStatus.FAILED


def test_within_tolerance_passes(stateless_contract: StatelessModuleContract) -> None:
    facts = _sequence(1e-4, 1e-3, tolerance=1e-3)
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(
            module=_stateless(stateless_contract), replay_equivalence=lambda: facts
        )
    )
    assert report.check(GRAPH_REPLAY_CHECK).status is CheckStatus.PASSED


@pytest.mark.parametrize(
    ("steps", "status"),
    [
        pytest.param(0, CheckStatus.UNVERIFIED, id="empty"),
        pytest.param(2, CheckStatus.UNVERIFIED, id="startup-only"),
        pytest.param(3, CheckStatus.PASSED, id="startup-plus-one"),
        pytest.param(5, CheckStatus.PASSED, id="longer"),
    ],
)
def test_temporal_replay_needs_startup_plus_one_call(
    temporal_contract: TemporalModuleContract, steps: int, status: CheckStatus
) -> None:
    assert temporal_contract.startup_frames == 2
    facts = _sequence(*([0.0] * steps))
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(
            module=_temporal(temporal_contract), replay_equivalence=lambda: facts
        )
    )
    check = report.check(GRAPH_REPLAY_CHECK)
    assert check.status is status
    if status is CheckStatus.UNVERIFIED:
        assert [finding.code for finding in check.findings] == ["evidence-insufficient"]
        assert check.findings[0].observed == steps


def test_stateless_replay_needs_one_call(stateless_contract: StatelessModuleContract) -> None:
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(module=_stateless(stateless_contract), replay_equivalence=_sequence)
    )
    assert report.check(GRAPH_REPLAY_CHECK).status is CheckStatus.UNVERIFIED


def _unavailable() -> SequenceFacts:
    raise EvidenceUnavailable(
        why="graph replay needs a CUDA GPU",
        what="no CUDA device is visible",
        how="run on a machine with a GPU",
    )


def _raises() -> SequenceFacts:
    raise RuntimeError("fixture broke")


@pytest.mark.parametrize(
    ("supplier", "status", "code"),
    [
        pytest.param(
            _unavailable, CheckStatus.UNVERIFIED, "evidence-unavailable", id="unavailable"
        ),
        pytest.param(_raises, CheckStatus.FAILED, "evidence-raised", id="raised"),
        pytest.param(lambda: [0.0], CheckStatus.FAILED, "evidence-type", id="wrong-type"),
    ],
)
def test_unusable_replay_evidence(
    stateless_contract: StatelessModuleContract,
    supplier: Callable[[], SequenceFacts],
    status: CheckStatus,
    code: str,
) -> None:
    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(module=_stateless(stateless_contract), replay_equivalence=supplier)
    )
    check = report.check(GRAPH_REPLAY_CHECK)
    assert check.status is status
    assert [finding.code for finding in check.findings] == [code]


def test_suite_rejects_a_non_suite_module(stateless_contract: StatelessModuleContract) -> None:
    with pytest.raises(ContractError, match=r"CudaGraphContractSuite\.module"):
        CudaGraphContractSuite(module=stateless_contract)  # type: ignore[arg-type]


def test_suite_rejects_non_callable_evidence(stateless_contract: StatelessModuleContract) -> None:
    with pytest.raises(ContractError, match="replay_equivalence"):
        CudaGraphContractSuite(
            module=_stateless(stateless_contract),
            replay_equivalence=_sequence(0.0),  # type: ignore[arg-type]
        )


def test_verify_rejects_a_plain_module_suite(stateless_contract: StatelessModuleContract) -> None:
    with pytest.raises(ContractError, match="CudaGraphContractSuite"):
        verify_cuda_graph_contract(_stateless(stateless_contract))  # type: ignore[arg-type]


def test_report_record_is_json_ready(temporal_contract: TemporalModuleContract) -> None:
    import json

    report = verify_cuda_graph_contract(
        CudaGraphContractSuite(
            module=_temporal(temporal_contract),
            replay_equivalence=lambda: _sequence(0.0, 0.0, 0.25),
        )
    )
    record = json.loads(json.dumps(report.as_record()))
    assert record["checks"][-1]["name"] == GRAPH_REPLAY_CHECK
    assert record["checks"][-1]["status"] == "failed"
