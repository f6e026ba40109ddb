"""Public surface: a snapshot of exported names, and the value-object and metadata rules."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from importlib.metadata import metadata, requires

import pytest

# Names owned by the CUDA Graph work (issue 7), checked by its own tests.
_CUDA_GRAPH_NAMES = {"CudaGraphContractSuite", "verify_cuda_graph_contract"}

PUBLIC_NAMES: dict[str, tuple[str, ...]] = {
    "pixtreme.infer": ("ARCHITECTURES",),
    "pixtreme.infer.errors": (
        "ArchitectureNotInstalledError",
        "ContractError",
        "EvidenceUnavailable",
        "InferError",
        "OptionalDependencyError",
        "RecordError",
        "TelemetryUnavailableError",
        "format_error",
        "require_optional",
    ),
    "pixtreme.infer.contracts": (
        "CHECKPOINT_CONTAINERS",
        "CheckpointContainer",
        "CudaGraphFactoryProvider",
        "Exact",
        "FrameContract",
        "FrameField",
        "FrameFieldMismatch",
        "FrameMetadata",
        "GpuArrayParamContract",
        "OpenedStatelessImageInference",
        "PRECISIONS",
        "Precision",
        "RESET_CONTROL",
        "ShapeProfile",
        "StateFootprint",
        "StatefulImageInference",
        "StatelessFamilyContract",
        "StatelessImageInference",
        "StatelessInferenceFactory",
        "StatelessModuleContract",
        "StatelessOpenContract",
        "TemporalFamilyContract",
        "TemporalInferenceFactory",
        "TemporalModuleContract",
        "TemporalOpenContract",
        "UnconstrainedWithReference",
        "parse_checkpoint_container",
        "parse_precision",
        "validate_call_params",
    ),
    "pixtreme.infer.frames": (
        "check_frame",
        "check_metadata",
        "frame_metadata",
    ),
    "pixtreme.infer.recipes": (
        "RecipeCatalogEntry",
        "RecipeIdentity",
        "RecipeIdentityError",
        "parse_recipe_identity",
        "validate_recipe_reference",
    ),
    "pixtreme.infer.onnx": (
        "CONTRACT_METADATA_KEY",
        "OnnxContractError",
        "OnnxOutputContract",
        "OnnxReferenceComparison",
        "OnnxReferenceMismatchError",
        "OnnxRun",
        "OnnxTolerance",
        "contract_metadata",
        "run_onnx",
    ),
    "pixtreme.infer.verification": (
        "ArchitectureCases",
        "COMMON_CHECKS",
        "CheckResult",
        "CheckStatus",
        "ClosedInferenceFacts",
        "CommonContractCases",
        "ComparisonSummary",
        "DistributionFacts",
        "DistributionPolicy",
        "DlpackAllocationFacts",
        "EngineBindingFacts",
        "DriftSummary",
        "EngineRoundTripFacts",
        "FactoryContractCases",
        "FrameBoundaryFacts",
        "HOOK_NAME",
        "IsolationFacts",
        "LatencySummary",
        "MODULE_CHECKS",
        "NvidiaTelemetrySource",
        "RECORD_SCHEMA",
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
        "TEMPORAL_CHECKS",
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
        "record_header",
        "sha256_hex",
        "summarize_comparisons",
        "summarize_drift",
        "summarize_latency",
        "summarize_throughput",
        "verify_architecture",
        "verify_cases",
        "verify_module",
        "validate_record",
        "verify_module_contract",
        "write_record",
    ),
    "pixtreme.infer.cli": ("main",),
}


@pytest.mark.req("issue6.public-names")
@pytest.mark.parametrize("module_name", sorted(PUBLIC_NAMES))
def test_public_names_snapshot(module_name: str) -> None:
    module = importlib.import_module(module_name)
    exported = set(module.__all__) - _CUDA_GRAPH_NAMES
    assert sorted(exported) == sorted(PUBLIC_NAMES[module_name]), (
        "the public surface changed: update PUBLIC_NAMES on purpose, with the README"
    )
    for name in module.__all__:
        assert hasattr(module, name), f"{module_name}.__all__ lists missing {name}"


def _public_dataclasses() -> list[type]:
    found: dict[str, type] = {}
    for module_name in PUBLIC_NAMES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) and dataclasses.is_dataclass(value):
                found[f"{module_name}.{name}"] = value
    return [found[key] for key in sorted(found)]


# Value objects whose published call form is positional (reference: ``Exact[T](value)``; spec:
# ``CudaGraphContractSuite(module, replay_equivalence)``). This allowlist only shrinks.
POSITIONAL_CALL_FORM = {"Exact", "UnconstrainedWithReference", "CudaGraphContractSuite"}


@pytest.mark.req("issue6.value-objects")
@pytest.mark.parametrize("kind", _public_dataclasses(), ids=lambda kind: kind.__name__)
def test_public_dataclasses_are_frozen_slotted_and_keyword_only(kind: type) -> None:
    params = kind.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen
    assert hasattr(kind, "__slots__")
    keyword_only = all(field.kw_only for field in dataclasses.fields(kind))
    assert keyword_only != (kind.__name__ in POSITIONAL_CALL_FORM)


@pytest.mark.req("issue6.value-objects")
def test_published_positional_call_forms() -> None:
    from pixtreme.infer.contracts import Exact, UnconstrainedWithReference

    assert Exact(3).value == 3
    assert UnconstrainedWithReference("srgb").reference == "srgb"


@pytest.mark.req("spec.capabilities.base-dependency")
@pytest.mark.req("spec.capabilities.extras")
@pytest.mark.req("spec.capabilities.no-tensorrt-or-torch")
def test_distribution_metadata() -> None:
    declared = requires("pixtreme-infer") or []
    base = [item for item in declared if "extra ==" not in item]
    assert base == ["pixtreme>=1.3.0"]
    extras = {item.split("extra == ")[1].strip("'\""): item for item in declared if "extra" in item}
    assert set(extras) == {"ort", "verify"}
    assert any(item.startswith("onnxruntime") and "ort" in item for item in declared)
    assert any(item.startswith("nvidia-ml-py") and "verify" in item for item in declared)
    names = " ".join(declared).lower()
    for banned in ("tensorrt", "tensoracle", "torch"):
        assert banned not in names


@pytest.mark.req("spec.license.mit")
def test_license_is_mit() -> None:
    meta = metadata("pixtreme-infer")
    assert meta["License-Expression"] == "MIT"
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "LICENSE").read_text()
    assert text.startswith("MIT License")
