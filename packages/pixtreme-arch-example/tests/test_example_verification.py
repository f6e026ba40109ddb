"""The published verification cases, run through the core's verification on this machine."""

from __future__ import annotations

from pathlib import Path

import pixtreme.infer.example as example
import pytest
from pixtreme.infer.example import _verification
from pixtreme.infer.example._gpu_evidence import gpu_unavailable_reason
from pixtreme.infer.example._tensorrt_backend import tensorrt_unavailable_reason
from pixtreme.infer.verification import (
    ArchitectureCases,
    CheckStatus,
    VerificationReport,
    verify_cases,
)

# Checks that need neither a GPU nor TensorRT: they must pass on every machine.
CPU_CHECKS = {
    "example/onnx": {
        "onnx-upscale-x2-reference",
        "onnx-recursive-filter-reference",
        "onnx-deterministic-export",
    },
    "example/weights": {"weights-regenerate", "recipe-weights-digest", "weights-exact-kernels"},
    "example/contracts": {"family-contracts", "parameter-validation"},
    "example/backends": {"tensorrt-engine-declarations"},
    "example/upscale-x2": {"checkpoint-selector-rejection"},
    "example/recursive-filter": {"checkpoint-selector-rejection"},
}


@pytest.fixture(scope="module")
def reports() -> dict[str, VerificationReport]:
    cases = example.verification_cases()
    assert isinstance(cases, ArchitectureCases)
    return {report.scope: report for report in verify_cases(cases)}


def test_hook_publishes_both_suites_and_reports() -> None:
    cases = example.verification_cases()
    assert cases.architecture == "example"
    assert [suite.name for suite in cases.suites] == [
        "example/upscale-x2",
        "example/recursive-filter",
    ]
    assert len(cases.reports) == 7


@pytest.mark.extras("onnxruntime", "onnx")
def test_cpu_checks_pass(reports: dict[str, VerificationReport]) -> None:
    for scope, names in CPU_CHECKS.items():
        for name in names:
            check = reports[scope].check(name)
            assert check.status is CheckStatus.PASSED, (scope, name, check.findings)


def test_nothing_fails(reports: dict[str, VerificationReport]) -> None:
    failed = [
        (scope, check.name, check.findings)
        for scope, report in reports.items()
        for check in report.checks
        if check.status is CheckStatus.FAILED
    ]
    assert failed == []


def test_gpu_checks_are_unverified_with_the_reason_without_a_gpu(
    reports: dict[str, VerificationReport],
) -> None:
    reason = gpu_unavailable_reason()
    if reason is None:
        pytest.skip("a CUDA GPU is usable here; the GPU checks run in test_example_gpu.py")
    for scope in ("example/upscale-x2", "example/recursive-filter"):
        for name in ("frame-boundary", "dlpack-allocation", "opened-contract", "closed-inference"):
            check = reports[scope].check(name)
            assert check.status is CheckStatus.UNVERIFIED
            assert reason in check.findings[0].detail
    for scope in ("example/upscale-x2/cuda-graph", "example/recursive-filter/cuda-graph"):
        replay = reports[scope].check("graph-replay-equivalence")
        assert replay.status is CheckStatus.UNVERIFIED
        assert reason in replay.findings[0].detail
    assert reports["example/upscale-x2"].check("reset-equivalence").status is (
        CheckStatus.NOT_APPLICABLE
    )


def test_missing_tensorrt_is_a_declared_gap(reports: dict[str, VerificationReport]) -> None:
    reason = tensorrt_unavailable_reason()
    if reason is None:
        pytest.skip("TensorRT is installed here")
    gap = reports["example/declared-gaps"].check("tensorrt-backend")
    assert gap.status is CheckStatus.UNVERIFIED
    assert "tensorrt" in gap.findings[0].detail


def test_altered_weights_fail_the_weights_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    altered = tmp_path / "upscale_x2.safetensors"
    data = bytearray(example.weights_path(example.UPSCALE_X2).read_bytes())
    data[-1] ^= 0x01
    altered.write_bytes(bytes(data))
    monkeypatch.setattr(_verification, "weights_path", lambda spec: altered)
    report = _verification.weights_report()
    assert report.check("weights-regenerate").status is CheckStatus.FAILED
    assert report.check("recipe-weights-digest").status is CheckStatus.FAILED


@pytest.mark.extras("onnxruntime", "onnx")
def test_a_wrong_reference_fails_the_onnx_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        _verification, "upscale_x2_reference", lambda image: image.repeat(2, 0).repeat(2, 1)
    )
    report = _verification.onnx_report()
    check = report.check("onnx-upscale-x2-reference")
    assert check.status is CheckStatus.FAILED
    assert check.findings[0].code == "reference"
