"""The example's own reports: its references, weights, contracts and backends.

ONNX graphs run on onnxruntime's CPU provider against the numpy references; the weights must
regenerate byte for byte and hold exact kernels; the contracts must reject what the example
does not offer; each backend (CuPy, TensorRT) must match the references on a GPU. A check
whose evidence cannot be gathered here is unverified with the reason, never passed.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

import numpy as np
from pixtreme.infer.contracts import validate_call_params
from pixtreme.infer.dependencies import require_optional
from pixtreme.infer.errors import ContractError, EvidenceUnavailable, OptionalDependencyError
from pixtreme.infer.verification.contracts import (
    CheckResult,
    SequenceFacts,
    VerificationFinding,
    VerificationReport,
)
from pixtreme.infer.verification.evidence import EvidenceSubject, reference_facts

from ._engine_evidence import require_tensorrt
from ._factories import SUPPORTED_PRECISIONS, RecursiveFilterFactory, UpscaleX2Factory
from ._networks import NETWORKS, RECURSIVE_FILTER, RECURSIVE_FILTER_ALPHA, UPSCALE_X2
from ._recipes import RECIPE_NETWORKS, RECIPE_WEIGHTS_SHA256
from ._reference import recursive_filter_reference, upscale_x2_reference
from ._tensorrt_backend import engine_declaration
from ._weights import load_weights, serialize_weights, weights_path

ARCHITECTURE: Final = "example"
#: Largest difference accepted between an onnxruntime output and the float64 reference.
ONNX_TOLERANCE: Final = 1e-5
ONNX_SIZES: Final = ((1, 1), (7, 5), (16, 24))

_ERROR_SHAPE = re.compile(r"why=.+; what=.+; how=.+", re.DOTALL)

Judge = Callable[[], list[VerificationFinding]]


def _finding(path: str, observed: object, expected: object, code: str) -> VerificationFinding:
    return VerificationFinding(code, path, observed, expected, f"{path}: {code}")


def _check(name: str, judge: Judge) -> CheckResult:
    """Run ``judge``: findings fail the check; unavailable evidence leaves it unverified."""
    try:
        findings = judge()
    except (EvidenceUnavailable, OptionalDependencyError) as error:
        finding = VerificationFinding("evidence-unavailable", name, error.what, None, str(error))
        return CheckResult(name, "unverified", (finding,))
    return CheckResult(name, "failed" if findings else "passed", tuple(findings))


# --- ONNX on onnxruntime (CPU) -------------------------------------------------------------


def _onnx_upscale() -> list[VerificationFinding]:
    from pixtreme.infer.onnx import OnnxTolerance, verify_onnx

    from ._onnx_export import export_onnx

    findings = []
    with tempfile.TemporaryDirectory(prefix="pixtreme-example-onnx-") as folder:
        path = export_onnx(UPSCALE_X2, Path(folder) / "upscale_x2.onnx")
        for height, width in ONNX_SIZES:
            image = np.random.default_rng(height * 31 + width).random(
                (1, height, width, 3), dtype=np.float32
            )
            run = verify_onnx(
                path,
                image,
                reference=upscale_x2_reference(image[0])[None],
                tolerance=OnnxTolerance(max_abs=ONNX_TOLERANCE),
                raise_on_mismatch=False,
            )
            comparison = run.comparison
            if comparison is None or not comparison.passed:
                worst = None if comparison is None else comparison.max_abs_difference
                findings.append(
                    _finding(f"{height}x{width}", worst, f"<= {ONNX_TOLERANCE}", "reference")
                )
    return findings


def _onnx_recursive_filter() -> list[VerificationFinding]:
    # The filter step binds input and history, so it runs on onnxruntime directly rather than
    # through verify_onnx (which accepts exactly one input called "input").
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
                findings.append(_finding(path, worst, f"<= {ONNX_TOLERANCE}", "reference"))
            history = output
    return findings


def _onnx_deterministic() -> list[VerificationFinding]:
    require_optional("onnx", extra="ort")
    from ._onnx_export import build_onnx_model

    findings = []
    for spec in NETWORKS.values():
        first = build_onnx_model(spec).SerializeToString(deterministic=True)
        second = build_onnx_model(spec).SerializeToString(deterministic=True)
        if first != second:
            digests = (hashlib.sha256(second).hexdigest(), hashlib.sha256(first).hexdigest())
            findings.append(_finding(spec.name, *digests, "onnx-not-deterministic"))
    return findings


def onnx_report() -> VerificationReport:
    """ONNX graphs on onnxruntime (CPU) against the numpy references."""
    return VerificationReport(
        f"{ARCHITECTURE}/onnx",
        (
            _check("onnx-upscale-x2-reference", _onnx_upscale),
            _check("onnx-recursive-filter-reference", _onnx_recursive_filter),
            _check("onnx-deterministic-export", _onnx_deterministic),
        ),
    )


# --- weights and recipe identity -----------------------------------------------------------


def _weights_regenerate() -> list[VerificationFinding]:
    return [
        _finding(spec.name, "shipped file differs", "regenerated bytes", "weights-not-reproducible")
        for spec in NETWORKS.values()
        if serialize_weights(spec) != weights_path(spec).read_bytes()
    ]


def _recipe_digests() -> list[VerificationFinding]:
    findings = []
    for recipe, spec in RECIPE_NETWORKS.items():
        digest = hashlib.sha256(weights_path(spec).read_bytes()).hexdigest()
        if digest != RECIPE_WEIGHTS_SHA256[recipe]:
            findings.append(
                _finding(str(recipe), digest, RECIPE_WEIGHTS_SHA256[recipe], "weights-digest")
            )
    return findings


def _exact_kernels() -> list[VerificationFinding]:
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
        findings.append(_finding("upscale-x2/conv.weight", worst, "<= 1e-12", "not-bilinear"))
    alpha = load_weights(RECURSIVE_FILTER)["blend.alpha"].tolist()
    if alpha != list(RECURSIVE_FILTER_ALPHA):
        findings.append(
            _finding("recursive-filter/blend.alpha", alpha, RECURSIVE_FILTER_ALPHA, "alpha")
        )
    return findings


def weights_report() -> VerificationReport:
    """Shipped weights: reproducible, pinned by recipe digests, exact interpolation kernels."""
    return VerificationReport(
        f"{ARCHITECTURE}/weights",
        (
            _check("weights-regenerate", _weights_regenerate),
            _check("recipe-weights-digest", _recipe_digests),
            _check("weights-exact-kernels", _exact_kernels),
        ),
    )


# --- contracts and parameter validation ----------------------------------------------------


def _family_contracts() -> list[VerificationFinding]:
    findings = []
    for factory in (UpscaleX2Factory(), RecursiveFilterFactory()):
        name = factory.network.name
        family = factory.family_contract
        if factory.graph_factory().family_contract != family:
            findings.append(_finding(name, "graph family", "same family", "graph-family"))
        if family.params != ():
            findings.append(_finding(f"{name}/params", family.params, (), "params"))
        opened = factory.query_contract(factory.recipe, precision="fp32", input_hw=(5, 7))
        if opened.scale != factory.network.spatial_scale:
            scale = factory.network.spatial_scale
            findings.append(_finding(f"{name}/scale", opened.scale, scale, "scale"))
    temporal = RecursiveFilterFactory().query_contract(
        RecursiveFilterFactory.recipe, precision="fp32", input_hw=(5, 7)
    )
    if temporal.state_footprint.amount != 5 * 7 * 3 * 4:
        amount = temporal.state_footprint.amount
        findings.append(_finding("recursive-filter/state", amount, 420, "footprint"))
    if SUPPORTED_PRECISIONS != ("fp32",):
        findings.append(_finding("precisions", SUPPORTED_PRECISIONS, ("fp32",), "precision"))
    return findings


def _rejection(label: str, call: Callable[[], object]) -> list[VerificationFinding]:
    try:
        call()
    except Exception as error:
        message = str(error)
        if _ERROR_SHAPE.search(message):
            return []
        return [_finding(label, message, "why=...; what=...; how=...", "message-shape")]
    return [_finding(label, "accepted", "rejected", "not-rejected")]


def _parameter_validation() -> list[VerificationFinding]:
    upscale = (
        UpscaleX2Factory()
        .query_contract(UpscaleX2Factory.recipe, precision="fp32", input_hw=(4, 4))
        .module_contract
    )
    temporal = (
        RecursiveFilterFactory()
        .query_contract(RecursiveFilterFactory.recipe, precision="fp32", input_hw=(4, 4))
        .module_contract
    )
    cases: tuple[tuple[str, Callable[[], object]], ...] = (
        ("upscale-undeclared-keyword", lambda: validate_call_params(upscale, {"strength"})),
        ("upscale-reset-keyword", lambda: validate_call_params(upscale, {"reset"})),
        ("filter-undeclared-keyword", lambda: validate_call_params(temporal, {"alpha"})),
        (
            "engine-fp16",
            lambda: engine_declaration(UPSCALE_X2, input_hw=(4, 4), precision="fp16"),
        ),
        ("backend", lambda: UpscaleX2Factory(backend="onnx")),  # type: ignore[arg-type]
    )
    findings = [finding for label, call in cases for finding in _rejection(label, call)]
    try:
        validate_call_params(temporal, {"reset"})
    except ContractError as error:
        findings.append(_finding("filter-reset-keyword", str(error), "accepted", "reset-rejected"))
    return findings


def contracts_report() -> VerificationReport:
    """Family and open contracts, and rejection of undeclared parameters and settings."""
    return VerificationReport(
        f"{ARCHITECTURE}/contracts",
        (
            _check("family-contracts", _family_contracts),
            _check("parameter-validation", _parameter_validation),
        ),
    )


# --- backends --------------------------------------------------------------------------------


def _engine_declarations() -> list[VerificationFinding]:
    findings = []
    for spec in NETWORKS.values():
        declaration = engine_declaration(spec, input_hw=(6, 10))
        names = ([t.name for t in declaration.inputs], [t.name for t in declaration.outputs])
        expected = (["input", "history"] if spec.temporal else ["input"], ["output"])
        if names != expected:
            findings.append(_finding(f"{spec.name}/bindings", names, expected, "bindings"))
        scale = spec.spatial_scale
        if declaration.outputs[0].shape != (1, 6 * scale, 10 * scale, 3):
            shape = declaration.outputs[0].shape
            findings.append(_finding(f"{spec.name}/output", shape, "scaled", "shape"))
    return findings


def sequence_findings(
    facts: SequenceFacts, equivalent: Callable[[object, object], bool]
) -> list[VerificationFinding]:
    """One finding per call whose output differs from the reference."""
    return [
        _finding(f"call-{index}", observed, expected, "reference")
        for index, (expected, observed) in enumerate(
            zip(facts.reference, facts.candidate, strict=True)
        )
        if not equivalent(expected, observed)
    ]


def _against_reference(subject: EvidenceSubject, *, tensorrt: bool) -> Judge:
    def judge() -> list[VerificationFinding]:
        if tensorrt:
            require_tensorrt()
        return sequence_findings(reference_facts(subject), subject.outputs_equivalent)

    return judge


def backend_report(subjects: dict[str, EvidenceSubject]) -> VerificationReport:
    """The engine declarations, and each backend against the numpy references on a GPU.

    ``subjects`` maps each check name to the subject it runs (``tensorrt-*`` ones need
    TensorRT as well).
    """
    checks = [_check("tensorrt-engine-declarations", _engine_declarations)]
    checks.extend(
        _check(name, _against_reference(subject, tensorrt=name.startswith("tensorrt")))
        for name, subject in subjects.items()
    )
    return VerificationReport(f"{ARCHITECTURE}/backends", tuple(checks))
