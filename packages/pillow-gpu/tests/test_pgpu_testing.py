"""The parity assertion itself: what ``assert_image_equal`` compares beyond ``tobytes()``."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import features
from pillow_gpu._testing import (
    assert_image_equal,
    isobmff_times_zeroed,
    undated_info,
    unstamped,
)
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


def _avif_sequence() -> bytes:
    frames = [PILImage.new("RGB", (5, 4), colour) for colour in ("red", "blue")]
    out = io.BytesIO()
    frames[0].save(out, "AVIF", save_all=True, append_images=frames[1:])
    return out.getvalue()


@pytest.mark.skipif(not features.check("avif"), reason="this Pillow was built without AVIF")
def test_an_avif_sequence_s_clock_times_and_nothing_else_are_zeroed() -> None:
    first = _avif_sequence()
    time.sleep(1.05)  # libavif's times count seconds
    second = _avif_sequence()
    differing = [index for index, (a, b) in enumerate(zip(first, second, strict=True)) if a != b]
    assert differing  # the clock is in the file
    zeroed = isobmff_times_zeroed(first)
    changed = [index for index, (a, b) in enumerate(zip(first, zeroed, strict=True)) if a != b]
    assert set(differing) <= set(changed)
    # Three headers (movie, track, media), two 64-bit times each: nothing else is touched.
    assert len(changed) <= 3 * 2 * 8
    assert unstamped(first) == unstamped(second)
    assert unstamped(first[:-1] + bytes([first[-1] ^ 1])) != unstamped(second)  # the pixels
    assert isobmff_times_zeroed(b"\x89PNG\r\n\x1a\n") == b"\x89PNG\r\n\x1a\n"  # no ISOBMFF


def test_undated_info_makes_nan_equal_to_itself_and_nothing_else() -> None:
    """A damaged TIFF's resolution can be NaN (0/0): Pillow's info and ours then hold the same
    value, which ``==`` never finds equal."""
    from PIL.TiffImagePlugin import IFDRational

    nan = float("nan")
    damaged = {"dpi": (2.5e-05, nan), "resolution": [IFDRational(0, 0), 3.0], "x": nan}
    assert undated_info(damaged) == undated_info(dict(damaged))
    assert undated_info(damaged) != undated_info({**damaged, "dpi": (2.5e-05, 1.0)})
    assert undated_info({"dpi": (72, 10**400)}) == {"dpi": (72, 10**400)}  # ints untouched
