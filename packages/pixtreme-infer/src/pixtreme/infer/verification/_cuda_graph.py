"""CUDA Graph contract: the module checks unchanged, plus graph replay equivalence.

A module that offers a graph factory supplies the same contract suite as for its normal
factory (populated from the graph factory and its instances) and, separately, SequenceFacts
comparing a normal and a graph instance opened with the same settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from pixtreme.infer import _validate as v
from pixtreme.infer.verification._facts import SequenceFacts
from pixtreme.infer.verification._module_contract import (
    MODULE_CHECKS,
    run_check,
    sequence_check,
    verify_module_contract,
)
from pixtreme.infer.verification._results import CheckResult, VerificationReport
from pixtreme.infer.verification._suites import (
    Evidence,
    ModuleContractSuite,
    StatelessContractSuite,
    TemporalContractSuite,
)

GRAPH_REPLAY_CHECK = "graph-replay-equivalence"
CUDA_GRAPH_CHECKS: tuple[str, ...] = (*MODULE_CHECKS, GRAPH_REPLAY_CHECK)
"""Every check verify_cuda_graph_contract reports, in the order it reports them."""


# Positional like the spec's call form ``CudaGraphContractSuite(module, replay_equivalence)``.
@dataclass(frozen=True, slots=True)
class CudaGraphContractSuite:
    """Evidence for a module's CUDA Graph factory.

    ``module`` is the module's StatelessContractSuite or TemporalContractSuite populated from
    the graph factory and its instances. ``replay_equivalence`` returns SequenceFacts comparing
    a normal and a graph instance with the same settings over the first call, continuation,
    changed input values and metadata, and resets. A missing callable leaves the check
    unverified.
    """

    module: ModuleContractSuite
    replay_equivalence: Evidence[SequenceFacts] = None

    def __post_init__(self) -> None:
        owner = "CudaGraphContractSuite"
        if not isinstance(self.module, StatelessContractSuite | TemporalContractSuite):
            v.fail(
                owner,
                "module",
                self.module,
                expected="a StatelessContractSuite or TemporalContractSuite",
                how="build the module's suite from the graph factory's evidence first",
            )
        if self.replay_equivalence is not None and not callable(self.replay_equivalence):
            v.fail(
                owner,
                "replay_equivalence",
                self.replay_equivalence,
                expected="a callable returning SequenceFacts, or None",
                how="pass replay_equivalence=lambda: SequenceFacts(steps=...)",
            )


def _minimum_replay_steps(suite: ModuleContractSuite) -> int:
    if isinstance(suite, TemporalContractSuite):
        return suite.contract.startup_frames + 1
    return 1


def verify_cuda_graph_contract(suite: CudaGraphContractSuite) -> VerificationReport:
    """Run verify_module_contract on ``suite.module``, then graph-replay-equivalence.

    The replay sequence must cover at least the module's startup frames plus one call (one
    call for a stateless module); shorter evidence is unverified, and any step whose largest
    absolute difference exceeds its tolerance fails.
    """
    if not isinstance(suite, CudaGraphContractSuite):
        v.fail(
            "verify_cuda_graph_contract",
            "suite",
            suite,
            expected="a CudaGraphContractSuite",
            how="wrap the module suite: CudaGraphContractSuite(module=..., replay_equivalence=...)",
        )
    module_report = verify_module_contract(suite.module)
    minimum = _minimum_replay_steps(suite.module)

    def evaluate(facts: SequenceFacts) -> CheckResult:
        return sequence_check(GRAPH_REPLAY_CHECK, facts, minimum_steps=minimum)

    replay = run_check(GRAPH_REPLAY_CHECK, suite.replay_equivalence, SequenceFacts, evaluate)
    return VerificationReport(scope=module_report.scope, checks=(*module_report.checks, replay))
