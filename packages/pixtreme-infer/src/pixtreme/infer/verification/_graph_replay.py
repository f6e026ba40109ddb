"""CUDA Graph verification: the module suite on graph-opened instances plus replay equivalence.

verify_cuda_graph_contract runs every module check unchanged on the suite built from the graph
factory, then ``graph-replay-equivalence``: complete request sequences on graph instances must
match separately opened normal instances with the same settings (first calls, continuation,
changed inputs and resets). Sequences are at least ``startup_frames + 1`` calls long for
temporal modules and one call for stateless ones. No evidence leaves the check unverified.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pixtreme.infer.verification._results import (
    CheckResult,
    VerificationFinding,
    VerificationInputError,
    VerificationReport,
    _judged_cases,
)
from pixtreme.infer.verification._suites import (
    MODULE_CHECKS,
    StatelessContractSuite,
    TemporalContractSuite,
    _Evidence,
    _module_checks,
    _typed_cases,
)
from pixtreme.infer.verification._temporal import SequenceFacts, _sequence_findings

GRAPH_REPLAY_EQUIVALENCE = "graph-replay-equivalence"
CUDA_GRAPH_CHECKS = (*MODULE_CHECKS, GRAPH_REPLAY_EQUIVALENCE)
"""Every check verify_cuda_graph_contract reports, in order."""


@dataclass(frozen=True)
class CudaGraphContractSuite:
    """The module suite populated from a graph factory, and graph-versus-normal sequences.

    ``module`` supplies the usual factory facts and, for temporal modules, the reset, startup,
    isolation and state-footprint observations, all from the graph path.
    ``replay_equivalence`` compares complete request sequences of graph instances with
    separately opened normal instances of the same configuration. Empty evidence remains
    unverified.
    """

    module: StatelessContractSuite | TemporalContractSuite
    replay_equivalence: Callable[[], tuple[SequenceFacts, ...]]


def _replay_check(suite: CudaGraphContractSuite) -> CheckResult:
    module = suite.module
    minimum = module.contract.startup_frames + 1 if isinstance(module, TemporalContractSuite) else 1
    cases = _typed_cases(
        GRAPH_REPLAY_EQUIVALENCE, suite.replay_equivalence, SequenceFacts, "replay_equivalence"
    )
    findings: list[VerificationFinding] = []
    for facts in cases:
        findings.extend(
            _sequence_findings(
                GRAPH_REPLAY_EQUIVALENCE, facts, minimum, module.common.outputs_equivalent
            )
        )
    return _judged_cases(GRAPH_REPLAY_EQUIVALENCE, cases, findings)


def _graph_checks(suite: object, run: _Evidence) -> tuple[CheckResult, ...]:
    """The module checks, then graph-replay-equivalence."""
    if not isinstance(suite, CudaGraphContractSuite):
        raise VerificationInputError(
            why="verify_cuda_graph_contract runs a CudaGraphContractSuite",
            what=f"received {type(suite).__name__}",
            how="wrap the graph path's module suite: CudaGraphContractSuite(module, "
            "replay_equivalence)",
        )
    base = _module_checks(suite.module, run)
    return (*base, run.check(GRAPH_REPLAY_EQUIVALENCE, lambda: _replay_check(suite)))


def verify_cuda_graph_contract(suite: CudaGraphContractSuite) -> VerificationReport:
    """Run the module checks on graph-opened instances and compare graph with normal outputs.

    Errors propagate as in verify_module_contract.
    """
    return VerificationReport("cuda-graph-contract", _graph_checks(suite, _Evidence(contain=False)))
