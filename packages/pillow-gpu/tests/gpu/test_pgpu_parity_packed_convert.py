"""GPU parity for conversions into and out of L kept as Pillow's packed bytes.

Into packed L: ``kernels.pack_l`` writes ``convert("L")`` of RGB, RGBA and RGBX (the luma) and
of LA, and ``getchannel`` of the word modes, as Pillow's L bytes (four pixels to a word) when
every consumer of the L image takes packed L (lookups, per-byte compositions, rank filters,
blurs, kernel filters) or the L image is the result; otherwise the general ``convert`` kernel
writes one word per pixel. Out of packed L: LA, RGB,
RGBA and RGBX are widened from the packed bytes in one ``unpack`` (its gray-opaque kind),
unless the L image's ``transparency`` makes the conversion keyed. Each chain is checked
against live Pillow over sizes whose pixel counts leave a partial last word, widths that do
and do not divide by four and a packed grid of fixed width (over 1024 words) with padding
words; the plan tests pin which route a graph takes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageChops, ImageFilter, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

SOURCES = ("RGB", "RGBA", "RGBX")
SIZES = ((1, 1), (3, 1), (5, 3), (4, 4), (17, 11), (64, 8), (1030, 5))
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]

Chain = tuple[Callable[[Any], Any], Callable[[PILImage.Image], PILImage.Image]]

#: (lazy chain, Pillow chain) from the colour image: packed consumers, then word consumers.
CHAINS: dict[str, Chain] = {
    "grayscale": (ImageOps.grayscale, PILImageOps.grayscale),
    "invert": (
        lambda im: ImageOps.invert(ImageOps.grayscale(im)),
        lambda im: PILImageOps.invert(PILImageOps.grayscale(im)),
    ),
    "point_posterize": (
        lambda im: ImageOps.posterize(im.convert("L").point(lambda v: v * 3 // 2), 3),
        lambda im: PILImageOps.posterize(im.convert("L").point(lambda v: v * 3 // 2), 3),
    ),
    "median3": (
        lambda im: im.convert("L").filter(ImageFilter.MedianFilter(3)),
        lambda im: im.convert("L").filter(PILImageFilter.MedianFilter(3)),
    ),
    "gaussian1": (
        lambda im: im.convert("L").filter(ImageFilter.GaussianBlur(1)),
        lambda im: im.convert("L").filter(PILImageFilter.GaussianBlur(1)),
    ),
    "sharpen": (
        lambda im: im.convert("L").filter(ImageFilter.SHARPEN()),
        lambda im: im.convert("L").filter(PILImageFilter.SHARPEN()),
    ),
    "multiply_inverse": (  # both consumers of the one L node take packed L
        lambda im: _diamond(im, ImageOps.invert, ImageChops.multiply),
        lambda im: _diamond(im, PILImageOps.invert, PILImageChops.multiply),
    ),
    "resize": (  # resampling takes one word per pixel: the general convert kernel
        lambda im: im.convert("L").resize((7, 4), Image.Resampling.BILINEAR),
        lambda im: im.convert("L").resize((7, 4), PILImage.Resampling.BILINEAR),
    ),
    "to_rgb": (
        lambda im: im.convert("L").convert("RGB"),
        lambda im: im.convert("L").convert("RGB"),
    ),
    "merge_with_inverse": (  # one packed and one word consumer: the L node as words
        lambda im: _merged(im, Image.merge, ImageOps.invert),
        lambda im: _merged(im, PILImage.merge, PILImageOps.invert),
    ),
}


def _diamond(image: Any, invert: Callable[[Any], Any], multiply: Callable[..., Any]) -> Any:
    gray = image.convert("L")
    return multiply(gray, invert(gray))


def _merged(image: Any, merge: Callable[..., Any], invert: Callable[[Any], Any]) -> Any:
    gray = image.convert("L")
    return merge("LA", [gray, invert(gray)])


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", SOURCES)
@pytest.mark.parametrize("chain", list(CHAINS))
def test_l_from_colour_matches_pillow(chain: str, mode: str, size: tuple[int, int]) -> None:
    lazy, pil = CHAINS[chain]
    source = make_image(mode, size, seed=size[0] * 7 + size[1])
    assert_image_equal(evaluate(lazy(Image.from_pil(source))), pil(source))


@pytest.mark.parametrize("mode", SOURCES)
def test_luma_of_the_cube_corners_and_grey_ramp(mode: str) -> None:
    """Every 0/255 colour (the luma's extremes and rounding ends) and every grey level."""
    corners = [(r, g, b) for r in (0, 255) for g in (0, 255) for b in (0, 255)]
    greys = [(v, v, v) for v in range(256)]
    pixels = corners + greys + [(255, 255, 254), (1, 0, 0), (0, 0, 1)]
    source = PILImage.new("RGB", (len(pixels), 1))
    source.putdata(pixels)
    source = source.convert(mode)
    for name in ("grayscale", "invert"):
        lazy, pil = CHAINS[name]
        assert_image_equal(evaluate(lazy(Image.from_pil(source))), pil(source))


def _pipelines(chain: str, mode: str, size: tuple[int, int]) -> list[str]:
    graph = CHAINS[chain][0](Image.from_pil(make_image(mode, size)))
    return [dispatch.pipeline for dispatch in plan_graph(graph).program.dispatches]


@pytest.mark.parametrize("mode", SOURCES)
def test_grayscale_writes_pillow_bytes_in_one_dispatch(mode: str) -> None:
    assert _pipelines("grayscale", mode, (17, 11)) == ["pack_l?BAND=4"]
    assert _pipelines("invert", mode, (64, 8)) == ["pack_l?BAND=4", "invert"]
    assert _pipelines("multiply_inverse", mode, (64, 8))[0] == "pack_l?BAND=4"


@pytest.mark.parametrize("chain", ["resize", "to_rgb", "merge_with_inverse"])
def test_a_word_consumer_keeps_the_general_conversion(chain: str) -> None:
    pipelines = _pipelines(chain, "RGB", (17, 11))
    assert pipelines[0] == "convert?KEYED=0&SEL0=4&SEL1=6&SEL2=6&SEL3=6"  # luma, then zeros
    assert "pack_l?BAND=4" not in pipelines  # the luma is not packed: a consumer takes words


def test_matrix_conversion_keeps_its_own_kernel() -> None:
    matrix = (0.2, 0.5, 0.3, 1.0)
    source = make_image("RGB", (9, 5))
    lazy = Image.from_pil(source).convert("L", matrix)
    shaders = [dispatch.shader for dispatch in plan_graph(lazy).program.dispatches]
    assert shaders == ["convert_matrix", "pack_l"]
    assert_image_equal(evaluate(lazy), source.convert("L", matrix))


GRAY_TARGETS = ("LA", "RGB", "RGBA", "RGBX")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("target", GRAY_TARGETS)
def test_packed_l_widens_to_the_target(target: str, size: tuple[int, int]) -> None:
    source = make_image("L", size, seed=size[0] * 5 + size[1])
    lazy = Image.from_pil(source).convert(target)
    shaders = [d.pipeline for d in plan_graph(lazy).program.dispatches]
    assert shaders == ["unpack?KIND=5"] + (["pack16"] if target == "LA" else [])  # LA: 2 B/px
    assert_image_equal(evaluate(lazy), source.convert(target))
    inverted = ImageOps.invert(Image.from_pil(source)).convert(target)  # a lookup first
    assert_image_equal(evaluate(inverted), PILImageOps.invert(source).convert(target))


@pytest.mark.parametrize("target", ["LA", "RGBA"])
def test_transparency_keeps_the_keyed_conversion(target: str) -> None:
    source = make_image("L", (17, 11), seed=4)
    source.info["transparency"] = source.getpixel((3, 2))
    lazy = Image.from_pil(source).convert(target)
    shaders = [d.shader for d in plan_graph(lazy).program.dispatches]
    assert shaders[:2] == ["unpack", "convert"]
    assert_image_equal(evaluate(lazy), source.convert(target))


BAND_SOURCES = ("LA", "RGB", "RGBA", "CMYK", "YCbCr")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", BAND_SOURCES)
def test_split_writes_each_band_as_packed_l(mode: str, size: tuple[int, int]) -> None:
    source = make_image("RGB", size, seed=size[0] + size[1]).convert(mode)
    bands = Image.from_pil(source).split()
    for band, expected in zip(bands, source.split(), strict=True):
        pipelines = _pipelines_of(band)  # LA's upload is widened first (unpack)
        assert len(pipelines) == (2 if mode == "LA" else 1)
        assert pipelines[-1].startswith("pack_l")
        assert_image_equal(evaluate(band), expected)
        inverted = ImageOps.invert(band)  # a packed consumer
        assert_image_equal(evaluate(inverted), PILImageOps.invert(expected))


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_la_to_l_takes_the_l_byte(size: tuple[int, int]) -> None:
    source = make_image("LA", size, seed=3)
    lazy = Image.from_pil(source).convert("L")
    assert _pipelines_of(lazy) == ["unpack?KIND=2", "pack_l"]
    assert_image_equal(evaluate(lazy), source.convert("L"))
    blurred = lazy.filter(ImageFilter.GaussianBlur(1))
    assert_image_equal(
        evaluate(blurred), source.convert("L").filter(PILImageFilter.GaussianBlur(1))
    )


def _pipelines_of(lazy: Any) -> list[str]:
    return [dispatch.pipeline for dispatch in plan_graph(lazy).program.dispatches]
