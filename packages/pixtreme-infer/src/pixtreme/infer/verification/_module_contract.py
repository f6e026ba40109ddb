"""verify_module_contract: every contract check, in the documented order."""

from __future__ import annotations

from collections.abc import Callable

from pixtreme.infer.errors import EvidenceUnavailable
from pixtreme.infer.verification._facts import (
    ClosedInferenceFacts,
    DlpackAllocationFacts,
    EngineRoundTripFacts,
    FrameBoundaryFacts,
    IsolationFacts,
    OpenedContractFacts,
    QueryAllocationFacts,
    RejectionCase,
    RejectionFacts,
    SequenceFacts,
    StateLifecycleFacts,
    has_error_shape,
)
from pixtreme.infer.verification._results import (
    EVIDENCE_INSUFFICIENT,
    EVIDENCE_MISSING,
    EVIDENCE_RAISED,
    EVIDENCE_TYPE,
    EVIDENCE_UNAVAILABLE,
    CheckResult,
    CheckStatus,
    VerificationFinding,
    VerificationReport,
)
from pixtreme.infer.verification._suites import (
    ModuleContractSuite,
    StatelessContractSuite,
    TemporalContractSuite,
)

COMMON_CHECKS: tuple[str, ...] = (
    "frame-boundary",
    "dlpack-allocation",
    "engine-round-trip",
    "engine-incompatibility",
    "checkpoint-selector-rejection",
    "query-gpu-allocation",
    "opened-contract",
    "closed-inference",
)
TEMPORAL_CHECKS: tuple[str, ...] = (
    "reset-equivalence",
    "reset-continuation",
    "instance-isolation",
    "state-footprint",
)
MODULE_CHECKS: tuple[str, ...] = COMMON_CHECKS + TEMPORAL_CHECKS
"""Every check verify_module_contract reports, in the order it reports them."""

type Findings = tuple[VerificationFinding, ...]


def run_check[T](
    name: str,
    supplier: Callable[[], T] | None,
    fact_type: type[T],
    evaluate: Callable[[T], CheckResult],
) -> CheckResult:
    """Obtain evidence from ``supplier`` and judge it; missing evidence is unverified.

    A supplier raising EvidenceUnavailable gives unverified with its message; any other
    exception, or a result of the wrong type, fails the check.
    """
    if supplier is None:
        return CheckResult.unverified(
            name,
            code=EVIDENCE_MISSING,
            path=name,
            detail=f"no evidence callable was supplied for {name}",
        )
    try:
        facts = supplier()
    except EvidenceUnavailable as error:
        return CheckResult.unverified(name, code=EVIDENCE_UNAVAILABLE, path=name, detail=str(error))
    except Exception as error:
        finding = VerificationFinding(
            code=EVIDENCE_RAISED,
            path=name,
            observed=f"{type(error).__name__}: {error}",
            detail="the evidence callable raised; fix the fixture or raise EvidenceUnavailable",
        )
        return CheckResult(name=name, status=CheckStatus.FAILED, findings=(finding,))
    if not isinstance(facts, fact_type):
        finding = VerificationFinding(
            code=EVIDENCE_TYPE,
            path=name,
            observed=type(facts).__name__,
            expected=fact_type.__name__,
        )
        return CheckResult(name=name, status=CheckStatus.FAILED, findings=(finding,))
    return evaluate(facts)


def _frame_boundary(facts: FrameBoundaryFacts) -> CheckResult:
    findings = [
        VerificationFinding(
            code="frame-field-mismatch",
            path=f"output.{item.field}",
            observed=item.observed,
            expected=item.expected,
        )
        for item in facts.contract.mismatches(facts.observed)
    ]
    if facts.observed_hw != facts.expected_hw:
        findings.append(
            VerificationFinding(
                code="frame-size-mismatch",
                path="output.hw",
                observed=facts.observed_hw,
                expected=facts.expected_hw,
            )
        )
    return CheckResult.from_findings("frame-boundary", tuple(findings))


def _dlpack(facts: DlpackAllocationFacts) -> CheckResult:
    findings: Findings = ()
    if facts.source_pointer != facts.imported_pointer:
        findings = (
            VerificationFinding(
                code="dlpack-copied",
                path="input.data_pointer",
                observed=hex(facts.imported_pointer),
                expected=hex(facts.source_pointer),
                detail="the module imported a copy instead of the caller's storage",
            ),
        )
    return CheckResult.from_findings("dlpack-allocation", findings)


def _engine_round_trip(facts: EngineRoundTripFacts) -> CheckResult:
    findings = []
    if facts.serialized_sha256 != facts.loaded_sha256:
        findings.append(
            VerificationFinding(
                code="engine-digest-mismatch",
                path="engine.sha256",
                observed=facts.loaded_sha256,
                expected=facts.serialized_sha256,
            )
        )
    bindings = facts.bindings
    if bindings is not None and (bindings.inputs, bindings.outputs) != (("input",), ("output",)):
        findings.append(
            VerificationFinding(
                code="engine-bindings",
                path="engine.bindings",
                observed={"inputs": bindings.inputs, "outputs": bindings.outputs},
                expected={"inputs": ["input"], "outputs": ["output"]},
            )
        )
    if facts.serialize_pid == facts.load_pid:
        findings.append(
            VerificationFinding(
                code="same-process",
                path="engine.load_pid",
                observed=facts.load_pid,
                expected=f"a process other than {facts.serialize_pid}",
            )
        )
    return CheckResult.from_findings("engine-round-trip", tuple(findings))


def _rejection_findings(path: str, case: RejectionCase) -> Findings:
    if case.error_type is None:
        return (
            VerificationFinding(
                code="not-rejected",
                path=f"{path}.{case.label}",
                observed="accepted",
                expected="an actionable error",
            ),
        )
    if not has_error_shape(case.message):
        return (
            VerificationFinding(
                code="message-shape",
                path=f"{path}.{case.label}",
                observed=case.message,
                expected="why=...; what=...; how=...",
            ),
        )
    return ()


def _rejections(name: str) -> Callable[[RejectionFacts], CheckResult]:
    def evaluate(facts: RejectionFacts) -> CheckResult:
        findings = tuple(
            finding for case in facts.cases for finding in _rejection_findings(name, case)
        )
        return CheckResult.from_findings(name, findings, detail=f"{len(facts.cases)} case(s)")

    return evaluate


def _query_allocation(facts: QueryAllocationFacts) -> CheckResult:
    findings: Findings = ()
    if facts.bytes_after != facts.bytes_before:
        findings = (
            VerificationFinding(
                code="query-allocated",
                path="query_contract.gpu_bytes",
                observed=facts.bytes_after - facts.bytes_before,
                expected=0,
            ),
        )
    return CheckResult.from_findings("query-gpu-allocation", findings)


def _opened_contract(facts: OpenedContractFacts) -> CheckResult:
    findings: Findings = ()
    if facts.opened != facts.queried:
        findings = (
            VerificationFinding(
                code="contract-mismatch",
                path="open.contract",
                observed=facts.opened,
                expected=facts.queried,
            ),
        )
    return CheckResult.from_findings("opened-contract", findings)


def _closed_inference(facts: ClosedInferenceFacts) -> CheckResult:
    findings = list(_rejection_findings("closed", facts.call_after_close))
    if facts.second_close_error is not None:
        findings.append(
            VerificationFinding(
                code="close-not-idempotent",
                path="close",
                observed=facts.second_close_error,
                expected="a second close() returns without error",
            )
        )
    return CheckResult.from_findings("closed-inference", tuple(findings))


def sequence_check(name: str, facts: SequenceFacts, *, minimum_steps: int) -> CheckResult:
    """Judge compared sequences: too short is unverified, any step over tolerance fails."""
    if len(facts.steps) < minimum_steps:
        finding = VerificationFinding(
            code=EVIDENCE_INSUFFICIENT,
            path=f"{name}.steps",
            observed=len(facts.steps),
            expected=f">= {minimum_steps}",
            detail="the compared sequence is shorter than the module's startup plus one call",
        )
        return CheckResult(name=name, status=CheckStatus.UNVERIFIED, findings=(finding,))
    findings = tuple(
        VerificationFinding(
            code="sequence-mismatch",
            path=f"{name}.{step.label}",
            observed=step.max_abs_difference,
            expected=f"<= {step.tolerance}",
        )
        for step in facts.steps
        if not step.max_abs_difference <= step.tolerance
    )
    return CheckResult.from_findings(name, findings, detail=f"{len(facts.steps)} step(s)")


def _isolation(minimum_steps: int) -> Callable[[IsolationFacts], CheckResult]:
    def evaluate(facts: IsolationFacts) -> CheckResult:
        if facts.instances < 2:
            return CheckResult(
                name="instance-isolation",
                status=CheckStatus.UNVERIFIED,
                findings=(
                    VerificationFinding(
                        code=EVIDENCE_INSUFFICIENT,
                        path="instance-isolation.instances",
                        observed=facts.instances,
                        expected=">= 2",
                    ),
                ),
            )
        return sequence_check("instance-isolation", facts.sequence, minimum_steps=minimum_steps)

    return evaluate


def _state_footprint(facts: StateLifecycleFacts) -> CheckResult:
    findings = []
    opened = facts.after_open.gpu_bytes
    for snapshot, code in (
        (facts.after_calls, "state-growth"),
        (facts.after_reset, "reset-growth"),
    ):
        if snapshot.gpu_bytes > opened:
            findings.append(
                VerificationFinding(
                    code=code,
                    path=f"state.{snapshot.label}",
                    observed=snapshot.gpu_bytes,
                    expected=f"<= {opened} (after open)",
                )
            )
    held = opened - facts.before_open.gpu_bytes
    if held < facts.declared.amount:
        findings.append(
            VerificationFinding(
                code="footprint-exceeds-allocation",
                path="state.declared",
                observed=held,
                expected=f">= {facts.declared.amount} bytes declared",
                detail="the instance holds less memory than the state it declares",
            )
        )
    if facts.after_close.gpu_bytes > facts.before_open.gpu_bytes:
        findings.append(
            VerificationFinding(
                code="close-leak",
                path=f"state.{facts.after_close.label}",
                observed=facts.after_close.gpu_bytes,
                expected=f"<= {facts.before_open.gpu_bytes} (before open)",
            )
        )
    return CheckResult.from_findings("state-footprint", tuple(findings))


def common_checks(suite: ModuleContractSuite) -> list[CheckResult]:
    """The eight checks every module suite runs (also reused by the CUDA Graph suite)."""
    common, factory = suite.common, suite.factory
    return [
        run_check("frame-boundary", common.frame_boundary, FrameBoundaryFacts, _frame_boundary),
        run_check("dlpack-allocation", common.dlpack_allocation, DlpackAllocationFacts, _dlpack),
        run_check(
            "engine-round-trip", common.engine_round_trip, EngineRoundTripFacts, _engine_round_trip
        ),
        run_check(
            "engine-incompatibility",
            common.engine_incompatibility,
            RejectionFacts,
            _rejections("engine-incompatibility"),
        ),
        run_check(
            "checkpoint-selector-rejection",
            common.checkpoint_selector_rejection,
            RejectionFacts,
            _rejections("checkpoint-selector-rejection"),
        ),
        run_check(
            "query-gpu-allocation",
            factory.query_gpu_allocation,
            QueryAllocationFacts,
            _query_allocation,
        ),
        run_check(
            "opened-contract", factory.opened_contract, OpenedContractFacts, _opened_contract
        ),
        run_check(
            "closed-inference", factory.closed_inference, ClosedInferenceFacts, _closed_inference
        ),
    ]


def temporal_checks(suite: ModuleContractSuite) -> list[CheckResult]:
    """Reset, isolation and state checks; not-applicable for a stateless suite."""
    if isinstance(suite, StatelessContractSuite):
        return [
            CheckResult(
                name=name,
                status=CheckStatus.NOT_APPLICABLE,
                detail="stateless module: no temporal state to check",
            )
            for name in TEMPORAL_CHECKS
        ]
    minimum = suite.contract.startup_frames + 1

    def sequences(name: str) -> Callable[[SequenceFacts], CheckResult]:
        return lambda facts: sequence_check(name, facts, minimum_steps=minimum)

    return [
        run_check(
            "reset-equivalence",
            suite.reset_equivalence,
            SequenceFacts,
            sequences("reset-equivalence"),
        ),
        run_check(
            "reset-continuation",
            suite.reset_continuation,
            SequenceFacts,
            sequences("reset-continuation"),
        ),
        run_check(
            "instance-isolation", suite.instance_isolation, IsolationFacts, _isolation(minimum)
        ),
        run_check("state-footprint", suite.state_footprint, StateLifecycleFacts, _state_footprint),
    ]


def verify_module_contract(suite: ModuleContractSuite) -> VerificationReport:
    """Run every module check in MODULE_CHECKS order and return the report.

    Checks: frame-boundary, dlpack-allocation, engine-round-trip, engine-incompatibility,
    checkpoint-selector-rejection, query-gpu-allocation, opened-contract, closed-inference, then
    reset-equivalence, reset-continuation, instance-isolation, state-footprint (not-applicable
    for stateless suites).
    """
    if not isinstance(suite, StatelessContractSuite | TemporalContractSuite):
        from pixtreme.infer.errors import ContractError

        raise ContractError(
            why="verify_module_contract runs a StatelessContractSuite or TemporalContractSuite",
            what=f"received {type(suite).__name__}",
            how="build the suite from the module's evidence callables first",
        )
    checks = (*common_checks(suite), *temporal_checks(suite))
    return VerificationReport(scope=suite.name, checks=checks)
