"""Numeric comparison of CPU RGB outputs: per-frame measurements and their summary.

compare_rgb counts finite components, clips finite values to [0, 1] and measures MSE, PSNR
("Infinity" at zero error) and the share of components off by more than 1/255.
summarize_comparisons aggregates many frames with linearly interpolated percentiles. Neither
decides a status: the module owns its thresholds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pixtreme.infer.verification._results import VerificationInputError

_Db = float | Literal["Infinity"]
_INFINITY: Literal["Infinity"] = "Infinity"
_FLOAT_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_ONE_CODE = 1 / 255


@dataclass(frozen=True)
class FrameComparison:
    """Measurements of one reference/candidate pair of HWC RGB arrays.

    When any component is not finite, ``finite`` is False and the error measurements are None.
    """

    shape: tuple[int, int, Literal[3]]
    reference_finite_count: int
    candidate_finite_count: int
    component_count: int
    finite: bool
    mse: float | None
    psnr_db: float | Literal["Infinity"] | None
    above_1_over_255_count: int | None
    above_1_over_255_ratio: float | None


@dataclass(frozen=True)
class ComparisonSummary:
    """PSNR (min, 5th percentile, median) and off-by-one-code ratio (max, p95, median)."""

    case_count: int
    finite_case_count: int
    psnr_min_db: float | Literal["Infinity"] | None
    psnr_p5_db: float | Literal["Infinity"] | None
    psnr_median_db: float | Literal["Infinity"] | None
    ratio_max: float | None
    ratio_p95: float | None
    ratio_median: float | None


def _checked_rgb(name: str, value: object) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise VerificationInputError(
            why="compare_rgb compares CPU arrays",
            what=f"{name} is {type(value).__module__}.{type(value).__qualname__}",
            how=f"copy {name} to the host first, for example with cupy.asnumpy",
        )
    if value.ndim != 3 or value.shape[0] == 0 or value.shape[1] == 0 or value.shape[2] != 3:
        raise VerificationInputError(
            why="compare_rgb compares nonempty HWC RGB arrays",
            what=f"{name} has shape {value.shape}",
            how="pass (height, width, 3) arrays with height and width of at least 1",
        )
    if value.dtype not in _FLOAT_DTYPES:
        raise VerificationInputError(
            why="compare_rgb compares float16, float32 or float64 values in [0, 1]",
            what=f"{name} has dtype {value.dtype}",
            how="convert integer images with image.astype(numpy.float32) / 255",
        )
    return value


def compare_rgb(reference: np.ndarray, candidate: np.ndarray, /) -> FrameComparison:
    """Compare two nonempty CPU HWC RGB float arrays after clipping finite values to [0, 1]."""
    reference = _checked_rgb("reference", reference)
    candidate = _checked_rgb("candidate", candidate)
    if reference.shape != candidate.shape:
        raise VerificationInputError(
            why="compare_rgb compares arrays of the same shape",
            what=f"reference {reference.shape}, candidate {candidate.shape}",
            how="resize or crop one of them first",
        )
    height, width = int(reference.shape[0]), int(reference.shape[1])
    shape: tuple[int, int, Literal[3]] = (height, width, 3)
    components = int(reference.size)
    reference_finite = int(np.count_nonzero(np.isfinite(reference)))
    candidate_finite = int(np.count_nonzero(np.isfinite(candidate)))
    if reference_finite != components or candidate_finite != components:
        return FrameComparison(
            shape, reference_finite, candidate_finite, components, False, None, None, None, None
        )
    difference = np.abs(
        np.clip(reference.astype(np.float64), 0.0, 1.0)
        - np.clip(candidate.astype(np.float64), 0.0, 1.0)
    )
    mse = float(np.mean(difference * difference))
    psnr: _Db = _INFINITY if mse == 0.0 else -10.0 * math.log10(mse)
    above = int(np.count_nonzero(difference > _ONE_CODE))
    return FrameComparison(
        shape,
        reference_finite,
        candidate_finite,
        components,
        True,
        mse,
        psnr,
        above,
        above / components,
    )


def _rank(value: _Db) -> float:
    return math.inf if isinstance(value, str) else value


def _interpolated(values: Sequence[_Db], fraction: float) -> _Db:
    """Linear-interpolation percentile where "Infinity" sorts last and absorbs neighbours."""
    ordered = sorted(values, key=_rank)
    position = (len(ordered) - 1) * fraction
    low_index, high_index = math.floor(position), math.ceil(position)
    low, high = ordered[low_index], ordered[high_index]
    if low_index == high_index:
        return low
    if isinstance(low, str) or isinstance(high, str):
        return _INFINITY
    return low + (high - low) * (position - low_index)


def summarize_comparisons(cases: Sequence[FrameComparison], /) -> ComparisonSummary:
    """Summarize one or more FrameComparison results; non-finite cases are only counted."""
    if not isinstance(cases, Sequence) or isinstance(cases, str) or not cases:
        raise VerificationInputError(
            why="a summary needs at least one comparison",
            what=f"received {type(cases).__name__} of length "
            f"{len(cases) if isinstance(cases, Sequence) else 'n/a'}",
            how="pass a nonempty sequence of compare_rgb results",
        )
    strangers = sorted(
        {type(case).__name__ for case in cases if not isinstance(case, FrameComparison)}
    )
    if strangers:
        raise VerificationInputError(
            why="summarize_comparisons aggregates FrameComparison results",
            what=f"the sequence also holds {strangers}",
            how="pass only compare_rgb results",
        )
    finite = [case for case in cases if case.finite]
    if not finite:
        return ComparisonSummary(len(cases), 0, None, None, None, None, None, None)
    psnrs: list[_Db] = []
    ratios: list[float] = []
    for case in finite:
        if case.psnr_db is None or case.above_1_over_255_ratio is None:
            raise VerificationInputError(
                why="a finite comparison carries its PSNR and off-by-one-code ratio",
                what=f"a finite case has psnr_db={case.psnr_db!r}, "
                f"above_1_over_255_ratio={case.above_1_over_255_ratio!r}",
                how="build the comparisons with compare_rgb",
            )
        psnrs.append(case.psnr_db)
        ratios.append(case.above_1_over_255_ratio)
    return ComparisonSummary(
        len(cases),
        len(finite),
        _interpolated(psnrs, 0.0),
        _interpolated(psnrs, 0.05),
        _interpolated(psnrs, 0.5),
        max(ratios),
        float(_interpolated(ratios, 0.95)),
        float(_interpolated(ratios, 0.5)),
    )


__all__ = ["ComparisonSummary", "FrameComparison", "compare_rgb", "summarize_comparisons"]
