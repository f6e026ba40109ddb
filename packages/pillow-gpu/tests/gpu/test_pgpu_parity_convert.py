"""GPU parity for grayscale, explicit conversions, getchannel and ImageEnhance.Color."""

from __future__ import annotations

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from pillow_gpu import Image, ImageChops, ImageEnhance, ImageOps
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate
from pillow_gpu.gpu.kernels.convert import CONVERSIONS

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_grayscale(mode: str, size: tuple[int, int]) -> None:
    source = make_image(mode, size)
    assert_image_equal(evaluate(ImageOps.grayscale(Image.from_pil(source))), source.convert("L"))


@pytest.mark.parametrize("pair", list(CONVERSIONS), ids=[f"{a}-{b}" for a, b in CONVERSIONS])
def test_every_admitted_conversion(pair: tuple[str, str]) -> None:
    # Inverted first so that RGB padding is 0 and the conversion must set it itself.
    source = PILImageChops.invert(make_image(pair[0], (19, 17)))
    lazy = ImageChops.invert(Image.from_pil(make_image(pair[0], (19, 17)))).convert(pair[1])
    assert_image_equal(evaluate(lazy), source.convert(pair[1]))


def test_grayscale_luma_is_exact_over_every_rgb_triple_sample() -> None:
    # 4096 x 4096 covers every (R, G, B) with R, G in 0..255 and B sampled by position.
    source = make_image("RGB", (4096, 16), seed=5)
    assert_image_equal(evaluate(Image.from_pil(source).convert("L")), source.convert("L"))


@pytest.mark.parametrize("mode", MODES)
def test_getchannel_every_band(mode: str) -> None:
    source = make_image(mode, (19, 17))
    lazy = Image.from_pil(source)
    for index, band in enumerate(source.getbands()):
        assert_image_equal(evaluate(lazy.getchannel(index)), source.getchannel(index))
        assert_image_equal(evaluate(lazy.getchannel(band)), source.getchannel(band))


@pytest.mark.parametrize("factor", [0.0, 0.3, 1.0, 1.6, -0.5])
@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA"])
def test_color(mode: str, factor: float) -> None:
    source = make_image(mode, (19, 17))
    expected = PILImageEnhance.Color(source).enhance(factor)
    assert_image_equal(
        evaluate(ImageEnhance.Color(Image.from_pil(source)).enhance(factor)), expected
    )


def test_rgb_to_rgba_sets_alpha_whatever_the_padding() -> None:
    source = make_image("RGB", (5, 4))
    assert source.tobytes("raw", "RGBX") != PILImage.new("RGB", (5, 4)).tobytes("raw", "RGBX")
    assert_image_equal(evaluate(Image.from_pil(source).convert("RGBA")), source.convert("RGBA"))
