"""The published verification cases, run through the core's verification on this machine."""

from __future__ import annotations

from pathlib import Path

import pixtreme.infer.example as example
import pytest
from pixtreme.infer.contracts import StatelessOpenContract
from pixtreme.infer.errors import ContractError
from pixtreme.infer.example import _reports, _verification
from pixtreme.infer.example._tensorrt_backend import tensorrt_unavailable_reason
from pixtreme.infer.verification import (
    ArchitectureCases,
    CudaGraphContractSuite,
    StatelessContractSuite,
    TemporalContractSuite,
    VerificationReport,
    verify_cases,
)
from pixtreme.infer.verification.evidence import cuda_unavailable_reason

UPSCALE, FILTER = "example/module-contract/0", "example/module-contract/1"
UPSCALE_GRAPHS, FILTER_GRAPHS = "example/cuda-graph-contract/2", "example/cuda-graph-contract/3"

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
    UPSCALE: {"checkpoint-selector-rejection"},
    FILTER: {"checkpoint-selector-rejection"},
    UPSCALE_GRAPHS: {"checkpoint-selector-rejection"},
    FILTER_GRAPHS: {"checkpoint-selector-rejection"},
}
# Harvested on a GPU by the core's evidence module.
GPU_CHECKS = ("frame-boundary", "dlpack-allocation", "opened-contract", "closed-inference")


@pytest.fixture(scope="module")
def reports() -> dict[str, VerificationReport]:
    cases = example.verification_cases()
    assert isinstance(cases, ArchitectureCases)
    return {report.scope: report for report in verify_cases(cases)}


def test_hook_publishes_module_and_graph_suites_and_reports() -> None:
    cases = example.verification_cases()
    assert cases.architecture == "example"
    kinds = [type(suite) for suite in cases.suites]
    assert kinds == [
        StatelessContractSuite,
        TemporalContractSuite,
        CudaGraphContractSuite,
        CudaGraphContractSuite,
    ]
    graphs = cases.suites[2]
    assert isinstance(graphs, CudaGraphContractSuite)
    assert isinstance(graphs.module, StatelessContractSuite)
    assert len(cases.reports) == 4


def test_suites_check_the_queried_contracts() -> None:
    cases = example.verification_cases()
    upscale = cases.suites[0]
    assert isinstance(upscale, StatelessContractSuite)
    queried = example.UpscaleX2Factory().query_contract(
        example.UPSCALE_X2_RECIPE, precision="fp32", input_hw=_verification.VERIFY_HW
    )
    assert isinstance(queried, StatelessOpenContract)
    assert upscale.contract == queried.module_contract


@pytest.mark.extras("onnxruntime", "onnx")
def test_cpu_checks_pass(reports: dict[str, VerificationReport]) -> None:
    for scope, names in CPU_CHECKS.items():
        for name in names:
            check = reports[scope].check(name)
            assert check.status == "passed", (scope, name, check.findings)


def test_nothing_fails(reports: dict[str, VerificationReport]) -> None:
    failed = [
        (scope, check.name, check.findings)
        for scope, report in reports.items()
        for check in report.checks
        if check.status == "failed"
    ]
    assert failed == []


def test_gpu_checks_are_unverified_with_the_reason_without_a_gpu(
    reports: dict[str, VerificationReport],
) -> None:
    reason = cuda_unavailable_reason()
    if reason is None:
        pytest.skip("a CUDA GPU is usable here; the GPU checks run in test_example_gpu.py")
    for scope in (UPSCALE, FILTER, UPSCALE_GRAPHS, FILTER_GRAPHS):
        for name in GPU_CHECKS:
            check = reports[scope].check(name)
            assert check.status == "unverified", (scope, name)
            assert check.findings[0].code == "evidence-unavailable"
            assert reason in check.findings[0].detail
    for scope in (FILTER, FILTER_GRAPHS):
        for name in ("reset-equivalence", "reset-continuation", "state-footprint"):
            assert reports[scope].check(name).status == "unverified"
    for scope in (UPSCALE_GRAPHS, FILTER_GRAPHS):
        replay = reports[scope].check("graph-replay-equivalence")
        assert replay.status == "unverified"
        assert reason in replay.findings[0].detail
    assert reports[UPSCALE].check("reset-equivalence").status == "not-applicable"
    backends = reports["example/backends"]
    assert backends.check("cupy-upscale-x2-reference").status == "unverified"


def test_nothing_that_needs_a_gpu_passes_without_one(
    reports: dict[str, VerificationReport],
) -> None:
    if cuda_unavailable_reason() is None:
        pytest.skip("a CUDA GPU is usable here")
    passed = {
        (scope, check.name)
        for scope, report in reports.items()
        for check in report.checks
        if check.status == "passed"
    }
    assert passed <= {(scope, name) for scope, names in CPU_CHECKS.items() for name in names}


def test_missing_tensorrt_is_a_declared_gap(reports: dict[str, VerificationReport]) -> None:
    reason = tensorrt_unavailable_reason()
    if reason is None:
        pytest.skip("TensorRT is installed here")
    gap = reports["example/declared-gaps"].check("tensorrt-backend")
    assert gap.status == "unverified"
    assert "tensorrt" in gap.findings[0].detail


def test_setting_cases_name_what_the_errors_must_show() -> None:
    for factory in (example.UpscaleX2Factory(), example.RecursiveFilterFactory()):
        for case in _verification.setting_cases(factory):
            with pytest.raises(ContractError, match="why=") as caught:
                factory.query_contract(
                    case.artifact_identity,
                    precision=case.precision,  # type: ignore[arg-type]
                    input_hw=case.input_hw,  # type: ignore[arg-type]
                )
            message = str(caught.value)
            assert str(case.observed) in message, case.name
            assert str(case.expected) in message, case.name


def test_graph_slack_covers_the_fixed_graph_storage() -> None:
    frame = 12 * 21 * 3 * 4
    assert _verification.STATE_SLACK == 1024
    assert _verification.GRAPH_STATE_SLACK == 1024 + 2 * 3072
    assert _verification.STATE_SLACK + 2 * frame <= _verification.GRAPH_STATE_SLACK


def test_altered_weights_fail_the_weights_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    altered = tmp_path / "upscale_x2.safetensors"
    data = bytearray(example.weights_path(example.UPSCALE_X2).read_bytes())
    data[-1] ^= 0x01
    altered.write_bytes(bytes(data))
    monkeypatch.setattr(_reports, "weights_path", lambda spec: altered)
    report = _reports.weights_report()
    assert report.check("weights-regenerate").status == "failed"
    assert report.check("recipe-weights-digest").status == "failed"


@pytest.mark.extras("onnxruntime", "onnx")
def test_a_wrong_reference_fails_the_onnx_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        _reports, "upscale_x2_reference", lambda image: image.repeat(2, 0).repeat(2, 1)
    )
    report = _reports.onnx_report()
    check = report.check("onnx-upscale-x2-reference")
    assert check.status == "failed"
    assert check.findings[0].code == "reference"
