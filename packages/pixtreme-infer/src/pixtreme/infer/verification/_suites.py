"""Contract suites: which evidence callables a module supplies for each group of checks.

Every callable is optional. A missing one makes its check unverified, never passed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from pixtreme.infer import _validate as v
from pixtreme.infer._module_contracts import StatelessModuleContract, TemporalModuleContract
from pixtreme.infer.verification._facts import (
    ClosedInferenceFacts,
    DlpackAllocationFacts,
    EngineRoundTripFacts,
    FrameBoundaryFacts,
    IsolationFacts,
    OpenedContractFacts,
    QueryAllocationFacts,
    RejectionFacts,
    SequenceFacts,
    StateLifecycleFacts,
)
from pixtreme.infer.verification._results import VerificationReport

type Evidence[T] = Callable[[], T] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class CommonContractCases:
    """Evidence every module supplies: Frame boundary, zero copy, engines and selectors."""

    frame_boundary: Evidence[FrameBoundaryFacts] = None
    dlpack_allocation: Evidence[DlpackAllocationFacts] = None
    engine_round_trip: Evidence[EngineRoundTripFacts] = None
    engine_incompatibility: Evidence[RejectionFacts] = None
    checkpoint_selector_rejection: Evidence[RejectionFacts] = None

    def __post_init__(self) -> None:
        _check_evidence(self, "CommonContractCases")


@dataclass(frozen=True, slots=True, kw_only=True)
class FactoryContractCases:
    """Evidence about the factory: query allocates nothing, open matches, close rejects."""

    query_gpu_allocation: Evidence[QueryAllocationFacts] = None
    opened_contract: Evidence[OpenedContractFacts] = None
    closed_inference: Evidence[ClosedInferenceFacts] = None

    def __post_init__(self) -> None:
        _check_evidence(self, "FactoryContractCases")


def _check_evidence(cases: object, owner: str, fields: tuple[str, ...] = ()) -> None:
    names = fields or tuple(field.name for field in dataclasses.fields(cases))  # type: ignore[arg-type]
    for name in names:
        v.optional_callable(owner, name, getattr(cases, name))


def _check_suite(owner: str, name: str, common: object, factory: object) -> None:
    v.non_empty_str(owner, "name", name)
    v.instance_of(owner, "common", common, CommonContractCases)
    v.instance_of(owner, "factory", factory, FactoryContractCases)


@dataclass(frozen=True, slots=True, kw_only=True)
class StatelessContractSuite:
    """Cases for one stateless module; temporal checks report not-applicable."""

    name: str
    contract: StatelessModuleContract
    common: CommonContractCases = CommonContractCases()
    factory: FactoryContractCases = FactoryContractCases()

    def __post_init__(self) -> None:
        _check_suite("StatelessContractSuite", self.name, self.common, self.factory)
        v.instance_of("StatelessContractSuite", "contract", self.contract, StatelessModuleContract)
        if isinstance(self.contract, TemporalModuleContract):
            v.fail(
                "StatelessContractSuite",
                "contract",
                self.contract,
                expected="a stateless contract",
                how="use TemporalContractSuite for a TemporalModuleContract",
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class TemporalContractSuite:
    """Cases for one temporal module, including reset, isolation and state evidence."""

    name: str
    contract: TemporalModuleContract
    common: CommonContractCases = CommonContractCases()
    factory: FactoryContractCases = FactoryContractCases()
    reset_equivalence: Evidence[SequenceFacts] = None
    reset_continuation: Evidence[SequenceFacts] = None
    instance_isolation: Evidence[IsolationFacts] = None
    state_footprint: Evidence[StateLifecycleFacts] = None

    def __post_init__(self) -> None:
        _check_suite("TemporalContractSuite", self.name, self.common, self.factory)
        _check_evidence(
            self,
            "TemporalContractSuite",
            ("reset_equivalence", "reset_continuation", "instance_isolation", "state_footprint"),
        )
        v.instance_of("TemporalContractSuite", "contract", self.contract, TemporalModuleContract)


type ModuleContractSuite = StatelessContractSuite | TemporalContractSuite


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchitectureCases:
    """What an architecture publishes for ``pixtreme-infer verify <arch>``.

    ``suites`` are run through verify_module_contract; each callable in ``reports`` returns a
    further VerificationReport (for example ``lambda: verify_cuda_graph_contract(...)`` or an
    ONNX check). ``unverified`` names evidence the architecture knows it cannot supply, with a
    reason, so the gap shows in the report instead of disappearing.
    """

    architecture: str
    suites: tuple[ModuleContractSuite, ...] = ()
    reports: tuple[Callable[[], VerificationReport], ...] = ()
    unverified: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        owner = "ArchitectureCases"
        v.non_empty_str(owner, "architecture", self.architecture)
        for field in ("suites", "reports", "unverified"):
            if not isinstance(getattr(self, field), tuple):
                v.fail(
                    owner,
                    field,
                    getattr(self, field),
                    expected="a tuple",
                    how=f"pass {field}=(...,) (a tuple, possibly empty)",
                )
        if not all(
            isinstance(suite, StatelessContractSuite | TemporalContractSuite)
            for suite in self.suites
        ):
            v.fail(
                owner,
                "suites",
                self.suites,
                expected="a tuple of StatelessContractSuite or TemporalContractSuite",
                how="wrap each module's evidence in a contract suite",
            )
        if not all(callable(report) for report in self.reports):
            v.fail(
                owner,
                "reports",
                self.reports,
                expected="a tuple of callables returning VerificationReport",
                how="pass reports=(lambda: verify_onnx_graph(...),)",
            )
        for item in self.unverified:
            if (
                not isinstance(item, tuple)
                or len(item) != 2
                or not all(isinstance(part, str) and part for part in item)
            ):
                v.fail(
                    owner,
                    "unverified",
                    item,
                    expected="(check name, reason) string pairs",
                    how="pass unverified=(('engine-round-trip', 'TensorRT is not installed'),)",
                )
