"""The verification hook: ``verification_cases()`` for ``pixtreme-infer verify example``.

Without a GPU this verifies the ONNX graphs on onnxruntime against the numpy references, the
weights and recipe identities, the contracts and parameter validation, and the TensorRT engine
declarations. On a GPU the suites' evidence callables also open real instances (Frame boundary,
DLPack zero copy, factory and temporal lifecycle, CUDA Graph replay equivalence), and with
TensorRT the engine round trip runs in two processes. Evidence that cannot be gathered here is
reported unverified with its reason.
"""

from __future__ import annotations

import functools
import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

import numpy as np
from pixtreme.infer.contracts import validate_call_params
from pixtreme.infer.errors import ContractError, EvidenceUnavailable, OptionalDependencyError
from pixtreme.infer.recipes import RecipeIdentity
from pixtreme.infer.verification import (
    ArchitectureCases,
    CheckResult,
    CommonContractCases,
    CudaGraphContractSuite,
    FactoryContractCases,
    RejectionCase,
    RejectionFacts,
    SequenceFacts,
    StatelessContractSuite,
    TemporalContractSuite,
    VerificationFinding,
    VerificationReport,
    has_error_shape,
    verify_cuda_graph_contract,
)

from . import _gpu_evidence as gpu
from ._factories import RecursiveFilterFactory, UpscaleX2Factory
from ._networks import NETWORKS, RECURSIVE_FILTER, RECURSIVE_FILTER_ALPHA, UPSCALE_X2
from ._recipes import (
    RECIPE_NETWORKS,
    RECIPE_WEIGHTS_SHA256,
    RECURSIVE_FILTER_RECIPE,
    UPSCALE_X2_RECIPE,
)
from ._reference import recursive_filter_reference, upscale_x2_reference
from ._tensorrt_backend import engine_declaration, tensorrt_unavailable_reason
from ._weights import load_weights, serialize_weights, weights_path

ARCHITECTURE: Final = "example"
#: Largest difference accepted between an onnxruntime output and the float64 reference.
ONNX_TOLERANCE: Final = 1e-5
ONNX_SIZES: Final = ((1, 1), (7, 5), (16, 24))

Judge = Callable[[], tuple[VerificationFinding, ...]]


def _check(name: str, judge: Judge) -> CheckResult:
    """Run ``judge``: findings fail the check, EvidenceUnavailable leaves it unverified."""
    try:
        findings = judge()
    except (EvidenceUnavailable, OptionalDependencyError) as error:
        return CheckResult.unverified(
            name, code="evidence-unavailable", path=name, detail=str(error)
        )
    return CheckResult.from_findings(name, findings)


def _differs(path: str, observed: object, expected: object, code: str) -> VerificationFinding:
    return VerificationFinding(code=code, path=path, observed=observed, expected=expected)


# --- ONNX on onnxruntime (CPU) -------------------------------------------------------------


def _onnx_upscale() -> tuple[VerificationFinding, ...]:
    from pixtreme.infer.onnx import OnnxTolerance, run_onnx

    from ._onnx_export import export_onnx

    findings = []
    with tempfile.TemporaryDirectory(prefix="pixtreme-example-onnx-") as folder:
        path = export_onnx(UPSCALE_X2, Path(folder) / "upscale_x2.onnx")
        for height, width in ONNX_SIZES:
            image = np.random.default_rng(height * 31 + width).random(
                (1, height, width, 3), dtype=np.float32
            )
            run = run_onnx(
                path,
                image,
                reference=upscale_x2_reference(image[0])[None],
                tolerance=OnnxTolerance(max_abs=ONNX_TOLERANCE),
                raise_on_mismatch=False,
            )
            if run.comparison is None or not run.comparison.passed:
                worst = None if run.comparison is None else run.comparison.max_abs_difference
                findings.append(
                    _differs(f"{height}x{width}", worst, f"<= {ONNX_TOLERANCE}", "reference")
                )
    return tuple(findings)


def _onnx_recursive_filter() -> tuple[VerificationFinding, ...]:
    from pixtreme.infer.errors import require_optional

    from ._onnx_export import build_onnx_model

    ort = require_optional("onnxruntime", extra="ort")
    session = ort.InferenceSession(
        build_onnx_model(RECURSIVE_FILTER).SerializeToString(deterministic=True),
        providers=["CPUExecutionProvider"],
    )
    findings = []
    for height, width in ONNX_SIZES:
        rng = np.random.default_rng(height * 17 + width)
        frames = [rng.random((height, width, 3), dtype=np.float32) for _ in range(5)]
        resets = [False, False, True, False, False]
        expected = recursive_filter_reference(frames, resets)
        history: np.ndarray | None = None
        for index, (frame, reset) in enumerate(zip(frames, resets, strict=True)):
            if history is None or reset:
                output = frame[None]  # first frame and reset: the module copies the frame
            else:
                output = session.run(None, {"input": frame[None], "history": history})[0]
            worst = float(np.abs(output[0] - expected[index]).max())
            if worst > ONNX_TOLERANCE:
                path = f"{height}x{width}/step-{index}"
                findings.append(_differs(path, worst, f"<= {ONNX_TOLERANCE}", "reference"))
            history = output
    return tuple(findings)


def _onnx_deterministic() -> tuple[VerificationFinding, ...]:
    from pixtreme.infer.errors import require_optional

    require_optional("onnx", extra="ort")
    from ._onnx_export import build_onnx_model

    findings = []
    for spec in NETWORKS.values():
        first = build_onnx_model(spec).SerializeToString(deterministic=True)
        second = build_onnx_model(spec).SerializeToString(deterministic=True)
        if first != second:
            findings.append(
                _differs(
                    spec.name,
                    hashlib.sha256(second).hexdigest(),
                    hashlib.sha256(first).hexdigest(),
                    "onnx-not-deterministic",
                )
            )
    return tuple(findings)


def onnx_report() -> VerificationReport:
    """ONNX graphs on onnxruntime (CPU) against the numpy references."""
    return VerificationReport(
        scope=f"{ARCHITECTURE}/onnx",
        checks=(
            _check("onnx-upscale-x2-reference", _onnx_upscale),
            _check("onnx-recursive-filter-reference", _onnx_recursive_filter),
            _check("onnx-deterministic-export", _onnx_deterministic),
        ),
    )


# --- weights and recipe identity -----------------------------------------------------------


def _weights_regenerate() -> tuple[VerificationFinding, ...]:
    return tuple(
        _differs(spec.name, "shipped file differs", "regenerated bytes", "weights-not-reproducible")
        for spec in NETWORKS.values()
        if serialize_weights(spec) != weights_path(spec).read_bytes()
    )


def _recipe_digests() -> tuple[VerificationFinding, ...]:
    findings = []
    for recipe, spec in RECIPE_NETWORKS.items():
        digest = hashlib.sha256(weights_path(spec).read_bytes()).hexdigest()
        if digest != RECIPE_WEIGHTS_SHA256[recipe]:
            findings.append(
                _differs(str(recipe), digest, RECIPE_WEIGHTS_SHA256[recipe], "weights-digest")
            )
    return tuple(findings)


def _exact_kernels() -> tuple[VerificationFinding, ...]:
    findings = []
    tensors = load_weights(UPSCALE_X2)
    image = np.random.default_rng(5).random((6, 9, 3))
    padded = np.pad(image, ((1, 1), (1, 1), (0, 0)), mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(0, 1))
    weight = tensors["conv.weight"].astype(np.float64)
    phases = np.einsum("hwcyx,ocyx->hwo", windows, weight) + tensors["conv.bias"]
    upscaled = phases.reshape(6, 9, 3, 2, 2).transpose(0, 3, 1, 4, 2).reshape(12, 18, 3)
    worst = float(np.abs(upscaled - upscale_x2_reference(image)).max())
    if worst > 1e-12:
        findings.append(_differs("upscale-x2/conv.weight", worst, "<= 1e-12", "not-bilinear"))
    alpha = load_weights(RECURSIVE_FILTER)["blend.alpha"].tolist()
    if alpha != list(RECURSIVE_FILTER_ALPHA):
        findings.append(
            _differs("recursive-filter/blend.alpha", alpha, RECURSIVE_FILTER_ALPHA, "alpha")
        )
    return tuple(findings)


def weights_report() -> VerificationReport:
    """Shipped weights: reproducible, pinned by recipe digests, exact interpolation kernels."""
    return VerificationReport(
        scope=f"{ARCHITECTURE}/weights",
        checks=(
            _check("weights-regenerate", _weights_regenerate),
            _check("recipe-weights-digest", _recipe_digests),
            _check("weights-exact-kernels", _exact_kernels),
        ),
    )


# --- contracts and parameter validation ----------------------------------------------------


def _family_contracts() -> tuple[VerificationFinding, ...]:
    findings = []
    for factory in (UpscaleX2Factory(), RecursiveFilterFactory()):
        family = factory.family_contract
        if factory.graph_factory().family_contract != family:
            findings.append(_differs(family.architecture, "graph family", "same", "graph-family"))
        if family.precisions != ("fp32",):
            findings.append(
                _differs(family.architecture, family.precisions, ("fp32",), "precision")
            )
    upscale = (
        UpscaleX2Factory()
        .query_contract(UPSCALE_X2_RECIPE, precision="fp32", input_hw=(5, 7))
        .module_contract
    )
    if upscale.output_hw != (10, 14):
        findings.append(_differs("upscale-x2/output_hw", upscale.output_hw, (10, 14), "scale"))
    temporal = (
        RecursiveFilterFactory()
        .query_contract(RECURSIVE_FILTER_RECIPE, precision="fp32", input_hw=(5, 7))
        .module_contract
    )
    if temporal.state_footprint.amount != 5 * 7 * 3 * 4:
        findings.append(
            _differs("recursive-filter/state", temporal.state_footprint.amount, 420, "footprint")
        )
    return tuple(findings)


def _rejection_findings(cases: tuple[RejectionCase, ...]) -> tuple[VerificationFinding, ...]:
    findings = []
    for case in cases:
        if case.error_type is None:
            findings.append(_differs(case.label, "accepted", "rejected", "not-rejected"))
        elif not has_error_shape(case.message):
            findings.append(
                _differs(case.label, case.message, "why=...; what=...; how=...", "message-shape")
            )
    return tuple(findings)


def _parameter_validation() -> tuple[VerificationFinding, ...]:
    upscale = (
        UpscaleX2Factory()
        .query_contract(UPSCALE_X2_RECIPE, precision="fp32", input_hw=(4, 4))
        .module_contract
    )
    temporal = (
        RecursiveFilterFactory()
        .query_contract(RECURSIVE_FILTER_RECIPE, precision="fp32", input_hw=(4, 4))
        .module_contract
    )
    cases = (
        RejectionCase.from_call(
            "upscale-undeclared-keyword", lambda: validate_call_params(upscale, {"strength"})
        ),
        RejectionCase.from_call(
            "upscale-reset-keyword", lambda: validate_call_params(upscale, {"reset"})
        ),
        RejectionCase.from_call(
            "filter-undeclared-keyword", lambda: validate_call_params(temporal, {"alpha"})
        ),
        RejectionCase.from_call(
            "engine-fp16", lambda: engine_declaration(UPSCALE_X2, input_hw=(4, 4), precision="fp16")
        ),
        RejectionCase.from_call("backend", lambda: UpscaleX2Factory(backend="onnx")),  # type: ignore[arg-type]
    )
    findings = list(_rejection_findings(cases))
    try:
        validate_call_params(temporal, {"reset"})
    except ContractError as error:
        findings.append(_differs("filter-reset-keyword", str(error), "accepted", "reset-rejected"))
    return tuple(findings)


def contracts_report() -> VerificationReport:
    """Family and open contracts, and rejection of undeclared parameters and settings."""
    return VerificationReport(
        scope=f"{ARCHITECTURE}/contracts",
        checks=(
            _check("family-contracts", _family_contracts),
            _check("parameter-validation", _parameter_validation),
        ),
    )


def selector_rejection(factory: UpscaleX2Factory | RecursiveFilterFactory) -> RejectionFacts:
    """query_contract rejects unknown recipes, precisions and sizes (no GPU needed)."""
    recipe = factory.recipe

    def query(artifact: object, precision: object = "fp32", hw: object = (8, 8)) -> object:
        return factory.query_contract(artifact, precision=precision, input_hw=hw)  # type: ignore[arg-type]

    other = UPSCALE_X2_RECIPE if recipe == RECURSIVE_FILTER_RECIPE else RECURSIVE_FILTER_RECIPE
    cases = (
        RejectionCase.from_call("other-recipe", lambda: query(other)),
        RejectionCase.from_call(
            "other-version", lambda: query(RecipeIdentity(name=recipe.name, version=2))
        ),
        RejectionCase.from_call("no-artifact", lambda: query(None)),
        RejectionCase.from_call("precision-fp16", lambda: query(recipe, "fp16")),
        RejectionCase.from_call("precision-unknown", lambda: query(recipe, "fp64")),
        RejectionCase.from_call("size-over-profile", lambda: query(recipe, "fp32", (4320, 8))),
        RejectionCase.from_call("size-zero", lambda: query(recipe, "fp32", (0, 8))),
    )
    return RejectionFacts(cases=cases)


# --- TensorRT and GPU reports --------------------------------------------------------------


def _engine_declarations() -> tuple[VerificationFinding, ...]:
    findings = []
    for spec in NETWORKS.values():
        declaration = engine_declaration(spec, input_hw=(6, 10))
        names = ([t.name for t in declaration.inputs], [t.name for t in declaration.outputs])
        expected = (["input", "history"] if spec.temporal else ["input"], ["output"])
        if names != expected:
            findings.append(_differs(f"{spec.name}/bindings", names, expected, "bindings"))
        scale = spec.spatial_scale
        if declaration.outputs[0].shape != (1, 6 * scale, 10 * scale, 3):
            findings.append(
                _differs(f"{spec.name}/output", declaration.outputs[0].shape, "scaled", "shape")
            )
    return tuple(findings)


def _sequence_findings(facts: SequenceFacts) -> tuple[VerificationFinding, ...]:
    return tuple(
        _differs(step.label, step.max_abs_difference, f"<= {step.tolerance}", "reference")
        for step in facts.steps
        if not step.max_abs_difference <= step.tolerance
    )


def backend_report() -> VerificationReport:
    """Both backends against the numpy reference on a GPU, and the engine declarations."""
    upscale = gpu.Subject(factory=UpscaleX2Factory(), recipe=UPSCALE_X2_RECIPE)
    temporal = gpu.Subject(factory=RecursiveFilterFactory(), recipe=RECURSIVE_FILTER_RECIPE)
    return VerificationReport(
        scope=f"{ARCHITECTURE}/backends",
        checks=(
            _check("tensorrt-engine-declarations", _engine_declarations),
            _check(
                "cupy-upscale-x2-reference",
                lambda: _sequence_findings(gpu.reference_sequence(upscale)),
            ),
            _check(
                "cupy-recursive-filter-reference",
                lambda: _sequence_findings(gpu.reference_sequence(temporal)),
            ),
            _check(
                "tensorrt-upscale-x2-reference",
                lambda: _sequence_findings(gpu.tensorrt_reference(upscale)),
            ),
            _check(
                "tensorrt-recursive-filter-reference",
                lambda: _sequence_findings(gpu.tensorrt_reference(temporal)),
            ),
        ),
    )


# --- the hook ------------------------------------------------------------------------------


def _common(subject: gpu.Subject, network: str) -> CommonContractCases:
    factory = subject.factory
    return CommonContractCases(
        frame_boundary=gpu.bind(gpu.frame_boundary, subject),
        dlpack_allocation=gpu.bind(gpu.dlpack_allocation, subject),
        engine_round_trip=functools.partial(gpu.engine_round_trip, network),
        engine_incompatibility=functools.partial(gpu.engine_incompatibility, network),
        checkpoint_selector_rejection=functools.partial(selector_rejection, factory),
    )


def _factory_cases(subject: gpu.Subject) -> FactoryContractCases:
    return FactoryContractCases(
        query_gpu_allocation=gpu.bind(gpu.query_allocation, subject),
        opened_contract=gpu.bind(gpu.opened_contract, subject),
        closed_inference=gpu.bind(gpu.closed_inference, subject),
    )


def _upscale_suite(factory: UpscaleX2Factory, name: str) -> StatelessContractSuite:
    subject = gpu.Subject(factory=factory, recipe=UPSCALE_X2_RECIPE)
    return StatelessContractSuite(
        name=name,
        contract=factory.query_contract(
            UPSCALE_X2_RECIPE, precision="fp32", input_hw=gpu.VERIFY_HW
        ).module_contract,
        common=_common(subject, UPSCALE_X2.name),
        factory=_factory_cases(subject),
    )


def _temporal_suite(factory: RecursiveFilterFactory, name: str) -> TemporalContractSuite:
    subject = gpu.Subject(factory=factory, recipe=RECURSIVE_FILTER_RECIPE)
    return TemporalContractSuite(
        name=name,
        contract=factory.query_contract(
            RECURSIVE_FILTER_RECIPE, precision="fp32", input_hw=gpu.VERIFY_HW
        ).module_contract,
        common=_common(subject, RECURSIVE_FILTER.name),
        factory=_factory_cases(subject),
        reset_equivalence=gpu.bind(gpu.reset_equivalence, subject),
        reset_continuation=gpu.bind(gpu.reference_sequence, subject),
        instance_isolation=gpu.bind(gpu.instance_isolation, subject),
        state_footprint=gpu.bind(gpu.state_lifecycle, subject),
    )


def _graph_report(
    module: StatelessContractSuite | TemporalContractSuite,
    normal: UpscaleX2Factory | RecursiveFilterFactory,
) -> VerificationReport:
    recipe = normal.recipe
    replay = functools.partial(
        gpu.graph_replay_equivalence,
        gpu.Subject(factory=normal, recipe=recipe),
        gpu.Subject(factory=normal.graph_factory(), recipe=recipe),
    )
    return verify_cuda_graph_contract(
        CudaGraphContractSuite(module=module, replay_equivalence=replay)
    )


def verification_cases() -> ArchitectureCases:
    """The example's published cases (cheap: evidence is gathered when the checks run)."""
    upscale, temporal = UpscaleX2Factory(), RecursiveFilterFactory()
    suites = (
        _upscale_suite(upscale, f"{ARCHITECTURE}/upscale-x2"),
        _temporal_suite(temporal, f"{ARCHITECTURE}/recursive-filter"),
    )
    graph_suites = (
        _upscale_suite(upscale.graph_factory(), f"{ARCHITECTURE}/upscale-x2/cuda-graph"),
        _temporal_suite(temporal.graph_factory(), f"{ARCHITECTURE}/recursive-filter/cuda-graph"),
    )
    gaps = []
    reason = tensorrt_unavailable_reason()
    if reason is not None:
        gaps.append(("tensorrt-backend", reason))
    return ArchitectureCases(
        architecture=ARCHITECTURE,
        suites=suites,
        reports=(
            onnx_report,
            weights_report,
            contracts_report,
            backend_report,
            functools.partial(_graph_report, graph_suites[0], upscale),
            functools.partial(_graph_report, graph_suites[1], temporal),
            functools.partial(
                _request_rejection_report,
                gpu.Subject(factory=upscale, recipe=UPSCALE_X2_RECIPE),
                gpu.Subject(factory=temporal, recipe=RECURSIVE_FILTER_RECIPE),
            ),
        ),
        unverified=tuple(gaps),
    )


def _request_rejection_report(*subjects: gpu.Subject) -> VerificationReport:
    checks = [
        _check(
            f"request-rejection-{subject.factory.family_contract.architecture.split('.')[-1]}",
            functools.partial(
                lambda s: _rejection_findings(gpu.request_rejection(s).cases), subject
            ),
        )
        for subject in subjects
    ]
    return VerificationReport(scope=f"{ARCHITECTURE}/requests", checks=tuple(checks))
