"""GPU parity for ImageEnhance.Sharpness and ImageOps.colorize."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageEnhance, ImageOps
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image, rebuilt
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
FACTORS = [0.0, 0.5, 1.0, 2.5, -1.0]


@pytest.mark.parametrize("factor", FACTORS, ids=[f"f{f:g}" for f in FACTORS])
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_sharpness(mode: str, size: tuple[int, int], factor: float) -> None:
    source = make_image(mode, size)
    expected = PILImageEnhance.Sharpness(source).enhance(factor)
    lazy = ImageEnhance.Sharpness(Image.from_pil(source)).enhance(factor)
    assert_image_equal(evaluate(lazy), expected)


def test_sharpness_keeps_the_source_alpha_exactly() -> None:
    source = make_image("RGBA", (19, 17), seed=4)
    lazy = ImageEnhance.Sharpness(Image.from_pil(source)).enhance(0.0)
    assert_image_equal(evaluate(lazy.getchannel("A")), source.getchannel("A"))


# id -> (black, white, mid, blackpoint, whitepoint, midpoint)
COLORIZE: dict[str, tuple[Any, ...]] = {
    "names-black-white": ("black", "white", None, 0, 255, 127),
    "names-red-blue": ("red", "blue", None, 0, 255, 127),
    "tuples-points-20-200": ((10, 20, 30), (200, 100, 0), None, 20, 200, 127),
    "equal-points-128": ("green", "purple", None, 128, 128, 127),
    "out-of-range-colour": ((300, -20, 128), (0, 0, 0), None, 0, 255, 127),
    "mid-default-points": ("navy", "yellow", "red", 0, 255, 127),
    "mid-points-40-100-220": ((0, 0, 0), (255, 255, 255), (255, 0, 0), 40, 220, 100),
    "mid-at-blackpoint": ("white", "black", (9, 99, 199), 30, 250, 30),
    "mid-at-whitepoint": ("orange", "teal", "#123456", 0, 90, 90),
}


@pytest.mark.parametrize("setting", list(COLORIZE), ids=list(COLORIZE))
@pytest.mark.parametrize("size", [*SIZES, (16, 16)], ids=[*SIZE_IDS, "16x16-every-value"])
def test_colorize(size: tuple[int, int], setting: str) -> None:
    if size == (16, 16):
        source = PILImage.frombytes("L", size, bytes(range(256)))
    else:
        source = make_image("L", size)
    args = COLORIZE[setting]
    expected = PILImageOps.colorize(source, *args)
    lazy = ImageOps.colorize(Image.from_pil(source), *args)
    assert lazy.mode == "RGB"
    assert_image_equal(evaluate(rebuilt(lazy)), expected)  # its own copy: results are cached
    assert_image_equal(lazy.to_pil(), expected)


def test_colorize_of_a_lazy_grayscale() -> None:
    source = make_image("RGB", (19, 17))
    lazy = ImageOps.colorize(ImageOps.grayscale(Image.from_pil(source)), "blue", "yellow")
    expected = PILImageOps.colorize(PILImageOps.grayscale(source), "blue", "yellow")
    assert_image_equal(evaluate(lazy), expected)
