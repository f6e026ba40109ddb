"""P and PA results carry both levels of Pillow's palette (``_palette_state``): the C image's
entries and the palette object, where Pillow keeps them apart (ImageChops of P images)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._palette_state import PaletteState
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import evaluate


def _source(colors: int) -> PILImage.Image:
    return make_image("RGB", (13, 7), seed=colors).quantize(colors)


# Pillow's P images: most hold one palette at both levels; ImageChops results hold a copy of the
# source's palette object over a C palette with no entries (every index reads black).
SOURCES: dict[str, Callable[[], PILImage.Image]] = {
    "quantized": lambda: _source(16),
    "web": lambda: make_image("RGB", (13, 7), seed=2).convert("P"),
    "chops-invert": lambda: PILImageChops.invert(_source(16)),
    "chops-add": lambda: PILImageChops.add(_source(16), _source(16)),
    "chops-of-web": lambda: PILImageChops.lighter(
        make_image("RGB", (13, 7), seed=3).convert("P"), _source(16)
    ),
    "putpalette-rgba": lambda: _with_palette(_source(16), bytes(range(64)), "RGBA"),
    # An RGB palette whose C entries keep the X bytes, which convert reads as alpha.
    "putpalette-rgbx": lambda: _with_palette(_source(16), bytes(range(7, 71)), "RGBX"),
    "putpalette-rgbx-on-l": lambda: _with_palette(
        make_image("L", (13, 7), seed=5), bytes(range(200, 256)) * 4, "RGBX"
    ),
    "PA": lambda: _source(8).convert("PA"),
}


def _with_palette(image: PILImage.Image, data: bytes, rawmode: str) -> PILImage.Image:
    image.putpalette(data, rawmode)
    return image


def _levels(image: PILImage.Image) -> tuple[Any, ...]:
    palette = image.palette
    assert palette is not None
    return (
        image.getpalette(None),
        palette.mode,
        palette.rawmode,
        bytes(palette.palette),
        palette.dirty,
        image.convert("RGBA").tobytes(),
    )


def _assert_same(actual: PILImage.Image, expected: PILImage.Image) -> None:
    assert_image_equal(actual, expected)
    assert _levels(actual) == _levels(expected)


@pytest.mark.parametrize("source", list(SOURCES))
def test_from_pil_keeps_both_palette_levels(
    source: str, make_executor: Callable[..., GpuBatchExecutor]
) -> None:
    expected = SOURCES[source]()
    _assert_same(evaluate(Image.from_pil(expected)), expected)
    executor = make_executor()
    for output in ("cpu", "gpu"):
        for result in executor.run([(0, Image.from_pil(expected))], output=output):
            image = result.image.download() if output == "gpu" else result.image
            _assert_same(image, expected)


@pytest.mark.parametrize("source", list(SOURCES))
def test_operations_after_keep_both_levels(source: str) -> None:
    image = SOURCES[source]()
    lazy = Image.from_pil(image).transpose(PILImage.Transpose.ROTATE_90).crop((1, 1, 6, 9))
    _assert_same(evaluate(lazy), image.transpose(PILImage.Transpose.ROTATE_90).crop((1, 1, 6, 9)))


def test_chops_results_read_black_in_pillow() -> None:
    """The case the two levels exist for: Pillow's C palette of a chops result is empty."""
    image = PILImageChops.invert(_source(16))
    state = PaletteState.of(image)
    assert state is not None
    assert state.entries == b""
    assert state.kept.palette  # the copied palette object still holds the source's entries
    assert set(image.convert("RGB").tobytes()) == {0}
