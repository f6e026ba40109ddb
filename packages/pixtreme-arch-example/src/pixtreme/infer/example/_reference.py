"""Numpy references: the exact expected output of each network, computed without its weights."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._errors import parameter_error
from ._networks import RECURSIVE_FILTER_ALPHA

FloatImage = npt.NDArray[np.floating]


def _check_image(image: np.ndarray, *, name: str) -> np.ndarray:
    if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 1 or image.shape[1] < 1:
        raise parameter_error(
            why=f"{name} must be an HWC image with 3 channels",
            what=f"shape {image.shape!r}",
            how="pass an array shaped (height, width, 3)",
        )
    return np.asarray(image, dtype=np.float64)


def upscale_x2_reference(image: np.ndarray) -> npt.NDArray[np.float64]:
    """Bilinear x2 upscale (half-pixel centres, edge-clamped) of an HWC image, in float64.

    Output pixel ``2i`` along an axis is ``0.25*x[i-1] + 0.75*x[i]`` and ``2i+1`` is
    ``0.75*x[i] + 0.25*x[i+1]``, with indices clamped to the image.
    """
    x = _check_image(image, name="image")
    for axis in (0, 1):
        size = x.shape[axis]
        index = np.arange(size)
        before = np.take(x, np.clip(index - 1, 0, size - 1), axis=axis)
        after = np.take(x, np.clip(index + 1, 0, size - 1), axis=axis)
        even = 0.25 * before + 0.75 * x
        odd = 0.75 * x + 0.25 * after
        x = np.stack((even, odd), axis=axis + 1).reshape(
            *x.shape[:axis], 2 * size, *x.shape[axis + 1 :]
        )
    return x


def recursive_filter_reference(
    frames: Sequence[np.ndarray],
    resets: Sequence[bool],
    *,
    alpha: Sequence[float] = RECURSIVE_FILTER_ALPHA,
) -> list[npt.NDArray[np.float64]]:
    """Outputs of ``y_t = a*x_t + (1-a)*y_{t-1}`` in float64; the first frame and every reset
    give ``y_t = x_t``."""
    if len(frames) != len(resets):
        raise parameter_error(
            why="each frame needs exactly one reset flag",
            what=f"{len(frames)} frames, {len(resets)} reset flags",
            how="pass one bool per frame",
        )
    a = np.asarray(alpha, dtype=np.float64)
    outputs: list[npt.NDArray[np.float64]] = []
    history: npt.NDArray[np.float64] | None = None
    for index, (frame, reset) in enumerate(zip(frames, resets, strict=True)):
        x = _check_image(frame, name=f"frames[{index}]")
        if history is not None and history.shape != x.shape:
            raise parameter_error(
                why="a temporal sequence keeps one frame shape",
                what=f"frames[{index}] shape {x.shape!r} after {history.shape!r}",
                how="reset with a new instance when the frame size changes",
            )
        history = x.copy() if reset or history is None else a * x + (1.0 - a) * history
        outputs.append(history)
    return outputs
