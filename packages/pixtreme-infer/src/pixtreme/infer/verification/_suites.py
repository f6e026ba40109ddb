"""Contract suites and verify_module_contract: one entry that runs every module check in order.

Order: frame-boundary, dlpack-allocation, engine-round-trip, engine-incompatibility,
checkpoint-selector-rejection, query-gpu-allocation, opened-contract, closed-inference, then
reset-equivalence, reset-continuation, instance-isolation and state-footprint (not-applicable
for stateless modules).

A provider that raises ``pixtreme.infer.errors.EvidenceUnavailable`` leaves its check
unverified. Any other exception propagates from verify_module_contract; the architecture hook
(``verify_cases``) runs the same checks with every failure contained in its own check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pixtreme.infer import StatelessModuleContract, TemporalModuleContract
from pixtreme.infer.errors import EvidenceUnavailable
from pixtreme.infer.verification._engine import (
    CHECKPOINT_SELECTOR_REJECTION,
    ENGINE_INCOMPATIBILITY,
    ENGINE_ROUND_TRIP,
    EngineRoundTripFacts,
    RejectionFacts,
    _judge_rejections,
    _judge_round_trip,
)
from pixtreme.infer.verification._factory import (
    CLOSED_INFERENCE,
    OPENED_CONTRACT,
    QUERY_GPU_ALLOCATION,
    ClosedInferenceFacts,
    FactoryContractCases,
    OpenedContractFacts,
    QueryAllocationFacts,
    ResourceSnapshot,
    _judge_closed_inference,
    _judge_opened_contracts,
    _judge_query_allocations,
    _missing_factory,
)
from pixtreme.infer.verification._frame_boundary import (
    DLPACK_ALLOCATION,
    FRAME_BOUNDARY,
    AllocationFacts,
    FrameBoundaryFacts,
    _judge_dlpack,
    _judge_frame_boundaries,
)
from pixtreme.infer.verification._results import (
    EVIDENCE_INVALID,
    EVIDENCE_RAISED,
    EVIDENCE_UNAVAILABLE,
    CheckResult,
    VerificationInputError,
    VerificationReport,
    _facts_item,
    _facts_tuple,
    _finding,
)
from pixtreme.infer.verification._temporal import (
    INSTANCE_ISOLATION,
    RESET_CONTINUATION,
    RESET_EQUIVALENCE,
    STATE_FOOTPRINT,
    TEMPORAL_CHECKS,
    IsolationFacts,
    SequenceFacts,
    StateLifecycleFacts,
    _judge_footprint,
    _judge_isolation,
    _judge_sequence,
)

MODULE_CHECKS = (
    FRAME_BOUNDARY,
    DLPACK_ALLOCATION,
    ENGINE_ROUND_TRIP,
    ENGINE_INCOMPATIBILITY,
    CHECKPOINT_SELECTOR_REJECTION,
    QUERY_GPU_ALLOCATION,
    OPENED_CONTRACT,
    CLOSED_INFERENCE,
    *TEMPORAL_CHECKS,
)
"""Every check verify_module_contract reports, in order."""


@dataclass(frozen=True)
class CommonContractCases:
    """Evidence every module supplies, through callables so the core needs no GPU.

    ``outputs_equivalent`` decides whether two outputs match (the module owns its thresholds);
    without ``factory`` the factory checks are unverified.
    """

    frame_boundaries: Callable[[], tuple[FrameBoundaryFacts, ...]]
    dlpack_allocations: Callable[[], tuple[AllocationFacts, ...]]
    engine_round_trip: Callable[[], EngineRoundTripFacts]
    engine_incompatibilities: Callable[[], tuple[RejectionFacts, ...]]
    checkpoint_rejections: Callable[[], tuple[RejectionFacts, ...]]
    outputs_equivalent: Callable[[object, object], bool]
    factory: FactoryContractCases | None = None


@dataclass(frozen=True)
class StatelessContractSuite:
    """The evidence of one stateless module; its temporal checks are not-applicable."""

    contract: StatelessModuleContract
    common: CommonContractCases


@dataclass(frozen=True)
class TemporalContractSuite:
    """The evidence of one temporal module: the common cases plus reset, isolation and state.

    ``normalize_footprint`` turns the contract's declared state footprint into a
    ResourceSnapshot without allocations, comparable by ``resources_equivalent``.
    """

    contract: TemporalModuleContract[object]
    common: CommonContractCases
    reset_equivalence: Callable[[], SequenceFacts]
    reset_continuation: Callable[[], SequenceFacts]
    instance_isolation: Callable[[], IsolationFacts]
    state_lifecycle: Callable[[], StateLifecycleFacts]
    normalize_footprint: Callable[[object], ResourceSnapshot]
    resources_equivalent: Callable[[ResourceSnapshot, ResourceSnapshot], bool]


_Suite = StatelessContractSuite | TemporalContractSuite


class _Evidence:
    """Runs each check's provider and judge; decides what an exception from them becomes.

    EvidenceUnavailable always makes the check unverified. With ``contain`` every other
    exception fails only its own check; without it, the exception propagates.
    """

    def __init__(self, *, contain: bool) -> None:
        self._contain = contain

    def check(self, name: str, judge: Callable[[], CheckResult]) -> CheckResult:
        try:
            return judge()
        except EvidenceUnavailable as error:
            finding = _finding(EVIDENCE_UNAVAILABLE, name, error.what, "evidence", str(error))
            return CheckResult(name, "unverified", (finding,))
        except VerificationInputError as error:
            if not self._contain:
                raise
            finding = _finding(
                EVIDENCE_INVALID,
                name,
                str(error),
                "facts that satisfy the verification contract",
                "the supplied facts cannot be judged",
            )
            return CheckResult(name, "failed", (finding,))
        except Exception as error:
            if not self._contain:
                raise
            finding = _finding(
                EVIDENCE_RAISED,
                name,
                f"{type(error).__name__}: {error}",
                "evidence facts",
                "gathering or judging the evidence raised",
            )
            return CheckResult(name, "failed", (finding,))


def _provide(name: str, provider: object, label: str) -> object:
    """Call one evidence provider after checking that it is callable."""
    if not callable(provider):
        raise VerificationInputError(
            why=f"{label} supplies evidence through a callable",
            what=f"{name}: {label} is {type(provider).__name__}",
            how=f"pass {label}=lambda: ... returning the facts",
        )
    return provider()


def _typed_cases[T](name: str, provider: object, kind: type[T], label: str) -> tuple[T, ...]:
    return _facts_tuple(name, _provide(name, provider, label), kind, label=label)  # type: ignore[return-value]


def _typed_facts[T](name: str, provider: object, kind: type[T], label: str) -> T:
    value = _provide(name, provider, label)
    _facts_item(name, value, kind, label=label)
    return value  # type: ignore[return-value]


def _common_checks(
    common: CommonContractCases,
    contract: StatelessModuleContract | TemporalModuleContract[object],
    run: _Evidence,
) -> list[CheckResult]:
    equivalent = common.outputs_equivalent

    def boundary() -> CheckResult:
        cases = _typed_cases(
            FRAME_BOUNDARY, common.frame_boundaries, FrameBoundaryFacts, "frame_boundaries"
        )
        return _judge_frame_boundaries(cases, contract)

    def dlpack() -> CheckResult:
        cases = _typed_cases(
            DLPACK_ALLOCATION, common.dlpack_allocations, AllocationFacts, "dlpack_allocations"
        )
        return _judge_dlpack(cases)

    def round_trip() -> CheckResult:
        facts = _typed_facts(
            ENGINE_ROUND_TRIP, common.engine_round_trip, EngineRoundTripFacts, "engine_round_trip"
        )
        return _judge_round_trip(facts, equivalent)

    def rejections(name: str, provider: object, label: str) -> Callable[[], CheckResult]:
        return lambda: _judge_rejections(name, _typed_cases(name, provider, RejectionFacts, label))

    return [
        run.check(FRAME_BOUNDARY, boundary),
        run.check(DLPACK_ALLOCATION, dlpack),
        run.check(ENGINE_ROUND_TRIP, round_trip),
        run.check(
            ENGINE_INCOMPATIBILITY,
            rejections(
                ENGINE_INCOMPATIBILITY, common.engine_incompatibilities, "engine_incompatibilities"
            ),
        ),
        run.check(
            CHECKPOINT_SELECTOR_REJECTION,
            rejections(
                CHECKPOINT_SELECTOR_REJECTION, common.checkpoint_rejections, "checkpoint_rejections"
            ),
        ),
    ]


def _factory_checks(factory: FactoryContractCases | None, run: _Evidence) -> list[CheckResult]:
    if factory is None:
        return list(_missing_factory())
    if not isinstance(factory, FactoryContractCases):
        raise VerificationInputError(
            why="CommonContractCases.factory is FactoryContractCases or None",
            what=f"received {type(factory).__name__}",
            how="pass factory=FactoryContractCases(...) or leave it None",
        )
    return [
        run.check(
            QUERY_GPU_ALLOCATION,
            lambda: _judge_query_allocations(
                _typed_cases(
                    QUERY_GPU_ALLOCATION,
                    factory.query_allocations,
                    QueryAllocationFacts,
                    "query_allocations",
                ),
                factory.resources_equivalent,
            ),
        ),
        run.check(
            OPENED_CONTRACT,
            lambda: _judge_opened_contracts(
                _typed_cases(
                    OPENED_CONTRACT,
                    factory.opened_contracts,
                    OpenedContractFacts,
                    "opened_contracts",
                )
            ),
        ),
        run.check(
            CLOSED_INFERENCE,
            lambda: _judge_closed_inference(
                _typed_cases(
                    CLOSED_INFERENCE,
                    factory.closed_inference,
                    ClosedInferenceFacts,
                    "closed_inference",
                )
            ),
        ),
    ]


def _temporal_checks(suite: TemporalContractSuite, run: _Evidence) -> list[CheckResult]:
    equivalent = suite.common.outputs_equivalent
    startup = suite.contract.startup_frames

    def sequence(name: str, provider: object, label: str, minimum: int) -> CheckResult:
        facts = _typed_facts(name, provider, SequenceFacts, label)
        return _judge_sequence(name, facts, minimum, equivalent)

    def isolation() -> CheckResult:
        facts = _typed_facts(
            INSTANCE_ISOLATION, suite.instance_isolation, IsolationFacts, "instance_isolation"
        )
        return _judge_isolation(facts, equivalent)

    def footprint() -> CheckResult:
        normalize = suite.normalize_footprint
        if not callable(normalize):
            raise VerificationInputError(
                why="normalize_footprint converts the declared footprint to a ResourceSnapshot",
                what=f"{STATE_FOOTPRINT}: normalize_footprint is {type(normalize).__name__}",
                how="pass normalize_footprint=lambda footprint: ResourceSnapshot(...)",
            )
        declared = normalize(suite.contract.state_footprint)
        _facts_item(STATE_FOOTPRINT, declared, ResourceSnapshot, label="normalize_footprint()")
        facts = _typed_facts(
            STATE_FOOTPRINT, suite.state_lifecycle, StateLifecycleFacts, "state_lifecycle"
        )
        return _judge_footprint(declared, facts, suite.resources_equivalent)

    return [
        run.check(
            RESET_EQUIVALENCE,
            lambda: sequence(
                RESET_EQUIVALENCE, suite.reset_equivalence, "reset_equivalence", startup + 1
            ),
        ),
        run.check(
            RESET_CONTINUATION,
            lambda: sequence(RESET_CONTINUATION, suite.reset_continuation, "reset_continuation", 1),
        ),
        run.check(INSTANCE_ISOLATION, isolation),
        run.check(STATE_FOOTPRINT, footprint),
    ]


def _not_applicable(name: str) -> CheckResult:
    finding = _finding(
        "stateless-module", name, False, True, "the module declares no temporal state"
    )
    return CheckResult(name, "not-applicable", (finding,))


def _checked_suite(suite: object) -> _Suite:
    if isinstance(suite, StatelessContractSuite):
        if not isinstance(suite.contract, StatelessModuleContract):
            raise VerificationInputError(
                why="a stateless suite checks a StatelessModuleContract",
                what=f"StatelessContractSuite.contract is {type(suite.contract).__name__}",
                how="use TemporalContractSuite for a temporal module",
            )
        return suite
    if isinstance(suite, TemporalContractSuite):
        if not isinstance(suite.contract, TemporalModuleContract):
            raise VerificationInputError(
                why="a temporal suite checks a TemporalModuleContract",
                what=f"TemporalContractSuite.contract is {type(suite.contract).__name__}",
                how="use StatelessContractSuite for a stateless module",
            )
        return suite
    raise VerificationInputError(
        why="verification runs a StatelessContractSuite or a TemporalContractSuite",
        what=f"received {type(suite).__name__}",
        how="wrap the module's evidence in one of the two suites",
    )


def _module_checks(suite: object, run: _Evidence) -> tuple[CheckResult, ...]:
    """Every module check in the documented order."""
    checked = _checked_suite(suite)
    common = checked.common
    if not isinstance(common, CommonContractCases):
        raise VerificationInputError(
            why="a contract suite carries its common evidence as CommonContractCases",
            what=f"suite.common is {type(common).__name__}",
            how="pass common=CommonContractCases(...)",
        )
    checks = _common_checks(common, checked.contract, run)
    checks.extend(_factory_checks(common.factory, run))
    if isinstance(checked, TemporalContractSuite):
        checks.extend(_temporal_checks(checked, run))
    else:
        checks.extend(_not_applicable(name) for name in TEMPORAL_CHECKS)
    return tuple(checks)


def verify_module_contract(
    suite: StatelessContractSuite | TemporalContractSuite,
) -> VerificationReport:
    """Judge a module's supplied facts against its public contract, every check in order.

    Raises VerificationInputError for a malformed suite or facts; an exception raised by a
    provider propagates, except EvidenceUnavailable, which leaves its check unverified.
    """
    return VerificationReport("module-contract", _module_checks(suite, _Evidence(contain=False)))
