"""compare_rgb and summarize_comparisons."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pixtreme.infer.errors import ContractError
from pixtreme.infer.verification._compare import compare_rgb, summarize_comparisons

pytestmark = pytest.mark.req("issue6.compare-rgb")


def test_identical_images_have_infinite_psnr() -> None:
    image = np.linspace(0, 1, 48, dtype=np.float32).reshape(4, 4, 3)
    result = compare_rgb(image, image)
    assert result.mse == 0.0
    assert math.isinf(result.psnr_db)
    assert result.as_record()["psnr_db"] == "Infinity"
    assert result.off_by_more_than_one_code == 0.0


def test_known_difference() -> None:
    reference = np.zeros((2, 2, 3), np.float32)
    output = reference.copy()
    output[0, 0, 0] = 0.1  # one of 12 components off by 0.1
    result = compare_rgb(output, reference)
    assert result.mse == pytest.approx(0.01 / 12)
    assert result.psnr_db == pytest.approx(10 * math.log10(12 / 0.01))
    assert result.max_abs_difference == pytest.approx(0.1)
    assert result.off_by_more_than_one_code == pytest.approx(1 / 12)


def test_exactly_one_code_value_is_not_counted() -> None:
    reference = np.zeros((1, 1, 3))
    output = np.full((1, 1, 3), 1 / 255)
    assert compare_rgb(output, reference).off_by_more_than_one_code == 0.0


def test_values_are_clipped_and_non_finite_counted() -> None:
    reference = np.ones((1, 2, 3))
    output = np.array([[[2.0, np.nan, 1.0], [np.inf, 1.0, 1.0]]])
    result = compare_rgb(output, reference)
    assert result.nonfinite_output == 2
    assert result.nonfinite_reference == 0
    # 2.0 clips to 1 (no error); nan -> 0 (error 1); inf -> 0 (error 1)
    assert result.mse == pytest.approx(2 / 6)


@pytest.mark.parametrize(
    ("output", "reference"),
    [
        (np.zeros((2, 2, 3)), np.zeros((2, 3, 3))),
        (np.zeros((2, 2, 4)), np.zeros((2, 2, 4))),
        (np.zeros((0, 3)), np.zeros((0, 3))),
    ],
    ids=["shape", "rgba", "empty"],
)
def test_compare_rejects(output: np.ndarray, reference: np.ndarray) -> None:
    with pytest.raises(ContractError, match="two non-empty RGB arrays of the same shape"):
        compare_rgb(output, reference)


def test_summary_percentiles() -> None:
    base = np.zeros((10, 10, 3))
    comparisons = tuple(compare_rgb(base + step / 100, base) for step in (1, 2, 4, 8))
    summary = summarize_comparisons(comparisons)
    psnrs = [c.psnr_db for c in comparisons]
    assert summary.count == 4
    assert summary.psnr_min_db == min(psnrs)
    assert summary.psnr_median_db == pytest.approx(float(np.median(psnrs)))
    assert summary.psnr_p5_db == pytest.approx(float(np.percentile(psnrs, 5)))
    assert summary.ratio_max == 1.0


def test_summary_with_infinite_psnr_uses_nearest_rank() -> None:
    base = np.zeros((2, 2, 3))
    comparisons = (compare_rgb(base, base), compare_rgb(base, base), compare_rgb(base + 0.5, base))
    summary = summarize_comparisons(comparisons)
    assert math.isinf(summary.psnr_median_db)
    assert summary.psnr_min_db == pytest.approx(10 * math.log10(4))


def test_summary_rejects_empty() -> None:
    with pytest.raises(ContractError, match="needs at least one comparison"):
        summarize_comparisons(())
