"""compare_rgb and summarize_comparisons."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pixtreme.infer.verification.comparison import (
    ComparisonSummary,
    FrameComparison,
    compare_rgb,
    summarize_comparisons,
)
from pixtreme.infer.verification.contracts import VerificationInputError

pytestmark = pytest.mark.req("spec.verification.compare-rgb")


def _image(value: float = 0.0, shape: tuple[int, int] = (2, 2)) -> np.ndarray:
    return np.full((*shape, 3), value, dtype=np.float32)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_identical_images_have_zero_error_and_infinite_psnr(dtype: type) -> None:
    image = np.linspace(0, 1, 48).reshape(4, 4, 3).astype(dtype)
    result = compare_rgb(image, image)
    assert result == FrameComparison((4, 4, 3), 48, 48, 48, True, 0.0, "Infinity", 0, 0.0)


def test_a_known_difference() -> None:
    reference = _image()
    candidate = reference.copy()
    candidate[0, 0, 0] = 0.1  # one of 12 components off by 0.1
    result = compare_rgb(reference, candidate)
    assert result.mse == pytest.approx(0.01 / 12)
    assert result.psnr_db == pytest.approx(10 * math.log10(12 / 0.01))
    assert (result.above_1_over_255_count, result.above_1_over_255_ratio) == (1, 1 / 12)


def test_exactly_one_code_value_is_not_counted_as_above() -> None:
    result = compare_rgb(np.zeros((1, 1, 3)), np.full((1, 1, 3), 1 / 255))
    assert result.above_1_over_255_count == 0


def test_finite_values_are_clipped_to_the_unit_range() -> None:
    result = compare_rgb(np.ones((1, 2, 3)), np.full((1, 2, 3), 7.0))
    assert result.mse == 0.0


@pytest.mark.parametrize(
    ("side", "value"),
    [("reference", np.nan), ("candidate", np.inf), ("candidate", -np.inf)],
    ids=["reference-nan", "candidate-inf", "candidate-minus-inf"],
)
def test_non_finite_components_are_counted_and_not_measured(side: str, value: float) -> None:
    reference, candidate = np.zeros((1, 2, 3)), np.zeros((1, 2, 3))
    (reference if side == "reference" else candidate)[0, 1, 2] = value
    result = compare_rgb(reference, candidate)
    finite = (result.reference_finite_count, result.candidate_finite_count)
    assert finite == ((5, 6) if side == "reference" else (6, 5))
    assert result.finite is False
    assert (result.mse, result.psnr_db, result.above_1_over_255_count) == (None, None, None)
    assert result.above_1_over_255_ratio is None


@pytest.mark.parametrize(
    ("reference", "candidate", "pattern"),
    [
        (np.zeros((2, 2, 3)), np.zeros((2, 3, 3)), "same shape"),
        (np.zeros((2, 2, 4)), np.zeros((2, 2, 4)), r"shape \(2, 2, 4\)"),
        (np.zeros((0, 2, 3)), np.zeros((0, 2, 3)), "nonempty"),
        (np.zeros((2, 3)), np.zeros((2, 3)), r"shape \(2, 3\)"),
        (np.zeros((2, 2, 3), np.uint8), np.zeros((2, 2, 3), np.uint8), "dtype uint8"),
        ([[[0.0, 0.0, 0.0]]], np.zeros((1, 1, 3)), "CPU arrays"),
    ],
    ids=["shape-mismatch", "rgba", "empty", "rank-2", "integer", "not-an-array"],
)
def test_compare_rejects_what_it_cannot_compare(
    reference: object, candidate: object, pattern: str
) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        compare_rgb(reference, candidate)  # type: ignore[arg-type]


def test_summary_percentiles_interpolate_linearly() -> None:
    base = _image(shape=(10, 10))
    cases = [compare_rgb(base, base + step / 100) for step in (1, 2, 4, 8, 3)]
    psnrs = [case.psnr_db for case in cases]
    ratios = [case.above_1_over_255_ratio for case in cases]
    summary = summarize_comparisons(cases)
    assert (summary.case_count, summary.finite_case_count) == (5, 5)
    assert summary.psnr_min_db == min(psnrs)  # type: ignore[type-var]
    assert summary.psnr_p5_db == pytest.approx(float(np.percentile(psnrs, 5)))
    assert summary.psnr_median_db == pytest.approx(float(np.median(psnrs)))
    assert summary.ratio_max == max(ratios)  # type: ignore[type-var]
    assert summary.ratio_p95 == pytest.approx(float(np.percentile(ratios, 95)))
    assert summary.ratio_median == pytest.approx(float(np.median(ratios)))


def test_infinite_psnr_sorts_last_and_absorbs_interpolation() -> None:
    base = _image()
    cases = [compare_rgb(base, base), compare_rgb(base, base), compare_rgb(base, base + 0.5)]
    summary = summarize_comparisons(cases)
    assert summary.psnr_min_db == pytest.approx(10 * math.log10(4))
    assert summary.psnr_p5_db == "Infinity"  # between 6.02 dB and Infinity
    assert summary.psnr_median_db == "Infinity"


def test_non_finite_cases_are_counted_but_not_summarized() -> None:
    bad = np.zeros((1, 1, 3))
    bad[0, 0, 0] = np.nan
    summary = summarize_comparisons([compare_rgb(bad, bad)])
    assert summary == ComparisonSummary(1, 0, None, None, None, None, None, None)


@pytest.mark.parametrize(
    ("cases", "pattern"),
    [
        ((), "at least one comparison"),
        ("text", "at least one comparison"),
        ((object(),), "FrameComparison"),
        (
            (FrameComparison((1, 1, 3), 3, 3, 3, True, None, None, None, None),),
            "carries its PSNR",
        ),
    ],
    ids=["empty", "string", "other-type", "finite-without-measurements"],
)
def test_summary_rejects_what_it_cannot_summarize(cases: object, pattern: str) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        summarize_comparisons(cases)  # type: ignore[arg-type]
