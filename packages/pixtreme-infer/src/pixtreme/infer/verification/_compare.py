"""RGB comparison of an output against a reference, and a summary over many comparisons."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from pixtreme.infer import _validate as v
from pixtreme.infer.errors import ContractError

_ONE_CODE_VALUE = 1.0 / 255.0


@dataclass(frozen=True, slots=True, kw_only=True)
class RgbComparison:
    """How close one RGB output is to its reference (both clipped to [0, 1] first).

    ``psnr_db`` is ``math.inf`` at zero MSE (written as "Infinity" in records).
    ``off_by_more_than_one_code`` is the share of components differing by more than 1/255.
    """

    components: int
    nonfinite_output: int
    nonfinite_reference: int
    mse: float
    psnr_db: float
    max_abs_difference: float
    off_by_more_than_one_code: float

    def __post_init__(self) -> None:
        owner = "RgbComparison"
        components = v.positive_int(owner, "components", self.components)
        for field in ("nonfinite_output", "nonfinite_reference"):
            count = v.positive_int(owner, field, getattr(self, field), minimum=0)
            if count > components:
                v.fail(
                    owner,
                    field,
                    count,
                    expected=f"at most components={components}",
                    how="count non-finite components of the compared arrays only",
                )
        # Both sides are clipped to [0, 1] first, so every difference lies in [0, 1].
        mse = v.number(owner, "mse", self.mse, minimum=0.0, maximum=1.0)
        v.number(owner, "max_abs_difference", self.max_abs_difference, minimum=0.0, maximum=1.0)
        v.number(
            owner,
            "off_by_more_than_one_code",
            self.off_by_more_than_one_code,
            minimum=0.0,
            maximum=1.0,
            how="pass the share (0..1) of components off by more than 1/255",
        )
        psnr = v.number(
            owner,
            "psnr_db",
            self.psnr_db,
            minimum=0.0,
            allow_inf=True,
            how="pass 10 * log10(1 / mse), or math.inf when mse is 0",
        )
        if math.isinf(psnr) != (mse == 0.0):
            v.fail(
                owner,
                "psnr_db",
                psnr,
                expected=f"infinite exactly when mse is 0 (mse={mse!r})",
                how="pass 10 * log10(1 / mse), or math.inf when mse is 0",
            )

    def as_record(self) -> dict[str, object]:
        """JSON-compatible mapping; infinite PSNR is the string "Infinity"."""
        return {
            "components": self.components,
            "nonfinite_output": self.nonfinite_output,
            "nonfinite_reference": self.nonfinite_reference,
            "mse": self.mse,
            "psnr_db": _psnr_record(self.psnr_db),
            "max_abs_difference": self.max_abs_difference,
            "off_by_more_than_one_code": self.off_by_more_than_one_code,
        }


def compare_rgb(output: npt.ArrayLike, reference: npt.ArrayLike) -> RgbComparison:
    """Compare two host RGB arrays of equal shape (values nominally in [0, 1]).

    Non-finite components are counted, then treated as 0 so the other statistics stay finite.
    """
    out = np.asarray(output, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    if out.shape != ref.shape or out.size == 0 or out.shape[-1] != 3:
        raise ContractError(
            why="compare_rgb compares two non-empty RGB arrays of the same shape (..., 3)",
            what=f"received output shape {out.shape} and reference shape {ref.shape}",
            how="copy both to the host with the same layout (HWC or NHWC) before comparing",
        )
    finite_out = np.isfinite(out)
    finite_ref = np.isfinite(ref)
    out = np.clip(np.where(finite_out, out, 0.0), 0.0, 1.0)
    ref = np.clip(np.where(finite_ref, ref, 0.0), 0.0, 1.0)
    diff = np.abs(out - ref)
    mse = float(np.mean(diff * diff))
    psnr = math.inf if mse == 0.0 else -10.0 * math.log10(mse)  # finite for any mse > 0
    return RgbComparison(
        components=int(out.size),
        nonfinite_output=int(out.size - np.count_nonzero(finite_out)),
        nonfinite_reference=int(ref.size - np.count_nonzero(finite_ref)),
        mse=mse,
        psnr_db=psnr,
        max_abs_difference=float(diff.max()),
        off_by_more_than_one_code=float(np.mean(diff > _ONE_CODE_VALUE + 1e-12)),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ComparisonSummary:
    """PSNR min / p5 / median and off-by-one-code ratio max / p95 / median over comparisons."""

    count: int
    psnr_min_db: float
    psnr_p5_db: float
    psnr_median_db: float
    ratio_max: float
    ratio_p95: float
    ratio_median: float

    def __post_init__(self) -> None:
        owner = "ComparisonSummary"
        v.positive_int(owner, "count", self.count)
        psnrs = tuple(
            (field, v.number(owner, field, getattr(self, field), minimum=0.0, allow_inf=True))
            for field in ("psnr_min_db", "psnr_p5_db", "psnr_median_db")
        )
        ratios = tuple(
            (field, v.number(owner, field, getattr(self, field), minimum=0.0, maximum=1.0))
            for field in ("ratio_median", "ratio_p95", "ratio_max")
        )
        v.ordered(owner, psnrs)
        v.ordered(owner, ratios)

    def as_record(self) -> dict[str, object]:
        """JSON-compatible mapping; infinite PSNR values are the string "Infinity"."""
        return {
            "count": self.count,
            "psnr_min_db": _psnr_record(self.psnr_min_db),
            "psnr_p5_db": _psnr_record(self.psnr_p5_db),
            "psnr_median_db": _psnr_record(self.psnr_median_db),
            "ratio_max": self.ratio_max,
            "ratio_p95": self.ratio_p95,
            "ratio_median": self.ratio_median,
        }


def _psnr_record(value: float) -> float | str:
    return "Infinity" if math.isinf(value) else value


def _percentile(values: list[float], q: float) -> float:
    # Linear interpolation towards an infinite PSNR is undefined; use the nearest rank then.
    array = np.asarray(values, dtype=np.float64)
    if any(math.isinf(value) for value in values):
        return float(np.percentile(array, q, method="nearest"))
    return float(np.percentile(array, q))


def summarize_comparisons(comparisons: tuple[RgbComparison, ...]) -> ComparisonSummary:
    """Summarize many comparisons (nearest-rank percentiles when a PSNR is infinite)."""
    if not comparisons:
        raise ContractError(
            why="a summary needs at least one comparison",
            what="received no comparisons",
            how="compare at least one output with compare_rgb first",
        )
    psnrs = [item.psnr_db for item in comparisons]
    ratios = [item.off_by_more_than_one_code for item in comparisons]
    return ComparisonSummary(
        count=len(comparisons),
        psnr_min_db=min(psnrs),
        psnr_p5_db=_percentile(psnrs, 5),
        psnr_median_db=_percentile(psnrs, 50),
        ratio_max=max(ratios),
        ratio_p95=_percentile(ratios, 95),
        ratio_median=_percentile(ratios, 50),
    )
