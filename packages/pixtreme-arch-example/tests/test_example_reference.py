"""The numpy references: hand-computed cases and properties of bilinear x2 and the filter."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from pixtreme.infer.errors import ContractError
from pixtreme.infer.example import recursive_filter_reference, upscale_x2_reference

SIZES = [(1, 1), (1, 4), (3, 2), (5, 7)]


def test_upscale_x2_reference_hand_computed_row() -> None:
    # One row [0, 4, 8]: even outputs 0.25*x[i-1] + 0.75*x[i], odd 0.75*x[i] + 0.25*x[i+1],
    # with clamped edges; the single row is duplicated vertically.
    image = np.zeros((1, 3, 3))
    image[0, :, 0] = [0.0, 4.0, 8.0]
    result = upscale_x2_reference(image)
    expected_row = [0.0, 1.0, 3.0, 5.0, 7.0, 8.0]
    assert result.shape == (2, 6, 3)
    np.testing.assert_array_equal(result[:, :, 0], [expected_row, expected_row])
    np.testing.assert_array_equal(result[:, :, 1:], 0.0)


@pytest.mark.parametrize(("height", "width"), SIZES, ids=str)
def test_upscale_x2_reference_keeps_constant_images(height: int, width: int) -> None:
    image = np.full((height, width, 3), 0.625)
    result = upscale_x2_reference(image)
    assert result.shape == (2 * height, 2 * width, 3)
    np.testing.assert_array_equal(result, 0.625)


def _textbook_bilinear_x2(image: np.ndarray) -> np.ndarray:
    """Half-pixel bilinear resampling by its definition: output o samples source (o+0.5)/2-0.5."""
    height, width, _ = image.shape

    def taps(out_index: int, size: int) -> tuple[int, int, float]:
        position = (out_index + 0.5) / 2 - 0.5
        low = int(np.floor(position))
        fraction = position - low
        return min(max(low, 0), size - 1), min(max(low + 1, 0), size - 1), fraction

    result = np.zeros((2 * height, 2 * width, 3))
    for oy in range(2 * height):
        y0, y1, fy = taps(oy, height)
        for ox in range(2 * width):
            x0, x1, fx = taps(ox, width)
            top = (1 - fx) * image[y0, x0] + fx * image[y0, x1]
            bottom = (1 - fx) * image[y1, x0] + fx * image[y1, x1]
            result[oy, ox] = (1 - fy) * top + fy * bottom
    return result


@settings(max_examples=25, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(1, 6), st.just(3)),
        elements=st.floats(0, 1),
    )
)
def test_upscale_x2_reference_matches_textbook_bilinear(image: np.ndarray) -> None:
    np.testing.assert_allclose(
        upscale_x2_reference(image), _textbook_bilinear_x2(image), rtol=0, atol=1e-12
    )


def test_recursive_filter_reference_hand_computed_sequence() -> None:
    frames = [np.full((1, 1, 3), value) for value in (1.0, 0.0, 0.0, 2.0)]
    outputs = recursive_filter_reference(frames, [False, False, False, True])
    # alpha = (0.5, 0.25, 0.125): y0 = x0; y1 = (1-a)*1; y2 = (1-a)^2; reset: y3 = x3.
    np.testing.assert_array_equal(outputs[0][0, 0], [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(outputs[1][0, 0], [0.5, 0.75, 0.875])
    np.testing.assert_array_equal(outputs[2][0, 0], [0.25, 0.5625, 0.765625])
    np.testing.assert_array_equal(outputs[3][0, 0], [2.0, 2.0, 2.0])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        pytest.param(lambda: upscale_x2_reference(np.zeros((2, 2))), "HWC", id="upscale-2d"),
        pytest.param(
            lambda: upscale_x2_reference(np.zeros((2, 2, 4))), "3 channels", id="upscale-4ch"
        ),
        pytest.param(
            lambda: recursive_filter_reference([np.zeros((1, 1, 3))], []),
            "reset flag",
            id="filter-flags",
        ),
        pytest.param(
            lambda: recursive_filter_reference(
                [np.zeros((1, 1, 3)), np.zeros((2, 1, 3))], [False, False]
            ),
            "one frame shape",
            id="filter-shape-change",
        ),
    ],
)
def test_references_reject_bad_input(call: object, match: str) -> None:
    with pytest.raises(ContractError, match=match) as caught:
        call()  # type: ignore[operator]
    assert "why=" in str(caught.value)
    assert "how=" in str(caught.value)
