"""Evidence harvesting for architecture authors: facts gathered from the factory protocols.

An architecture describes one factory and configuration as an EvidenceSubject: the factory,
the artifact identity and settings, how to count backend launches and (by default through
CuPy's memory pool) GPU resources, how to make inputs, and its references and comparators.
The harvesters open instances from the factory, call them and return the published fact
records of ``pixtreme.infer.verification.contracts``; the builders wrap them into the
published suites::

    subject = EvidenceSubject(
        "example/x2", FACTORY, RECIPE, "fp32", (12, 21),
        backend_launches=lambda instance: instance.backend_launches,
        reference=my_reference, outputs_equivalent=outputs_within(1e-5),
    )
    suite = module_suite(subject, ArtifactEvidence(round_trip=..., ...))
    graph_suite = cuda_graph_suite(subject)

Harvests that need a GPU run inside ``subject.environment`` (a fresh CUDA stream by default)
and raise EvidenceUnavailable where none is usable, so their checks report unverified. The
harvesting logic itself needs no GPU: with a FrameSource, ResourceProbe and environment that
are plain Python, every harvester runs on the CPU. See docs/architecture-hook.md.
"""

from __future__ import annotations

import functools

from pixtreme.infer.contracts import TemporalModuleContract
from pixtreme.infer.verification._evidence_harvest import (
    closed_inference_facts,
    dlpack_facts,
    frame_boundary_facts,
    graph_replay_facts,
    instance_isolation_facts,
    instance_token,
    opened_contract_facts,
    query_allocation_facts,
    reference_facts,
    reset_equivalence_facts,
    setting_rejection_facts,
    state_lifecycle_facts,
)
from pixtreme.infer.verification._evidence_inputs import (
    CupyFrameSource,
    FrameCase,
    FrameRequest,
    FrameSource,
    HostFrame,
    Reference,
    ReferenceRequest,
    alternative_value,
    default_frame_cases,
    device_pointer,
    host_frame,
    outputs_within,
    reference_request,
)
from pixtreme.infer.verification._evidence_probes import (
    CupyPoolProbe,
    ResourceProbe,
    cuda_stream,
    cuda_unavailable_reason,
    footprint_snapshot,
    require_cuda,
    resources_within,
)
from pixtreme.infer.verification._evidence_subject import (
    ArtifactEvidence,
    EvidenceSubject,
    SettingCase,
    unavailable,
)
from pixtreme.infer.verification.contracts import (
    CommonContractCases,
    CudaGraphContractSuite,
    FactoryContractCases,
    StatelessContractSuite,
    TemporalContractSuite,
    VerificationInputError,
)

__all__ = [
    "ArtifactEvidence",
    "CupyFrameSource",
    "CupyPoolProbe",
    "EvidenceSubject",
    "FrameCase",
    "FrameRequest",
    "FrameSource",
    "HostFrame",
    "Reference",
    "ReferenceRequest",
    "ResourceProbe",
    "SettingCase",
    "alternative_value",
    "closed_inference_facts",
    "common_cases",
    "cuda_graph_suite",
    "cuda_stream",
    "cuda_unavailable_reason",
    "default_frame_cases",
    "device_pointer",
    "dlpack_facts",
    "factory_cases",
    "footprint_snapshot",
    "frame_boundary_facts",
    "graph_replay_facts",
    "host_frame",
    "instance_isolation_facts",
    "instance_token",
    "module_suite",
    "opened_contract_facts",
    "outputs_within",
    "query_allocation_facts",
    "reference_facts",
    "reference_request",
    "require_cuda",
    "reset_equivalence_facts",
    "resources_within",
    "setting_rejection_facts",
    "state_lifecycle_facts",
    "stateless_suite",
    "temporal_suite",
    "unavailable",
]


def factory_cases(subject: EvidenceSubject) -> FactoryContractCases:
    """FactoryContractCases harvested from the subject: query allocation, open, close."""
    return FactoryContractCases(
        functools.partial(query_allocation_facts, subject),
        functools.partial(opened_contract_facts, subject),
        functools.partial(closed_inference_facts, subject),
        subject.resources_equivalent,
    )


def common_cases(
    subject: EvidenceSubject, artifacts: ArtifactEvidence | None = None
) -> CommonContractCases:
    """CommonContractCases: harvested Frame boundary, DLPack and factory facts, plus the
    architecture's engine and checkpoint evidence (unverified where not supplied)."""
    supplied = artifacts or ArtifactEvidence()
    return CommonContractCases(
        functools.partial(frame_boundary_facts, subject),
        functools.partial(dlpack_facts, subject),
        supplied.round_trip,
        supplied.incompatibilities,
        supplied.checkpoint_rejections,
        subject.outputs_equivalent,
        factory_cases(subject),
    )


def stateless_suite(
    subject: EvidenceSubject, artifacts: ArtifactEvidence | None = None
) -> StatelessContractSuite:
    """The StatelessContractSuite of a stateless subject (queries its contract, no GPU)."""
    contract = subject.query().module_contract
    if isinstance(contract, TemporalModuleContract):
        raise VerificationInputError(
            why="a stateless suite is built for a stateless factory",
            what=f"{subject.name} opens a temporal contract",
            how="use temporal_suite (or module_suite, which picks the suite)",
        )
    return StatelessContractSuite(contract, common_cases(subject, artifacts))


def temporal_suite(
    subject: EvidenceSubject, artifacts: ArtifactEvidence | None = None
) -> TemporalContractSuite:
    """The TemporalContractSuite of a temporal subject: the common cases plus harvested reset
    equivalence, reset continuation (against ``subject.reference``), instance isolation and
    state lifecycle; the declared footprint is normalized by footprint_snapshot."""
    contract = subject.query().module_contract
    if not isinstance(contract, TemporalModuleContract):
        raise VerificationInputError(
            why="a temporal suite is built for a temporal factory",
            what=f"{subject.name} opens a stateless contract",
            how="use stateless_suite (or module_suite, which picks the suite)",
        )
    return TemporalContractSuite(
        contract,
        common_cases(subject, artifacts),
        functools.partial(reset_equivalence_facts, subject),
        functools.partial(reference_facts, subject),
        functools.partial(instance_isolation_facts, subject),
        functools.partial(state_lifecycle_facts, subject),
        footprint_snapshot,
        subject.resources_equivalent,
    )


def module_suite(
    subject: EvidenceSubject, artifacts: ArtifactEvidence | None = None
) -> StatelessContractSuite | TemporalContractSuite:
    """The stateless or temporal suite, whichever the subject's family is."""
    if subject.temporal:
        return temporal_suite(subject, artifacts)
    return stateless_suite(subject, artifacts)


def cuda_graph_suite(
    subject: EvidenceSubject, artifacts: ArtifactEvidence | None = None
) -> CudaGraphContractSuite:
    """The CudaGraphContractSuite: the module suite harvested from ``graph_factory()``'s
    instances, and graph replay equivalence against the subject's normal instances."""
    return CudaGraphContractSuite(
        module_suite(subject.on_graphs(), artifacts),
        functools.partial(graph_replay_facts, subject),
    )
