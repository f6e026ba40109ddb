"""Architecture-independent contract evidence and its verification.

Modules record facts on their own device and hand them over through callables; the core
judges them without a GPU. verify_module_contract runs every module check in order;
verify_cuda_graph_contract adds graph-replay-equivalence for graph-opened instances.
"""

from __future__ import annotations

from pixtreme.infer.verification._engine import (
    EngineBindingFacts,
    EngineRoundTripFacts,
    RejectionFacts,
)
from pixtreme.infer.verification._factory import (
    AllocationIdentity,
    ClosedInferenceFacts,
    FactoryContractCases,
    OpenedContractFacts,
    QueryAllocationFacts,
    ResourceSnapshot,
)
from pixtreme.infer.verification._frame_boundary import (
    AllocationFacts,
    FrameBoundaryFacts,
    GpuArrayFacts,
)
from pixtreme.infer.verification._graph_replay import (
    CudaGraphContractSuite,
    verify_cuda_graph_contract,
)
from pixtreme.infer.verification._results import (
    CheckResult,
    CheckStatus,
    VerificationExecutionError,
    VerificationFinding,
    VerificationInputError,
    VerificationReport,
)
from pixtreme.infer.verification._suites import (
    CommonContractCases,
    StatelessContractSuite,
    TemporalContractSuite,
    verify_module_contract,
)
from pixtreme.infer.verification._temporal import (
    IsolationFacts,
    SequenceFacts,
    StateLifecycleFacts,
)

__all__ = [
    "AllocationFacts",
    "AllocationIdentity",
    "CheckResult",
    "CheckStatus",
    "ClosedInferenceFacts",
    "CommonContractCases",
    "CudaGraphContractSuite",
    "EngineBindingFacts",
    "EngineRoundTripFacts",
    "FactoryContractCases",
    "FrameBoundaryFacts",
    "GpuArrayFacts",
    "IsolationFacts",
    "OpenedContractFacts",
    "QueryAllocationFacts",
    "RejectionFacts",
    "ResourceSnapshot",
    "SequenceFacts",
    "StateLifecycleFacts",
    "StatelessContractSuite",
    "TemporalContractSuite",
    "VerificationExecutionError",
    "VerificationFinding",
    "VerificationInputError",
    "VerificationReport",
    "verify_cuda_graph_contract",
    "verify_module_contract",
]
