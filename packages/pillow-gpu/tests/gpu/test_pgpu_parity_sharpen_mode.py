"""GPU parity for ImageFilter.UnsharpMask and ImageFilter.ModeFilter against live Pillow."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import Image, ImageFilter
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu.kernels import modefilter, unsharp

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


def _check(source: PILImage.Image, pil_filter: PILImageFilter.Filter) -> None:
    assert_image_equal(
        evaluate(Image.from_pil(source).filter(pil_filter)), source.filter(pil_filter)
    )


def _tied_image(mode: str, size: tuple[int, int], values: tuple[int, ...]) -> PILImage.Image:
    """Every stored byte (RGB padding included) drawn from a few ``values``: many ties."""
    rng = np.random.default_rng(len(values))
    width, height = size
    if mode == "RGB":
        data = rng.choice(np.array(values, dtype=np.uint8), width * height * 4).tobytes()
        return PILImage.frombytes("RGB", size, data, "raw", "RGBX")
    count = width * height * PILImage.getmodebands(mode)
    return PILImage.frombytes(mode, size, rng.choice(np.array(values, dtype=np.uint8), count))


# -- UnsharpMask: Pillow's Gaussian blur (3 box passes), then a per-byte integer combine ------

# 0.7 and 1.35 are radii where C-float and double evaluation of the box radius give different
# box weights; 0 is a copy; 40 is a wide blur.
RADII = [0, 0.7, 1.35, 2, 5.5, 40]
AMOUNTS = [(percent, threshold) for percent in (0, 50, 150, 500) for threshold in (0, 3, 255)]
AMOUNT_IDS = [f"p{p}-t{t}" for p, t in AMOUNTS]


@pytest.mark.parametrize("amount", AMOUNTS, ids=AMOUNT_IDS)
@pytest.mark.parametrize("radius", RADII, ids=[f"r{r}" for r in RADII])
@pytest.mark.parametrize("mode", MODES)
def test_unsharp_mask_parameters(mode: str, radius: float, amount: tuple[int, int]) -> None:
    _check(make_image(mode, (19, 17)), ImageFilter.UnsharpMask(radius, *amount))


EDGE_AMOUNTS = {
    "negative-percent": (2, -80, 3),
    "negative-threshold": (1.7, 150, -1),
    "negative-radius": (-2.5, 150, 3),
    "huge-percent": (1, unsharp.MAX_PERCENT, 0),
    "most-negative-percent": (1, -unsharp.MAX_PERCENT, 0),
    "threshold-254": (3, 300, 254),
}


@pytest.mark.parametrize("name", list(EDGE_AMOUNTS))
@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
def test_unsharp_mask_signed_and_extreme_amounts(mode: str, name: str) -> None:
    _check(make_image(mode, (19, 17), seed=3), ImageFilter.UnsharpMask(*EDGE_AMOUNTS[name]))


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_unsharp_mask_sizes(mode: str, size: tuple[int, int]) -> None:
    _check(make_image(mode, size), ImageFilter.UnsharpMask())
    _check(make_image(mode, size, seed=1), ImageFilter.UnsharpMask(0.7, 500, 0))


def test_unsharp_mask_large_rgba() -> None:
    _check(make_image("RGBA", (640, 480)), ImageFilter.UnsharpMask(3.25, 150, 3))


# Radii where BoxBlur.c's C-float box radius and a double evaluation give different weights.
FLOAT_RADII = [0.3, 0.7, 1.35, 9.64]


@pytest.mark.parametrize("radius", FLOAT_RADII, ids=[f"r{r}" for r in FLOAT_RADII])
def test_blur_radius_rounds_like_pillows_c_floats(radius: float) -> None:
    source = make_image("L", (300, 40), seed=1)
    _check(source, ImageFilter.GaussianBlur(radius))
    _check(source, ImageFilter.UnsharpMask(radius, 500, 0))


def test_unsharp_mask_outside_the_proven_range_is_unsupported() -> None:
    source = Image.from_pil(make_image("RGB", (8, 6)))
    with pytest.raises(Unsupported, match="percent"):
        plan_graph(source.filter(ImageFilter.UnsharpMask(2, unsharp.MAX_PERCENT + 1, 3)))
    with pytest.raises(Unsupported, match="box radius"):
        plan_graph(source.filter(ImageFilter.UnsharpMask(400, 150, 3)))


# -- ModeFilter: per band, most frequent value of the clipped window, kept only if count > 2 --

# Sizes as Pillow reads them: even sizes round down to the next odd window; 1 and lower keep
# every pixel; -3 is an empty window in C (size / 2 == -1).
MODE_SIZES = [3, 5, 7, 4, 2, 1, 0, -3]
CONTENTS = {
    "random": None,
    "two-values": (3, 9),
    "three-values": (0, 17, 255),
    "five-values": (1, 2, 3, 200, 201),
}


def _content(name: str, mode: str, size: tuple[int, int]) -> PILImage.Image:
    values = CONTENTS[name]
    return make_image(mode, size) if values is None else _tied_image(mode, size, values)


@pytest.mark.parametrize("content", list(CONTENTS))
@pytest.mark.parametrize("filter_size", MODE_SIZES, ids=[f"size{s}" for s in MODE_SIZES])
@pytest.mark.parametrize("mode", MODES)
def test_mode_filter_sizes_and_ties(mode: str, filter_size: int, content: str) -> None:
    _check(_content(content, mode, (19, 17)), ImageFilter.ModeFilter(filter_size))


@pytest.mark.parametrize("content", ["random", "three-values"])
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_mode_filter_image_sizes(mode: str, size: tuple[int, int], content: str) -> None:
    source = _content(content, mode, size)
    _check(source, ImageFilter.ModeFilter(3))
    _check(source, ImageFilter.ModeFilter(7))


def test_mode_filter_large_l() -> None:
    _check(_tied_image("L", (640, 480), (0, 17, 255, 90)), ImageFilter.ModeFilter(7))


def test_mode_filter_above_the_maximum_size_is_unsupported() -> None:
    lazy = Image.from_pil(make_image("L", (8, 6))).filter(
        ImageFilter.ModeFilter(modefilter.MAX_SIZE + 1)
    )
    with pytest.raises(Unsupported, match="mode filter size") as caught:
        plan_graph(lazy)
    assert "fix:" in str(caught.value)
