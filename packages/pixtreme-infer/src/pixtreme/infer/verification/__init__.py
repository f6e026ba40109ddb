"""Shared verification tools: result model, fact records, contract suites and measurements.

Importing this package needs no GPU, onnxruntime or NVML; those load only when used.
"""

from pixtreme.infer.verification._architecture import (
    HOOK_NAME,
    verify_architecture,
    verify_cases,
    verify_module,
)
from pixtreme.infer.verification._compare import (
    ComparisonSummary,
    RgbComparison,
    compare_rgb,
    summarize_comparisons,
)
from pixtreme.infer.verification._cuda_graph import (
    CudaGraphContractSuite,
    verify_cuda_graph_contract,
)
from pixtreme.infer.verification._distributions import (
    DistributionFacts,
    DistributionPolicy,
    architecture_policy,
    check_distribution_policy,
    core_policy,
    inspect_sdist,
    inspect_wheel,
)
from pixtreme.infer.verification._facts import (
    ClosedInferenceFacts,
    DlpackAllocationFacts,
    EngineBindingFacts,
    EngineRoundTripFacts,
    FrameBoundaryFacts,
    IsolationFacts,
    OpenedContractFacts,
    QueryAllocationFacts,
    RejectionCase,
    RejectionFacts,
    ResourceSnapshot,
    SequenceFacts,
    SequenceStep,
    StateLifecycleFacts,
    has_error_shape,
)
from pixtreme.infer.verification._lint import lint_infer_imports, lint_source
from pixtreme.infer.verification._measure import (
    DriftSummary,
    LatencySummary,
    RequestMeasurement,
    ThroughputSummary,
    measure_requests,
    summarize_drift,
    summarize_latency,
    summarize_throughput,
)
from pixtreme.infer.verification._module_contract import (
    COMMON_CHECKS,
    MODULE_CHECKS,
    TEMPORAL_CHECKS,
    verify_module_contract,
)
from pixtreme.infer.verification._records import (
    canonical_json,
    load_json_reference,
    parse_json_strict,
    portable_path,
    record_digest,
    sha256_hex,
    write_record,
)
from pixtreme.infer.verification._results import (
    CheckResult,
    CheckStatus,
    VerificationFinding,
    VerificationReport,
)
from pixtreme.infer.verification._suites import (
    ArchitectureCases,
    CommonContractCases,
    FactoryContractCases,
    StatelessContractSuite,
    TemporalContractSuite,
)
from pixtreme.infer.verification._telemetry import (
    NvidiaTelemetrySource,
    TelemetrySample,
    TelemetrySource,
)

__all__ = (
    "COMMON_CHECKS",
    "HOOK_NAME",
    "MODULE_CHECKS",
    "TEMPORAL_CHECKS",
    "ArchitectureCases",
    "CheckResult",
    "CheckStatus",
    "ClosedInferenceFacts",
    "CommonContractCases",
    "ComparisonSummary",
    "CudaGraphContractSuite",
    "DistributionFacts",
    "DistributionPolicy",
    "DlpackAllocationFacts",
    "DriftSummary",
    "EngineBindingFacts",
    "EngineRoundTripFacts",
    "FactoryContractCases",
    "FrameBoundaryFacts",
    "IsolationFacts",
    "LatencySummary",
    "NvidiaTelemetrySource",
    "OpenedContractFacts",
    "QueryAllocationFacts",
    "RejectionCase",
    "RejectionFacts",
    "RequestMeasurement",
    "ResourceSnapshot",
    "RgbComparison",
    "SequenceFacts",
    "SequenceStep",
    "StateLifecycleFacts",
    "StatelessContractSuite",
    "TelemetrySample",
    "TelemetrySource",
    "TemporalContractSuite",
    "ThroughputSummary",
    "VerificationFinding",
    "VerificationReport",
    "architecture_policy",
    "canonical_json",
    "check_distribution_policy",
    "compare_rgb",
    "core_policy",
    "has_error_shape",
    "inspect_sdist",
    "inspect_wheel",
    "lint_infer_imports",
    "lint_source",
    "load_json_reference",
    "measure_requests",
    "parse_json_strict",
    "portable_path",
    "record_digest",
    "sha256_hex",
    "summarize_comparisons",
    "summarize_drift",
    "summarize_latency",
    "summarize_throughput",
    "verify_architecture",
    "verify_cases",
    "verify_cuda_graph_contract",
    "verify_module",
    "verify_module_contract",
    "write_record",
)
