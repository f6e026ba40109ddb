"""GPU parity for grayscale, explicit conversions, getchannel and ImageEnhance.Color.

Every pair of :data:`CONVERSIONS` (all of Pillow's conversions between the native layouts) is
checked against live Pillow at several sizes over noise, ramps (every byte value in every
stored byte) and 0/255 edges, padding and alpha bytes included.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from pillow_gpu import Image, ImageChops, ImageEnhance, ImageOps
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph
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


PAIR_IDS = [f"{a}-{b}" for a, b in CONVERSIONS]
PARITY_SIZES = ((1, 1), (5, 3), (37, 19), (64, 64))
PARITY_SIZE_IDS = [f"{w}x{h}" for w, h in PARITY_SIZES]
CONTENTS = ("noise", "ramp", "edges")


def _content(mode: str, size: tuple[int, int], content: str) -> PILImage.Image:
    # RGB carries its padding byte (RGBX raw), so a conversion must write it as Pillow does.
    if content == "noise":
        return make_image(mode, size, seed=sum(size))
    per_pixel = 4 if mode == "RGB" else PILImage.getmodebands(mode)
    pixels = np.arange(size[0] * size[1], dtype=np.int64)[:, None]
    byte = np.arange(per_pixel, dtype=np.int64)[None, :]
    if content == "ramp":  # byte k of pixel i: (i * (2k + 1) + 67k) mod 256, every value
        data = (pixels * (2 * byte + 1) + 67 * byte) & 255
    else:  # 0 or 255 in every byte
        data = np.random.default_rng(7).integers(0, 2, (pixels.size, per_pixel)) * 255
    raw = data.astype(np.uint8).tobytes()
    return PILImage.frombytes(mode, size, raw, "raw", "RGBX" if mode == "RGB" else mode)


@pytest.mark.parametrize("content", CONTENTS)
@pytest.mark.parametrize("size", PARITY_SIZES, ids=PARITY_SIZE_IDS)
@pytest.mark.parametrize("pair", list(CONVERSIONS), ids=PAIR_IDS)
def test_conversion_parity(pair: tuple[str, str], size: tuple[int, int], content: str) -> None:
    source = _content(pair[0], size, content)
    lazy = Image.from_pil(source).convert(pair[1])
    assert_image_equal(evaluate(lazy), source.convert(pair[1]))


@pytest.mark.parametrize("pair", list(CONVERSIONS), ids=PAIR_IDS)
def test_conversion_of_a_device_result(pair: tuple[str, str]) -> None:
    # A device-made source (not an upload): the kernel reads what an earlier kernel stored.
    source = PILImageChops.invert(_content(pair[0], (37, 19), "ramp"))
    lazy = ImageChops.invert(Image.from_pil(_content(pair[0], (37, 19), "ramp")))
    assert_image_equal(evaluate(lazy.convert(pair[1])), source.convert(pair[1]))


@pytest.mark.parametrize("mode", MODES)
def test_convert_to_the_own_mode_is_a_copy_with_no_dispatch(mode: str) -> None:
    source = make_image(mode, (5, 3))
    lazy = Image.from_pil(source)
    copied = lazy.convert(mode)
    assert copied.node is lazy.node  # Pillow: self.copy(); nothing recorded
    assert lazy.convert().node is lazy.node
    assert plan_graph(copied).dispatch_count == plan_graph(lazy).dispatch_count
    assert_image_equal(evaluate(copied), source.convert(mode))


@pytest.mark.parametrize("target", ["RGB", "L"])
def test_cmyk_conversion_is_exact_over_every_ink_and_black_pair(target: str) -> None:
    # Pixel (x, y): C = x, M = 255 - x, Y = (x + y) mod 256, K = y: every (ink, K) pair.
    x, y = np.meshgrid(np.arange(256), np.arange(256))
    cmyk = np.stack([x, 255 - x, (x + y) & 255, y], axis=-1).astype(np.uint8)
    source = PILImage.frombytes("CMYK", (256, 256), cmyk.tobytes())
    assert_image_equal(evaluate(Image.from_pil(source).convert(target)), source.convert(target))


@pytest.mark.parametrize("padding", [255, 0], ids=["padding-255", "padding-0"])
def test_rgb_to_la_transparency_compares_the_source_word(padding: int) -> None:
    # Pillow's rgbT2a for RGB -> LA matches the source word (padding 255 included) and then
    # stores the colour itself: L becomes the colour's red, not its luma.
    words = np.full((3, 4, 4), (1, 2, 3, padding), dtype=np.uint8)
    words[0, 0] = (9, 8, 7, 255)
    source = PILImage.frombytes("RGB", (4, 3), words.tobytes(), "raw", "RGBX")
    source.info["transparency"] = (1, 2, 3)
    lazy = Image.from_pil(source).convert("LA")
    expected = source.convert("LA")
    assert_image_equal(evaluate(lazy), expected)
    assert lazy.info == expected.info


@pytest.mark.parametrize("case", ["rgb-palette", "rgba-palette", "transparency"])
def test_convert_without_a_mode_picks_pillows_mode_for_p(case: str) -> None:
    # Pillow picks the palette's mode, and RGBA for an RGB palette with transparency.
    source = PILImage.new("P", (5, 3))
    source.putpalette(bytes(range(48)), "RGBA" if case == "rgba-palette" else "RGB")
    source.putdata([i % 12 for i in range(15)])
    if case == "transparency":
        source.info["transparency"] = 3
    lazy = Image.from_pil(source).convert()
    expected = source.copy().convert()
    assert (lazy.mode, dict(lazy.info)) == (expected.mode, expected.info)
    assert_image_equal(evaluate(lazy), expected)
