"""GPU parity of ImageEnhance (and Image.blend) at non-finite and extreme factors (issue 15).

Pillow blends in float32: ``(u8)(a + f32(factor) * (b - a))``, clipped. A factor beyond
float32's range becomes infinite, and an infinite or NaN factor makes every byte whose two
blend inputs are equal NaN, which Pillow's cast stores as 0. Brightness blends the image with
black that carries the image's own alpha, so its alpha band was the visible case: 200 on the
GPU where Pillow gives 0. Every factor is admitted and must give Pillow's bytes; the only
refusals are the routes that do not exist for any factor (Color on CMYK and RGBX).
"""

from __future__ import annotations

import math

import pytest
from PIL import Image as PILImage
from PIL import ImageEnhance as PILImageEnhance
from pillow_gpu import Image, ImageChops, ImageEnhance
from pillow_gpu._testing import MODES, assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate

pytestmark = [
    pytest.mark.usefixtures("device"),
    pytest.mark.filterwarnings("error::RuntimeWarning"),  # numpy's overflow/NaN warnings
]

FACTORS = {
    "inf": math.inf,
    "minus-inf": -math.inf,
    "nan": math.nan,
    "1e308": 1e308,
    "minus-1e308": -1e308,
    "f32-overflow-3.5e38": 3.5e38,
    "f32-max-3.4e38": 3.4e38,
    "f32-underflow-1e-320": 1e-320,
    "minus-zero": -0.0,
    "2pow31": 2.0**31,
}

ENHANCERS = ("Brightness", "Contrast", "Color", "Sharpness")
#: (enhancer, mode) pairs with no GPU route at any factor: refused with Unsupported.
NO_ROUTE = {("Color", "CMYK"), ("Color", "RGBX")}


def _source(mode: str) -> PILImage.Image:
    """A random image whose first pixel is black (0 * inf is NaN on every byte there)."""
    image = make_image(mode, (7, 5), seed=15)
    image.putpixel((0, 0), (0,) * len(image.getbands()) if len(image.getbands()) > 1 else 0)
    return image


@pytest.mark.parametrize("factor", list(FACTORS.values()), ids=list(FACTORS))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("enhancer", ENHANCERS)
def test_enhance_extreme_factor_matches_pillow(enhancer: str, mode: str, factor: float) -> None:
    source = _source(mode)
    expected = getattr(PILImageEnhance, enhancer)(source).enhance(factor)
    lazy = getattr(ImageEnhance, enhancer)(Image.from_pil(source)).enhance(factor)
    if (enhancer, mode) in NO_ROUTE:
        with pytest.raises(Unsupported) as refused:
            evaluate(lazy)
        assert refused.value.stage == "admission"
        assert_image_equal(lazy.to_pil(), expected)  # the CPU route gives Pillow's bytes
        return
    assert_image_equal(evaluate(lazy), expected)


def test_brightness_inf_zeroes_rgba_alpha_as_pillow_does() -> None:
    """The issue's reproduction: alpha 200 in, Pillow's 0 out (200 + inf * 0 is NaN)."""
    source = PILImage.new("RGBA", (4, 2), (100, 150, 200, 200))
    lazy = ImageEnhance.Brightness(Image.from_pil(source)).enhance(math.inf)
    result = evaluate(lazy)
    assert result.getpixel((0, 0)) == (255, 255, 255, 0)
    assert_image_equal(result, PILImageEnhance.Brightness(source).enhance(math.inf))


@pytest.mark.parametrize("factor", list(FACTORS.values()), ids=list(FACTORS))
@pytest.mark.parametrize("mode", ["L", "RGBA"])
def test_blend_extreme_alpha_matches_pillow(mode: str, factor: float) -> None:
    first, second = _source(mode), make_image(mode, (7, 5), seed=16)
    second.putpixel((1, 0), first.getpixel((1, 0)))  # equal inputs: NaN under inf/nan
    expected = PILImage.blend(first, second, factor)
    lazy = ImageChops.blend(Image.from_pil(first), Image.from_pil(second), factor)
    assert_image_equal(evaluate(lazy), expected)
