"""verify_module_contract: check order, evidence handling and each check's judgement."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pixtreme.infer.contracts import (
    FrameContract,
    FrameMetadata,
    StateFootprint,
    StatelessModuleContract,
    TemporalModuleContract,
)
from pixtreme.infer.errors import ContractError, EvidenceUnavailable
from pixtreme.infer.verification import (
    MODULE_CHECKS,
    CheckStatus,
    ClosedInferenceFacts,
    CommonContractCases,
    DlpackAllocationFacts,
    EngineBindingFacts,
    EngineRoundTripFacts,
    FactoryContractCases,
    FrameBoundaryFacts,
    IsolationFacts,
    OpenedContractFacts,
    QueryAllocationFacts,
    RejectionCase,
    RejectionFacts,
    ResourceSnapshot,
    SequenceFacts,
    SequenceStep,
    StatelessContractSuite,
    StateLifecycleFacts,
    TemporalContractSuite,
    verify_module_contract,
)

pytestmark = pytest.mark.req("issue6.module-contract")

SHA = "a" * 64
GOOD_MESSAGE = "why=w; what=x; how=h"


def _raise(message: str) -> Callable[[], None]:
    def call() -> None:
        raise ValueError(message)

    return call


def _good_common(contract: FrameContract) -> CommonContractCases:
    observed = FrameMetadata(
        channels=("R", "G", "B"), colorspace="sRGB", gamma="PQ", matrix=None, dtype="float32"
    )
    rejection = RejectionFacts(cases=(RejectionCase.from_call("bad", _raise(GOOD_MESSAGE)),))
    return CommonContractCases(
        frame_boundary=lambda: FrameBoundaryFacts(
            contract=contract, observed=observed, observed_hw=(64, 96), expected_hw=(64, 96)
        ),
        dlpack_allocation=lambda: DlpackAllocationFacts(source_pointer=4096, imported_pointer=4096),
        engine_round_trip=lambda: EngineRoundTripFacts(
            serialized_sha256=SHA,
            loaded_sha256=SHA,
            serialize_pid=10,
            load_pid=11,
            bindings=EngineBindingFacts(inputs=("input",), outputs=("output",)),
        ),
        engine_incompatibility=lambda: rejection,
        checkpoint_selector_rejection=lambda: rejection,
    )


def _good_factory(contract: object) -> FactoryContractCases:
    return FactoryContractCases(
        query_gpu_allocation=lambda: QueryAllocationFacts(bytes_before=100, bytes_after=100),
        opened_contract=lambda: OpenedContractFacts(queried=contract, opened=contract),
        closed_inference=lambda: ClosedInferenceFacts(
            second_close_error=None,
            call_after_close=RejectionCase.from_call("after-close", _raise(GOOD_MESSAGE)),
        ),
    )


def _steps(count: int, difference: float = 0.0) -> SequenceFacts:
    return SequenceFacts(
        steps=tuple(
            SequenceStep(label=f"call-{i}", max_abs_difference=difference, tolerance=1e-6)
            for i in range(count)
        )
    )


def _lifecycle(declared: int, **overrides: int) -> StateLifecycleFacts:
    sizes = {"before_open": 1000, "after_open": 1000 + declared + 50}
    sizes.update(
        {
            "after_calls": sizes["after_open"],
            "after_reset": sizes["after_open"],
            "after_close": 1000,
        }
    )
    sizes.update(overrides)
    return StateLifecycleFacts(
        declared=StateFootprint(amount=declared),
        **{name: ResourceSnapshot(label=name, gpu_bytes=value) for name, value in sizes.items()},
    )


def _temporal_suite(contract: TemporalModuleContract, **overrides: Any) -> TemporalContractSuite:
    fields: dict[str, Any] = {
        "name": "temporal",
        "contract": contract,
        "common": _good_common(contract.output_frame),
        "factory": _good_factory(contract),
        "reset_equivalence": lambda: _steps(3),
        "reset_continuation": lambda: _steps(4),
        "instance_isolation": lambda: IsolationFacts(instances=2, sequence=_steps(3)),
        "state_footprint": lambda: _lifecycle(contract.state_footprint.amount),
    }
    fields.update(overrides)
    return TemporalContractSuite(**fields)


@pytest.mark.req("issue6.module-contract.order")
def test_every_check_in_documented_order(stateless_contract: StatelessModuleContract) -> None:
    assert MODULE_CHECKS == (
        "frame-boundary",
        "dlpack-allocation",
        "engine-round-trip",
        "engine-incompatibility",
        "checkpoint-selector-rejection",
        "query-gpu-allocation",
        "opened-contract",
        "closed-inference",
        "reset-equivalence",
        "reset-continuation",
        "instance-isolation",
        "state-footprint",
    )
    report = verify_module_contract(
        StatelessContractSuite(
            name="stateless",
            contract=stateless_contract,
            common=_good_common(stateless_contract.output_frame),
            factory=_good_factory(stateless_contract),
        )
    )
    assert tuple(check.name for check in report.checks) == MODULE_CHECKS
    assert [c.status for c in report.checks[:8]] == [CheckStatus.PASSED] * 8
    assert [c.status for c in report.checks[8:]] == [CheckStatus.NOT_APPLICABLE] * 4
    assert report.status is CheckStatus.PASSED


def test_complete_temporal_evidence_passes(temporal_contract: TemporalModuleContract) -> None:
    report = verify_module_contract(_temporal_suite(temporal_contract))
    assert {check.status for check in report.checks} == {CheckStatus.PASSED}


@pytest.mark.req("spec.verification.missing-evidence-unverified")
def test_missing_evidence_is_unverified_never_passed(
    temporal_contract: TemporalModuleContract,
) -> None:
    report = verify_module_contract(TemporalContractSuite(name="bare", contract=temporal_contract))
    assert tuple(check.name for check in report.checks) == MODULE_CHECKS
    for check in report.checks:
        assert check.status is CheckStatus.UNVERIFIED
        assert check.findings[0].code == "evidence-missing"
    assert report.status is CheckStatus.UNVERIFIED


def test_unavailable_raised_and_mistyped_evidence(
    temporal_contract: TemporalModuleContract,
) -> None:
    def unavailable() -> DlpackAllocationFacts:
        raise EvidenceUnavailable(why="needs a GPU", what="no CUDA device", how="run on a GPU")

    def broken() -> EngineRoundTripFacts:
        raise KeyError("engine")

    common = CommonContractCases(
        dlpack_allocation=unavailable,
        engine_round_trip=broken,
        frame_boundary=lambda: "not facts",  # type: ignore[arg-type,return-value]
    )
    report = verify_module_contract(_temporal_suite(temporal_contract, common=common))
    dlpack = report.check("dlpack-allocation")
    assert dlpack.status is CheckStatus.UNVERIFIED
    assert dlpack.findings[0].code == "evidence-unavailable"
    assert "no CUDA device" in dlpack.findings[0].detail
    engine = report.check("engine-round-trip")
    assert engine.status is CheckStatus.FAILED
    assert engine.findings[0].code == "evidence-raised"
    assert engine.findings[0].observed == "KeyError: 'engine'"
    boundary = report.check("frame-boundary")
    assert (boundary.status, boundary.findings[0].code) == (CheckStatus.FAILED, "evidence-type")
    assert report.status is CheckStatus.FAILED


def _codes(report: Any, name: str) -> list[str]:
    return [finding.code for finding in report.check(name).findings]


def test_each_common_check_fails_on_bad_facts(temporal_contract: TemporalModuleContract) -> None:
    contract = temporal_contract
    bad_meta = FrameMetadata(
        channels=("R", "G", "B"), colorspace="Rec.709", gamma="sRGB", matrix=None, dtype="float16"
    )
    common = CommonContractCases(
        frame_boundary=lambda: FrameBoundaryFacts(
            contract=contract.output_frame,
            observed=bad_meta,
            observed_hw=(32, 47),
            expected_hw=(32, 48),
        ),
        dlpack_allocation=lambda: DlpackAllocationFacts(source_pointer=1, imported_pointer=2),
        engine_round_trip=lambda: EngineRoundTripFacts(
            serialized_sha256=SHA,
            loaded_sha256="b" * 64,
            serialize_pid=5,
            load_pid=5,
            bindings=EngineBindingFacts(inputs=("images",), outputs=("output",)),
        ),
        engine_incompatibility=lambda: RejectionFacts(
            cases=(RejectionCase.from_call("accepted", lambda: None),)
        ),
        checkpoint_selector_rejection=lambda: RejectionFacts(
            cases=(RejectionCase.from_call("terse", _raise("bad selector")),)
        ),
    )
    factory = FactoryContractCases(
        query_gpu_allocation=lambda: QueryAllocationFacts(bytes_before=100, bytes_after=612),
        opened_contract=lambda: OpenedContractFacts(queried=contract, opened="other"),
        closed_inference=lambda: ClosedInferenceFacts(
            second_close_error="RuntimeError: closed twice",
            call_after_close=RejectionCase(label="after-close", error_type=None),
        ),
    )
    report = verify_module_contract(_temporal_suite(contract, common=common, factory=factory))
    assert _codes(report, "frame-boundary") == [
        "frame-field-mismatch",
        "frame-field-mismatch",
        "frame-size-mismatch",
    ]
    assert report.check("frame-boundary").findings[0].path == "output.colorspace"
    assert _codes(report, "dlpack-allocation") == ["dlpack-copied"]
    assert _codes(report, "engine-round-trip") == [
        "engine-digest-mismatch",
        "engine-bindings",
        "same-process",
    ]
    assert _codes(report, "engine-incompatibility") == ["not-rejected"]
    assert _codes(report, "checkpoint-selector-rejection") == ["message-shape"]
    assert _codes(report, "query-gpu-allocation") == ["query-allocated"]
    assert report.check("query-gpu-allocation").findings[0].observed == 512
    assert _codes(report, "opened-contract") == ["contract-mismatch"]
    assert _codes(report, "closed-inference") == ["not-rejected", "close-not-idempotent"]
    assert all(c.status is CheckStatus.FAILED for c in report.checks[:8])


def test_temporal_checks_judge_sequences_and_state(
    temporal_contract: TemporalModuleContract,
) -> None:
    declared = temporal_contract.state_footprint.amount
    suite = _temporal_suite(
        temporal_contract,
        reset_equivalence=lambda: _steps(2),  # startup_frames=2 needs >= 3 steps
        reset_continuation=lambda: _steps(3, difference=0.25),
        instance_isolation=lambda: IsolationFacts(instances=1, sequence=_steps(3)),
        state_footprint=lambda: _lifecycle(
            declared, after_calls=1000 + declared + 999, after_close=2000
        ),
    )
    report = verify_module_contract(suite)
    equivalence = report.check("reset-equivalence")
    assert equivalence.status is CheckStatus.UNVERIFIED
    assert equivalence.findings[0].code == "evidence-insufficient"
    assert equivalence.findings[0].expected == ">= 3"
    assert _codes(report, "reset-continuation") == ["sequence-mismatch"] * 3
    assert report.check("instance-isolation").status is CheckStatus.UNVERIFIED
    assert _codes(report, "state-footprint") == ["state-growth", "close-leak"]
    undercounted = verify_module_contract(
        _temporal_suite(
            temporal_contract,
            state_footprint=lambda: _lifecycle(
                declared, after_open=1010, after_calls=1010, after_reset=1010
            ),
        )
    )
    assert _codes(undercounted, "state-footprint") == ["footprint-exceeds-allocation"]


def test_non_finite_difference_fails_the_sequence(
    temporal_contract: TemporalModuleContract,
) -> None:
    report = verify_module_contract(
        _temporal_suite(temporal_contract, reset_equivalence=lambda: _steps(3, float("inf")))
    )
    assert report.check("reset-equivalence").status is CheckStatus.FAILED


def test_verify_module_contract_rejects_other_values() -> None:
    with pytest.raises(
        ContractError, match="runs a StatelessContractSuite or TemporalContractSuite"
    ):
        verify_module_contract("suite")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda c: StatelessContractSuite(name="", contract=c), "name must be a non-empty"),
        (lambda c: StatelessContractSuite(name="s", contract="c"), "contract must be a Stateless"),
        (
            lambda c: StatelessContractSuite(name="s", contract=c, common=FactoryContractCases()),
            "common must be a CommonContractCases",
        ),
        (
            lambda c: StatelessContractSuite(name="s", contract=c, factory=CommonContractCases()),
            "factory must be a FactoryContractCases",
        ),
        (lambda c: TemporalContractSuite(name="t", contract=c), "contract must be a Temporal"),
    ],
    ids=["name", "contract", "common", "factory", "temporal-contract"],
)
def test_suites_reject(
    stateless_contract: StatelessModuleContract, make: Callable[[Any], object], pattern: str
) -> None:
    with pytest.raises(ContractError, match=pattern):
        make(stateless_contract)


def test_stateless_suite_rejects_a_temporal_contract(
    temporal_contract: TemporalModuleContract,
) -> None:
    with pytest.raises(ContractError, match="use TemporalContractSuite"):
        StatelessContractSuite(name="s", contract=temporal_contract)


@pytest.mark.req("issue6.facts")
@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda: DlpackAllocationFacts(source_pointer=-1, imported_pointer=0), "source_pointer"),
        (
            lambda: EngineRoundTripFacts(
                serialized_sha256="ABC", loaded_sha256=SHA, serialize_pid=1, load_pid=2
            ),
            "serialized_sha256 must be 64 lower-case hex digits",
        ),
        (
            lambda: EngineRoundTripFacts(
                serialized_sha256=SHA, loaded_sha256=SHA, serialize_pid=0, load_pid=2
            ),
            "serialize_pid must be an int >= 1",
        ),
        (lambda: EngineBindingFacts(inputs=["input"], outputs=()), "inputs must be a tuple"),
        (lambda: EngineBindingFacts(inputs=(), outputs=("",)), "outputs must be a tuple"),
        (
            lambda: EngineRoundTripFacts(
                serialized_sha256=SHA,
                loaded_sha256=SHA,
                serialize_pid=1,
                load_pid=2,
                bindings=("input",),
            ),
            "bindings must be a EngineBindingFacts",
        ),
        (lambda: QueryAllocationFacts(bytes_before=1.5, bytes_after=1), "bytes_before"),
        (lambda: RejectionFacts(cases=()), "cases must be a non-empty tuple"),
        (lambda: RejectionCase(label="", error_type=None), "label must be a non-empty"),
        (
            lambda: ClosedInferenceFacts(second_close_error=None, call_after_close="x"),
            "call_after_close must be a RejectionCase",
        ),
        (lambda: SequenceStep(label="s", max_abs_difference=float("nan")), "max_abs_difference"),
        (lambda: SequenceStep(label="s", max_abs_difference=0.0, tolerance=-1), "tolerance"),
        (lambda: SequenceFacts(steps=("x",)), "steps must be a tuple of SequenceStep"),
        (lambda: IsolationFacts(instances=0, sequence=SequenceFacts(steps=())), "instances"),
        (lambda: ResourceSnapshot(label="x", gpu_bytes=-5), "gpu_bytes"),
        (
            lambda: StateLifecycleFacts(
                declared=8,
                before_open=None,
                after_open=None,
                after_calls=None,
                after_reset=None,
                after_close=None,
            ),
            "declared must be a StateFootprint",
        ),
    ],
    ids=[
        "pointer",
        "sha",
        "pid",
        "bindings-list",
        "bindings-blank",
        "bindings-type",
        "query-bytes",
        "rejections-empty",
        "rejection-label",
        "closed",
        "step-nan",
        "step-tolerance",
        "sequence",
        "isolation",
        "snapshot",
        "lifecycle",
    ],
)
def test_fact_records_reject(make: Callable[[], object], pattern: str) -> None:
    with pytest.raises(ContractError, match=pattern):
        make()


@pytest.mark.req("issue6.facts")
def test_rejection_case_from_call_records_type_and_message() -> None:
    case = RejectionCase.from_call("bad", _raise(GOOD_MESSAGE))
    assert (case.error_type, case.message) == ("ValueError", GOOD_MESSAGE)
    assert RejectionCase.from_call("fine", lambda: 1).error_type is None
