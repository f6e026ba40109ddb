"""GPU parity for the conversions Pillow performs in two steps across the 16/32-bit modes.

Wide sources reach 1, P, PA, YCbCr and HSV through L and LAB through RGBA (Pillow's
getmodebase and Image.convert's LAB path); 8-bit sources reach I and I;16* through the luma
(rgb2i, rgb2i16l/b) or their getmodebase; P and 1 reach every wide mode through Pillow's own
256-entry table. Exhaustive where the domain is small: every 16-bit value, every index.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

from .test_pgpu_parity_wide import wide_image

pytestmark = pytest.mark.usefixtures("device")

WIDE16 = ("I;16", "I;16B", "I;16L")
DETOUR_TARGETS = ("YCbCr", "HSV", "LAB", "P", "PA", "1")  # Pillow has no wide -> La/RGBa
_DTYPES = {"I;16": "<u2", "I;16L": "<u2", "I;16B": ">u2"}


def every_u16(mode: str) -> PILImage.Image:
    """A 256 x 256 16-bit image holding every value 0..65535 once."""
    values = np.arange(65536, dtype=_DTYPES[mode])
    return PILImage.frombytes(mode, (256, 256), values.tobytes())


def _convert(image: PILImage.Image, target: str) -> PILImage.Image:
    dither = PILImage.Dither.NONE if target == "1" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return image.convert(target, dither=dither)


def _check(image: PILImage.Image, target: str) -> None:
    dither = PILImage.Dither.NONE if target == "1" else None
    actual = evaluate(Image.from_pil(image).convert(target, dither=dither))
    expected = _convert(image, target)
    assert_image_equal(actual, expected)
    if target in ("P", "PA"):
        assert actual.getpalette() == expected.getpalette()


@pytest.mark.parametrize("target", DETOUR_TARGETS)
@pytest.mark.parametrize("source", WIDE16)
def test_every_16_bit_value_through_l(source: str, target: str) -> None:
    _check(every_u16(source), target)


@pytest.mark.parametrize("target", DETOUR_TARGETS)
@pytest.mark.parametrize("source", ["I", "F"])
@pytest.mark.parametrize("size", [(1, 1), (37, 19)], ids=["1x1", "37x19"])
def test_int_and_float_through_l(source: str, target: str, size: tuple[int, int]) -> None:
    _check(wide_image(source, size), target)


_FROM_INDEXED = [
    ("P", "I"), ("P", "F"),  # p2i, p2f (Pillow has no P -> I;16*)
    ("1", "I"), ("1", "F"), ("1", "I;16"), ("1", "I;16B"), ("1", "I;16L"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "target"), _FROM_INDEXED, ids=[f"{s}->{t}" for s, t in _FROM_INDEXED]
)
def test_palette_and_bilevel_to_wide_every_index(source: str, target: str) -> None:
    gray = PILImage.frombytes("L", (16, 16), bytes(range(256)))
    if source == "P":
        image = gray.convert("P")
        image.putpalette(make_image("RGB", (256, 1), seed=9).tobytes())
    else:
        image = gray.convert("1", dither=PILImage.Dither.NONE)
    _check(image, target)


EIGHT_BIT = ("LA", "RGB", "RGBA", "RGBX", "RGBa", "CMYK", "YCbCr", "HSV")


@pytest.mark.parametrize("target", ["I", "I;16", "I;16B", "I;16L"])
@pytest.mark.parametrize("source", EIGHT_BIT)
def test_eight_bit_to_int_and_16_bit(source: str, target: str) -> None:
    image = make_image("RGBA", (257, 131)).convert(source) if source != "RGBA" else None
    _check(image or make_image("RGBA", (257, 131)), target)


@pytest.mark.parametrize("source", ["RGB", "RGBA", "RGBX", "CMYK", "YCbCr", "HSV", "RGBa"])
def test_rgb_to_float_is_refused_with_the_reason(source: str) -> None:
    lazy = Image.from_pil(make_image("RGB", (5, 3)).convert(source)).convert("F")
    with pytest.raises(Unsupported, match="rgb2f") as error:
        plan_graph(lazy)
    assert "fix:" in str(error.value)


def test_la_to_float_goes_through_l() -> None:
    _check(make_image("LA", (37, 19)), "F")
