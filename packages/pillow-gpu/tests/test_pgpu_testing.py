"""The parity assertion itself: what ``assert_image_equal`` compares beyond ``tobytes()``."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.gpu._layout import image_of_words, words_of_image


def _with_padding(mode: str, padding: int) -> PILImage.Image:
    """A 5x3 ``mode`` image with fixed bands and ``padding`` in every pixel's fourth byte."""
    words = np.arange(15, dtype=np.uint32) * 0x00010203 + 0x00404040
    return image_of_words(mode, (5, 3), words | np.uint32(padding << 24))


@pytest.mark.parametrize("mode", ["RGB", "YCbCr", "HSV", "LAB"])
def test_a_padding_byte_that_differs_fails(mode: str) -> None:
    left, right = _with_padding(mode, 0), _with_padding(mode, 255)
    assert left.tobytes() == right.tobytes()  # invisible to tobytes()
    assert (words_of_image(left) != words_of_image(right)).all()
    assert_image_equal(left, _with_padding(mode, 0))
    with pytest.raises(AssertionError, match="padding"):
        assert_image_equal(left, right)


def test_la_bytes_1_and_2_are_not_compared() -> None:
    """Pillow's operations fill them differently; the README says which calls read them."""
    words = np.arange(15, dtype=np.uint32) * 0x01000001
    left = image_of_words("LA", (5, 3), words)
    right = image_of_words("LA", (5, 3), words | np.uint32(0x00ABCD00))
    assert (words_of_image(left) != words_of_image(right)).all()
    assert_image_equal(left, right)


def test_the_stored_bytes_of_a_1_image_are_compared() -> None:
    zeros_ones = PILImage.frombytes("L", (8, 2), bytes(range(16))).point(lambda v: v > 7, "1")
    full = PILImage.frombytes("L", (8, 2), bytes(range(16))).point(lambda v: 255 * (v > 7), "1")
    assert zeros_ones.tobytes() == full.tobytes()
    with pytest.raises(AssertionError, match="stored bytes"):
        assert_image_equal(zeros_ones, full)
