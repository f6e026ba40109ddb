"""Output records (comparisons, measurements, distributions, ONNX runs, results, facts, cases)
validate their fields when constructed and reject bad values with the actionable error shape."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pixtreme.infer.contracts import FrameFieldMismatch, StatelessModuleContract
from pixtreme.infer.errors import ContractError
from pixtreme.infer.onnx import (
    OnnxOutputContract,
    OnnxReferenceComparison,
    OnnxRun,
    OnnxTolerance,
)
from pixtreme.infer.verification import (
    ArchitectureCases,
    CheckResult,
    CheckStatus,
    ClosedInferenceFacts,
    CommonContractCases,
    ComparisonSummary,
    DistributionFacts,
    DistributionPolicy,
    DriftSummary,
    FactoryContractCases,
    LatencySummary,
    OpenedContractFacts,
    RejectionCase,
    RejectionFacts,
    RequestMeasurement,
    RgbComparison,
    SequenceFacts,
    TemporalContractSuite,
    ThroughputSummary,
    VerificationFinding,
    VerificationReport,
    compare_rgb,
    has_error_shape,
    measure_requests,
    summarize_comparisons,
    summarize_drift,
    summarize_latency,
    summarize_throughput,
)

pytestmark = pytest.mark.req("issue6.output-records.validate")

_ONNX = OnnxOutputContract(batch=1, channels=3, spatial_scale=1, dtype="float32")


def _comparison() -> RgbComparison:
    reference = np.zeros((2, 2, 3))
    output = reference.copy()
    output[0, 0, 0] = 0.1
    return compare_rgb(output, reference)


def _summary() -> ComparisonSummary:
    image = np.zeros((2, 2, 3))
    return summarize_comparisons((_comparison(), compare_rgb(image, image)))


def _measurement() -> RequestMeasurement:
    return measure_requests(lambda: None, samples=5, warmup=0)


def _distribution() -> DistributionFacts:
    return DistributionFacts(
        kind="wheel",
        name="pixtreme-arch-demo",
        version="1.2.3",
        requires_dist=("pixtreme-infer",),
        extras=("trt",),
        console_scripts=(("demo", "pixtreme.infer.demo:main"),),
        files=("pixtreme/infer/demo/__init__.py",),
    )


def _policy() -> DistributionPolicy:
    return DistributionPolicy(name="demo", allowed_prefixes=("pixtreme/infer/demo/",))


def _reference_comparison() -> OnnxReferenceComparison:
    return OnnxReferenceComparison(
        max_abs_difference=1e-6,
        mean_abs_difference=1e-7,
        tolerance=OnnxTolerance(max_abs=1e-5),
        passed=True,
    )


def _onnx_run() -> OnnxRun:
    return OnnxRun(output=np.zeros((1, 4, 4, 3), np.float32), contract=_ONNX, comparison=None)


def _finding() -> VerificationFinding:
    return VerificationFinding(code="c", path="p")


def _check() -> CheckResult:
    return CheckResult(name="n", status=CheckStatus.PASSED)


def _report() -> VerificationReport:
    return VerificationReport(scope="s", checks=(_check(),))


def _opened(stateless_contract: StatelessModuleContract) -> OpenedContractFacts:
    return OpenedContractFacts(queried=stateless_contract, opened=stateless_contract)


# (valid factory, replaced fields, regex the error must match); ids name the type and field.
_CASES: list[Any] = [
    pytest.param(_comparison, {"components": 0}, "components must be an int >= 1", id="rgb-zero"),
    pytest.param(_comparison, {"components": True}, "components must be an int", id="rgb-bool"),
    pytest.param(
        _comparison, {"nonfinite_output": -1}, "nonfinite_output must be an int >= 0", id="rgb-neg"
    ),
    pytest.param(
        _comparison,
        {"nonfinite_reference": 13},
        "nonfinite_reference must be at most components=12",
        id="rgb-nonfinite-count",
    ),
    pytest.param(_comparison, {"mse": math.nan}, "mse must be a finite number", id="rgb-mse-nan"),
    pytest.param(_comparison, {"mse": -0.5}, r"mse must be .* >= 0\.0", id="rgb-mse-negative"),
    pytest.param(_comparison, {"max_abs_difference": 1.5}, r"<= 1\.0", id="rgb-max-above-one"),
    pytest.param(
        _comparison,
        {"off_by_more_than_one_code": 2.0},
        "off_by_more_than_one_code must be",
        id="rgb-ratio",
    ),
    pytest.param(_comparison, {"psnr_db": math.nan}, "psnr_db must be a number", id="rgb-psnr-nan"),
    pytest.param(_comparison, {"psnr_db": "40"}, "psnr_db must be a number", id="rgb-psnr-str"),
    pytest.param(
        _comparison,
        {"psnr_db": math.inf},
        "psnr_db must be infinite exactly when mse is 0",
        id="rgb-psnr-inf-with-error",
    ),
    pytest.param(_summary, {"count": 0}, "count must be an int >= 1", id="summary-count"),
    pytest.param(_summary, {"psnr_min_db": math.nan}, "psnr_min_db must be", id="summary-nan"),
    pytest.param(
        _summary,
        {"psnr_min_db": 1e9},
        "needs psnr_min_db <= psnr_p5_db <= psnr_median_db",
        id="summary-psnr-order",
    ),
    pytest.param(_summary, {"ratio_max": 1.5}, "ratio_max must be", id="summary-ratio-range"),
    pytest.param(
        _summary, {"ratio_p95": 0.9}, r"ratio_p95=0\.9 > ratio_max", id="summary-ratio-order"
    ),
    pytest.param(
        lambda: summarize_latency((0.1, 0.2, 0.3)),
        {"min_s": -1.0},
        r"min_s must be a finite number >= 0\.0",
        id="latency-negative",
    ),
    pytest.param(
        lambda: summarize_latency((0.1, 0.2, 0.3)),
        {"mean_s": math.inf},
        "mean_s must be a finite number",
        id="latency-inf",
    ),
    pytest.param(
        lambda: summarize_latency((0.1, 0.2, 0.3)),
        {"max_s": 0.15},
        "needs min_s <= mean_s <= max_s",
        id="latency-max-below-mean",
    ),
    pytest.param(
        lambda: summarize_latency((0.1, 0.2, 0.3)),
        {"p95_s": 0.15},
        r"median_s=0\.2 > p95_s=0\.15",
        id="latency-p95-below-median",
    ),
    pytest.param(
        lambda: summarize_latency((0.1, 0.2, 0.3)),
        {"stdev_s": math.nan},
        "stdev_s must be",
        id="latency-stdev",
    ),
    pytest.param(
        lambda: summarize_throughput(10, 2.0),
        {"requests": 0},
        "requests must be an int >= 1",
        id="throughput-requests",
    ),
    pytest.param(
        lambda: summarize_throughput(10, 2.0),
        {"elapsed_s": 0.0, "requests_per_s": 5.0},
        "needs elapsed_s > 0",
        id="throughput-zero-time",
    ),
    pytest.param(
        lambda: summarize_throughput(10, 2.0),
        {"requests_per_s": 7.0},
        "requests_per_s = requests / elapsed_s",
        id="throughput-rate",
    ),
    pytest.param(
        lambda: summarize_drift((1.0, 1.0, 3.0, 2.0, 2.0), 2),
        {"window": 0},
        "window must be an int >= 1",
        id="drift-window",
    ),
    pytest.param(
        lambda: summarize_drift((1.0, 1.0, 3.0, 2.0, 2.0), 2),
        {"first_median_s": -1.0},
        "first_median_s must be",
        id="drift-negative",
    ),
    pytest.param(
        lambda: summarize_drift((1.0, 1.0, 3.0, 2.0, 2.0), 2),
        {"relative_change": 0.5},
        r"relative_change is \(last - first\) / first",
        id="drift-change",
    ),
    pytest.param(
        lambda: summarize_drift((1.0, 1.0, 3.0, 2.0, 2.0), 2),
        {"relative_change": -2.0},
        r"relative_change must be a finite number >= -1\.0",
        id="drift-below-minus-one",
    ),
    pytest.param(
        _measurement, {"latencies_s": ()}, "latencies_s must be a non-empty tuple", id="meas-empty"
    ),
    pytest.param(
        _measurement,
        {"latencies_s": [0.1] * 5},
        "latencies_s must be a non-empty tuple",
        id="meas-list",
    ),
    pytest.param(
        _measurement, {"latencies_s": (-1.0,) * 5}, "latencies_s must be a finite", id="meas-neg"
    ),
    pytest.param(_measurement, {"latency": "x"}, "latency must be a LatencySummary", id="meas-lat"),
    pytest.param(
        _measurement,
        {"throughput": summarize_throughput(4, 1.0)},
        r"throughput must be requests == len\(latencies_s\) == 5",
        id="meas-throughput-count",
    ),
    pytest.param(
        _measurement,
        {"drift": summarize_drift((1.0,) * 6, 6)},
        r"drift must be window <= len\(latencies_s\) == 5",
        id="meas-drift-window",
    ),
    pytest.param(
        _measurement, {"telemetry": ["x"]}, "telemetry must be a tuple", id="meas-telemetry"
    ),
    pytest.param(
        _measurement,
        {"telemetry_error": 3},
        "telemetry_error must be a string or None",
        id="meas-telemetry-error",
    ),
    pytest.param(_distribution, {"kind": "egg"}, "kind must be one of", id="dist-kind"),
    pytest.param(_distribution, {"name": ""}, "name must be a non-empty", id="dist-name"),
    pytest.param(_distribution, {"version": " "}, "version must be a non-empty", id="dist-ver"),
    pytest.param(
        _distribution, {"requires_dist": ["x"]}, "requires_dist must be a tuple", id="dist-req"
    ),
    pytest.param(_distribution, {"extras": ("",)}, "extras must be a tuple", id="dist-extras"),
    pytest.param(
        _distribution,
        {"console_scripts": (("demo",),)},
        "console_scripts must be a tuple of",
        id="dist-scripts",
    ),
    pytest.param(
        _distribution, {"files": ("pixtreme/../x.py",)}, "has a '..' segment", id="dist-dotdot"
    ),
    pytest.param(_distribution, {"files": ("/etc/passwd",)}, "is absolute", id="dist-absolute"),
    pytest.param(_distribution, {"files": ("C:/x.py",)}, "is absolute", id="dist-drive"),
    pytest.param(
        _distribution, {"files": ("pixtreme\\x.py",)}, "contains a backslash", id="dist-backslash"
    ),
    pytest.param(_distribution, {"files": ("a//b.py",)}, "empty or '.' segment", id="dist-empty"),
    pytest.param(
        _policy, {"forbidden_files": ("",)}, "forbidden_files must be a tuple", id="policy-files"
    ),
    pytest.param(
        _policy,
        {"required_console_scripts": "pixtreme-infer"},
        "required_console_scripts must be a tuple",
        id="policy-scripts",
    ),
    pytest.param(
        _reference_comparison,
        {"max_abs_difference": math.nan},
        "max_abs_difference must be a number",
        id="onnx-cmp-nan",
    ),
    pytest.param(
        _reference_comparison,
        {"mean_abs_difference": -1.0},
        "mean_abs_difference must be",
        id="onnx-cmp-negative",
    ),
    pytest.param(
        _reference_comparison,
        {"mean_abs_difference": 1e-3},
        "mean_abs_difference must be at most max_abs_difference",
        id="onnx-cmp-mean-above-max",
    ),
    pytest.param(
        _reference_comparison,
        {"tolerance": 1e-5},
        "tolerance must be a OnnxTolerance",
        id="onnx-cmp-tolerance",
    ),
    pytest.param(
        _reference_comparison, {"passed": "yes"}, "passed must be True or False", id="onnx-cmp-bool"
    ),
    pytest.param(
        _reference_comparison, {"passed": False}, "passed must be True for", id="onnx-cmp-verdict"
    ),
    pytest.param(
        _reference_comparison,
        {"max_abs_difference": math.inf, "mean_abs_difference": math.inf},
        "passed must be False for",
        id="onnx-cmp-nonfinite-passed",
    ),
    pytest.param(_onnx_run, {"output": [[0.0]]}, "output must be a ndarray", id="onnx-run-list"),
    pytest.param(
        _onnx_run,
        {"output": np.zeros((1, 4, 4, 3), np.float64)},
        "output must be an NHWC array",
        id="onnx-run-dtype",
    ),
    pytest.param(
        _onnx_run,
        {"output": np.zeros((4, 4, 3), np.float32)},
        "output must be an NHWC array",
        id="onnx-run-rank",
    ),
    pytest.param(
        _onnx_run,
        {"output": np.zeros((1, 4, 4, 4), np.float32)},
        r"shape \(1, H, W, 3\)",
        id="onnx-run-channels",
    ),
    pytest.param(
        _onnx_run,
        {"contract": "x"},
        "contract must be a OnnxOutputContract",
        id="onnx-run-contract",
    ),
    pytest.param(
        _onnx_run,
        {"comparison": "x"},
        "comparison must be a OnnxReferenceComparison",
        id="onnx-run-comparison",
    ),
    pytest.param(_finding, {"detail": None}, "detail must be a string", id="finding-detail"),
    pytest.param(_check, {"detail": 3}, "detail must be a string", id="check-detail"),
    pytest.param(
        _check,
        {"status": CheckStatus.FAILED, "findings": [_finding()]},
        "findings must be a tuple of VerificationFinding",
        id="check-findings-list",
    ),
    pytest.param(_report, {"checks": ("x",)}, "checks must be a tuple of CheckResult", id="report"),
    pytest.param(
        lambda: RejectionCase(label="bad", error_type="ValueError"),
        {"error_type": ""},
        "error_type must be an identifier",
        id="rejection-type",
    ),
    pytest.param(
        lambda: RejectionCase(label="bad", error_type=None),
        {"message": None},
        "message must be a string",
        id="rejection-message",
    ),
    pytest.param(
        lambda: RejectionFacts(cases=(RejectionCase(label="bad", error_type=None),)),
        {"cases": [RejectionCase(label="bad", error_type=None)]},
        "cases must be a non-empty tuple",
        id="rejections-list",
    ),
    pytest.param(
        lambda: ClosedInferenceFacts(
            second_close_error=None, call_after_close=RejectionCase(label="c", error_type=None)
        ),
        {"second_close_error": 1},
        "second_close_error must be a string or None",
        id="closed-second-close",
    ),
    pytest.param(
        lambda: SequenceFacts(steps=()), {"steps": []}, "steps must be a tuple", id="seq-list"
    ),
    pytest.param(
        lambda: FrameFieldMismatch(field="gamma", observed="linear", expected="sRGB"),
        {"field": "size"},
        "field must be one of",
        id="frame-field-mismatch",
    ),
    pytest.param(
        CommonContractCases,
        {"frame_boundary": "facts"},
        "frame_boundary must be a zero-argument callable",
        id="common-cases",
    ),
    pytest.param(
        FactoryContractCases,
        {"opened_contract": 3},
        "opened_contract must be a zero-argument callable",
        id="factory-cases",
    ),
    pytest.param(
        lambda: ArchitectureCases(architecture="demo"),
        {"suites": []},
        "suites must be a tuple",
        id="architecture-cases",
    ),
]


@pytest.mark.parametrize(("make", "changes", "pattern"), _CASES)
def test_records_reject_bad_fields(
    make: Callable[[], object], changes: dict[str, object], pattern: str
) -> None:
    valid = make()
    with pytest.raises(ContractError, match=pattern) as caught:
        dataclasses.replace(valid, **changes)  # type: ignore[type-var]
    assert has_error_shape(str(caught.value)), str(caught.value)
    assert caught.value.how


def test_opened_contract_facts_reject_a_non_contract_query_and_a_missing_opened(
    stateless_contract: StatelessModuleContract,
) -> None:
    valid = _opened(stateless_contract)
    with pytest.raises(ContractError, match="queried must be a StatelessModuleContract"):
        dataclasses.replace(valid, queried="contract")  # type: ignore[arg-type]
    with pytest.raises(ContractError, match=re.escape("opened must be the opened instance's")):
        dataclasses.replace(valid, opened=None)


def test_temporal_suite_rejects_non_callable_evidence(temporal_contract: Any) -> None:
    with pytest.raises(ContractError, match="reset_equivalence must be a zero-argument callable"):
        TemporalContractSuite(name="t", contract=temporal_contract, reset_equivalence=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "make",
    [
        _comparison,
        _summary,
        _measurement,
        _distribution,
        _policy,
        _reference_comparison,
        _onnx_run,
        lambda: LatencySummary(
            min_s=0.1, mean_s=0.1, median_s=0.1, p95_s=0.1, max_s=0.1, stdev_s=0.0
        ),
        lambda: ThroughputSummary(requests=3, elapsed_s=0.3, requests_per_s=10.0),
        lambda: DriftSummary(window=1, first_median_s=0.0, last_median_s=0.0, relative_change=0.0),
    ],
    ids=[
        "rgb",
        "summary",
        "measurement",
        "distribution",
        "policy",
        "onnx-comparison",
        "onnx-run",
        "latency",
        "throughput",
        "drift-zero",
    ],
)
def test_valid_records_construct_and_replace_unchanged(make: Callable[[], object]) -> None:
    record = make()
    assert dataclasses.replace(record) == record  # type: ignore[type-var]


def test_summaries_of_equal_samples_survive_rounding() -> None:
    # mean of three 0.1 values rounds above 0.1; the ordering check allows that rounding.
    summary = summarize_latency((0.1, 0.1, 0.1))
    assert summary.min_s <= summary.max_s
    assert summary.mean_s == pytest.approx(0.1)


def test_infinite_psnr_summary_has_a_record_form() -> None:
    image = np.zeros((2, 2, 3))
    summary = summarize_comparisons((compare_rgb(image, image),))
    assert summary.as_record()["psnr_min_db"] == "Infinity"
    assert _summary().as_record()["psnr_min_db"] == pytest.approx(_comparison().psnr_db)


def test_tiny_mse_keeps_a_finite_psnr() -> None:
    reference = np.zeros((1, 1, 3))
    output = np.array([[[1e-160, 0.0, 0.0]]])
    result = compare_rgb(output, reference)
    assert result.mse > 0.0
    assert math.isfinite(result.psnr_db)
