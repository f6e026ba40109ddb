"""Factory evidence (query, open, close) and the checks that judge it.

Checks: ``query-gpu-allocation`` (``query_contract`` allocates no GPU memory, temporary
allocations included), ``opened-contract`` (``open`` returns an instance whose contract equals
the query for the same settings) and ``closed-inference`` (a closed instance refuses a call
before the backend starts).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from pixtreme.infer import StatelessOpenContract, TemporalOpenContract
from pixtreme.infer.verification._results import (
    CheckResult,
    VerificationFinding,
    VerificationInputError,
    _expect,
    _finding,
    _judged_cases,
    _unverified,
)

AllocationIdentity = Hashable

QUERY_GPU_ALLOCATION = "query-gpu-allocation"
OPENED_CONTRACT = "opened-contract"
CLOSED_INFERENCE = "closed-inference"
FACTORY_CHECKS = (QUERY_GPU_ALLOCATION, OPENED_CONTRACT, CLOSED_INFERENCE)


@dataclass(frozen=True)
class ResourceSnapshot:
    """GPU resources observed at one moment: an amount in ``unit`` and the live allocations."""

    amount: int
    unit: str
    allocations: tuple[AllocationIdentity, ...]


@dataclass(frozen=True)
class QueryAllocationFacts:
    """GPU resources around one ``query_contract`` call, temporary allocations included.

    ``allocations_during_query`` lists every GPU allocation made during the query, including
    those released before ``after_query``. The snapshots and the trace cover the same device
    resources and the same allocation identity domain.
    """

    name: str
    before_query: ResourceSnapshot
    after_query: ResourceSnapshot
    allocations_during_query: tuple[AllocationIdentity, ...]


@dataclass(frozen=True)
class OpenedContractFacts:
    """The public contracts from a query and from an open with the same settings.

    Both are StatelessOpenContract or TemporalOpenContract instances whose artifact identity
    keeps the module's own type.
    """

    name: str
    queried_contract: object
    opened_contract: object


@dataclass(frozen=True)
class ClosedInferenceFacts:
    """An otherwise valid inference call made after its instance was closed."""

    name: str
    error: BaseException | None
    backend_started: bool


@dataclass(frozen=True)
class FactoryContractCases:
    """Factory observations, supplied by callables so the core needs no GPU.

    ``resources_equivalent`` compares the non-negative growth of the observed GPU amount during
    a query with a zero ResourceSnapshot of the same unit; allocation identities and
    ``allocations_during_query`` are checked independently of it. Empty case tuples leave
    their checks unverified.
    """

    query_allocations: Callable[[], tuple[QueryAllocationFacts, ...]]
    opened_contracts: Callable[[], tuple[OpenedContractFacts, ...]]
    closed_inference: Callable[[], tuple[ClosedInferenceFacts, ...]]
    resources_equivalent: Callable[[ResourceSnapshot, ResourceSnapshot], bool]


def _identities(snapshot: ResourceSnapshot, path: str) -> set[AllocationIdentity]:
    """The snapshot's allocations as a set; they must be hashable and distinct."""
    try:
        identities = set(snapshot.allocations)
    except TypeError as error:
        raise VerificationInputError(
            why="allocation identities are compared as hashable values",
            what=f"{path}: {error}",
            how="record each allocation by a hashable identity such as (device, pointer)",
        ) from error
    if len(identities) != len(snapshot.allocations):
        raise VerificationInputError(
            why="a snapshot lists each live allocation once",
            what=f"{path}: duplicate allocation identities in {snapshot.allocations!r}",
            how="record each allocation once",
        )
    return identities


def _created_during(case: QueryAllocationFacts, path: str) -> tuple[AllocationIdentity, ...]:
    before = _identities(case.before_query, f"{path}/before-query")
    _identities(case.after_query, f"{path}/after-query")
    appeared = (item for item in case.after_query.allocations if item not in before)
    try:
        return tuple(dict.fromkeys((*case.allocations_during_query, *appeared)))
    except TypeError as error:
        raise VerificationInputError(
            why="allocation identities are compared as hashable values",
            what=f"{path}/allocations-during-query: {error}",
            how="record each allocation by a hashable identity",
        ) from error


def _judge_query_allocations(
    cases: tuple[QueryAllocationFacts, ...],
    equivalent: Callable[[ResourceSnapshot, ResourceSnapshot], bool],
) -> CheckResult:
    """The ``query-gpu-allocation`` check."""
    findings: list[VerificationFinding] = []
    for case in cases:
        path = f"{QUERY_GPU_ALLOCATION}/{case.name}"
        before, after = case.before_query, case.after_query
        if after.unit != before.unit:
            findings.append(
                _finding(
                    "unit-mismatch",
                    f"{path}/unit",
                    after.unit,
                    before.unit,
                    "the snapshots around the query use different units",
                )
            )
            continue
        created = _created_during(case, path)
        growth = ResourceSnapshot(max(0, after.amount - before.amount), before.unit, created)
        if not equivalent(growth, ResourceSnapshot(0, before.unit, ())):
            findings.append(
                _finding(
                    "amount-mismatch",
                    f"{path}/amount",
                    growth.amount,
                    0,
                    "the GPU resource amount grew during the query",
                )
            )
        if created:
            findings.append(
                _finding(
                    "gpu-allocation-created",
                    f"{path}/allocations",
                    created,
                    (),
                    "the query allocated GPU memory",
                )
            )
    return _judged_cases(QUERY_GPU_ALLOCATION, cases, findings)


def _judge_opened_contracts(cases: tuple[OpenedContractFacts, ...]) -> CheckResult:
    """The ``opened-contract`` check."""
    findings: list[VerificationFinding] = []
    for case in cases:
        path = f"{OPENED_CONTRACT}/{case.name}"
        for label, value in (("queried", case.queried_contract), ("opened", case.opened_contract)):
            if not isinstance(value, StatelessOpenContract | TemporalOpenContract):
                raise VerificationInputError(
                    why="opened-contract compares public open contracts",
                    what=f"{path}/{label}: received {type(value).__name__}",
                    how="record the StatelessOpenContract or TemporalOpenContract returned by "
                    "query_contract and by the opened instance's contract",
                )
        _expect(
            findings,
            f"{path}/contract",
            case.opened_contract,
            case.queried_contract,
            "the opened instance's contract differs from the query for the same settings",
        )
    return _judged_cases(OPENED_CONTRACT, cases, findings)


def _judge_closed_inference(cases: tuple[ClosedInferenceFacts, ...]) -> CheckResult:
    """The ``closed-inference`` check."""
    findings: list[VerificationFinding] = []
    for case in cases:
        path = f"{CLOSED_INFERENCE}/{case.name}"
        _expect(findings, f"{path}/error", case.error is not None, True)
        _expect(findings, f"{path}/backend-started", case.backend_started, False)
    return _judged_cases(CLOSED_INFERENCE, cases, findings)


def _missing_factory() -> tuple[CheckResult, ...]:
    """The factory checks when a suite supplies no FactoryContractCases."""
    return tuple(
        _unverified(name, "no FactoryContractCases were supplied") for name in FACTORY_CHECKS
    )
