"""A result image built from terminal bytes stores exactly what Pillow's raw decoder stores
from them (padding bytes included), in memory of its own, for every mode the GPU returns and
for sizes on both sides of the copy that is split across threads."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu._copy import MIN_SPLIT_BYTES
from pillow_gpu._pillow_memory import stored_view
from pillow_gpu.gpu._layout import (
    INDEXED_MODES,
    LIMITED_MODES,
    NATIVE_MODES,
    PAIR_MODES,
    WIDE16_MODES,
    WIDE_MODES,
    image_from_terminal,
    terminal_nbytes,
)

MODES = sorted({*NATIVE_MODES, *LIMITED_MODES, *WIDE_MODES, *PAIR_MODES} - set(INDEXED_MODES))
#: 1x1, odd widths (rows that end mid-word), a batch image, and an image past the split size.
SIZES = {"1x1": (1, 1), "17x5": (17, 5), "181x3": (181, 3), "256x256": (256, 256)}
LARGE = {"600x600": (600, 600)}


def _terminal(mode: str, size: tuple[int, int], seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, terminal_nbytes(mode, size), dtype=np.uint8).tobytes()


def _decoded(mode: str, size: tuple[int, int], data: bytes) -> PILImage.Image:
    """What Pillow's raw decoder stores from the terminal bytes (the reference)."""
    pixels = size[0] * size[1]
    if mode == "L":
        return PILImage.frombytes("L", size, data[:pixels], "raw", "L")
    if mode in WIDE16_MODES or mode in PAIR_MODES:
        return PILImage.frombytes(mode, size, data[: pixels * 2], "raw", mode)
    if mode in ("I", "F"):
        rawmode = "I;32" if mode == "I" else "F;32F"  # little-endian words
        return PILImage.frombytes(mode, size, data[: pixels * 4], "raw", rawmode)
    if mode in ("HSV", "LAB"):  # no raw mode carries their words: pasted from RGBX
        image = PILImage.new(mode, size)
        image.im.paste(PILImage.frombytes("RGBX", size, data).im, (0, 0, *size))
        return image
    rawmode = {"RGB": "RGBX", "YCbCr": "YCbCrX"}.get(mode, mode)
    return PILImage.frombytes(mode, size, data[: pixels * 4], "raw", rawmode)


def _stored(image: PILImage.Image) -> bytes:
    view = stored_view(image)
    if view is not None:
        return bytes(view)
    return image.tobytes()  # modes Pillow does not export (LA, PA, HSV, LAB...)


@pytest.mark.parametrize("size", [*SIZES.values(), *LARGE.values()], ids=[*SIZES, *LARGE])
@pytest.mark.parametrize("mode", MODES)
def test_a_result_stores_what_the_raw_decoder_stores(mode: str, size: tuple[int, int]) -> None:
    data = _terminal(mode, size, sum(size))
    built = image_from_terminal(mode, size, memoryview(data).toreadonly())
    expected = _decoded(mode, size, data)
    assert (built.mode, built.size, built.info) == (mode, size, {})
    assert built.readonly == 0
    assert _stored(built) == _stored(expected)
    assert built.tobytes() == expected.tobytes()


@pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "I;16B", "F"])
def test_a_result_owns_its_pixels(mode: str, size: tuple[int, int]) -> None:
    """The terminal bytes are a mapped range the executor unmaps after delivery: the image
    must hold a copy, and must stay writable like any image Pillow makes."""
    data = bytearray(_terminal(mode, size, 7))
    built = image_from_terminal(mode, size, memoryview(data))
    before = built.tobytes()
    data[:] = bytes(len(data))
    assert built.tobytes() == before
    built.putpixel((0, 0), built.getpixel((size[0] - 1, size[1] - 1)))
    assert built.getpixel((0, 0)) == built.getpixel((size[0] - 1, size[1] - 1))


def test_the_large_case_takes_the_split_copy() -> None:
    assert terminal_nbytes("RGB", LARGE["600x600"]) >= MIN_SPLIT_BYTES
    assert terminal_nbytes("RGBA", SIZES["256x256"]) < MIN_SPLIT_BYTES
