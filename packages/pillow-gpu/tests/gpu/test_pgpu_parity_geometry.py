"""GPU parity for geometry: transpose, flip, mirror, crop, expand, paste, putpixel, resize."""

from __future__ import annotations

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageChops, ImageOps
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
METHODS = list(PILImage.Transpose)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
@pytest.mark.parametrize("mode", MODES)
def test_transpose(mode: str, method: PILImage.Transpose, size: tuple[int, int]) -> None:
    source = make_image(mode, size)
    assert_image_equal(evaluate(Image.from_pil(source).transpose(method)), source.transpose(method))


@pytest.mark.parametrize("mode", MODES)
def test_flip_and_mirror(mode: str) -> None:
    source = make_image(mode, (19, 17))
    lazy = Image.from_pil(source)
    assert_image_equal(evaluate(ImageOps.flip(lazy)), PILImageOps.flip(source))
    assert_image_equal(evaluate(ImageOps.mirror(lazy)), PILImageOps.mirror(source))


BOXES = {
    "inside": (2, 3, 10, 9),
    "overhanging": (-3, -2, 25, 20),
    "fully-outside": (30, 40, 35, 44),
    "fractional": (1.4, 2.5, 7.6, 8.49),
    "single-pixel": (0, 0, 1, 1),
}


@pytest.mark.parametrize("box", list(BOXES.values()), ids=list(BOXES))
@pytest.mark.parametrize("mode", MODES)
def test_crop(mode: str, box: tuple[float, float, float, float]) -> None:
    source = make_image(mode, (19, 17))
    assert_image_equal(evaluate(Image.from_pil(source).crop(box)), source.crop(box))


@pytest.mark.parametrize("mode", MODES)
def test_imageops_crop(mode: str) -> None:
    source = make_image(mode, (19, 17))
    assert_image_equal(
        evaluate(ImageOps.crop(Image.from_pil(source), 3)), PILImageOps.crop(source, 3)
    )


@pytest.mark.parametrize(
    ("border", "fill"),
    [(0, 0), (2, 0), ((1, 2), 200), ((1, 2, 3, 4), 0x12345678), ((3, 0, 0, 5), "red")],
    ids=["zero", "uniform", "pair", "packed-int", "named-color"],
)
@pytest.mark.parametrize("mode", MODES)
def test_expand(mode: str, border: int | tuple[int, ...], fill: int | str) -> None:
    source = make_image(mode, (19, 17))
    expected = PILImageOps.expand(source, border, fill)
    assert_image_equal(evaluate(ImageOps.expand(Image.from_pil(source), border, fill)), expected)


@pytest.mark.parametrize(
    "info",
    [{}, {"dpi": (72, 72), "comment": b"scan"}, {"dpi": (300, 300), "transparency": (1, 2, 3)}],
    ids=["none", "dpi-comment", "dpi-transparency"],
)
def test_expand_keeps_only_the_info_pillow_carries_over(info: dict) -> None:
    """Pillow's expand is a new image (keeping only ``transparency``) with the source pasted."""
    source = make_image("RGB", (19, 17))
    source.info.update(info)
    expected = PILImageOps.expand(source, 2, "red")
    lazy = ImageOps.expand(Image.from_pil(source), 2, "red")
    assert lazy.info == expected.info  # known before anything runs
    actual = evaluate(lazy)
    assert_image_equal(actual, expected)
    assert actual.info == expected.info == lazy.to_pil().info


OFFSETS = {
    "origin": (0, 0),
    "inside": (4, 5),
    "negative": (-3, -4),
    "overhang": (15, 12),
    "outside": (40, 40),
}


@pytest.mark.parametrize("offset", list(OFFSETS.values()), ids=list(OFFSETS))
@pytest.mark.parametrize("mode", MODES)
def test_paste_of_a_lazy_source(mode: str, offset: tuple[int, int]) -> None:
    base = make_image(mode, (19, 17), seed=1)
    patch = make_image(mode, (7, 6), seed=2)
    lazy_patch = ImageChops.invert(Image.from_pil(patch))
    expected = base.copy()
    expected.paste(PILImageChops.invert(patch), offset)
    lazy = Image.from_pil(base)
    lazy.paste(lazy_patch, offset)
    assert_image_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("mode", MODES)
def test_paste_with_a_four_tuple_and_a_larger_source(mode: str) -> None:
    base = make_image(mode, (6, 5), seed=1)
    patch = make_image(mode, (9, 8), seed=2)
    expected = base.copy()
    expected.paste(patch, (-2, -1, 7, 7))
    lazy = Image.from_pil(base)
    lazy.paste(Image.from_pil(patch), (-2, -1, 7, 7))
    assert_image_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("xy", [(0, 0), (18, 16), (-1, -1), (5, 7)], ids=str)
@pytest.mark.parametrize("mode", MODES)
def test_putpixel(mode: str, xy: tuple[int, int]) -> None:
    base = PILImageChops.invert(make_image(mode, (19, 17)))  # RGB padding 0 after invert
    bands = PILImage.getmodebands(mode)
    value: int | tuple[int, ...] = 77 if bands == 1 else tuple(range(40, 40 + bands))
    expected = base.copy()
    expected.putpixel(xy, value)
    lazy = Image.from_pil(base)
    lazy.putpixel(xy, value)
    assert_image_equal(evaluate(lazy), expected)


RESIZES = {
    "up": ((19, 17), (40, 35), None),
    "down": ((65, 33), (7, 5), None),
    "to-1x1": ((19, 17), (1, 1), None),
    "box": ((19, 17), (9, 4), (0.3, 0.2, 18.9, 17.0)),
    "integer-box-crop": ((19, 17), (5, 6), (2, 3, 7, 9)),
    "640-to-27": ((640, 1), (27, 1), None),
    "1000-to-3001": ((1000, 1), (3001, 1), None),
}


@pytest.mark.parametrize("case", list(RESIZES.values()), ids=list(RESIZES))
@pytest.mark.parametrize("mode", MODES)
def test_resize_nearest(
    mode: str,
    case: tuple[tuple[int, int], tuple[int, int], tuple[float, float, float, float] | None],
) -> None:
    src_size, size, box = case
    source = make_image(mode, src_size)
    expected = source.resize(size, PILImage.Resampling.NEAREST, box)
    lazy = Image.from_pil(source).resize(size, Image.NEAREST, box)
    assert_image_equal(evaluate(lazy), expected)
