"""GPU parity for the lookup family: invert, point, solarize, posterize, brightness, copy."""

from __future__ import annotations

import re

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageEnhance, ImageOps
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_copy_of_a_leaf_is_byte_exact(mode: str, size: tuple[int, int]) -> None:
    source = make_image(mode, size)
    assert_image_equal(evaluate(Image.from_pil(source)), source)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_new_is_filled_on_the_device(mode: str, size: tuple[int, int]) -> None:
    color = (7, 200, 13, 99)[: PILImage.getmodebands(mode)]
    expected = PILImage.new(mode, size, color if len(color) > 1 else color[0])
    assert_image_equal(
        evaluate(Image.new(mode, size, color if len(color) > 1 else color[0])), expected
    )


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_chops_invert(mode: str, size: tuple[int, int]) -> None:
    source = make_image(mode, size)
    assert_image_equal(
        evaluate(ImageChops.invert(Image.from_pil(source))), PILImageChops.invert(source)
    )


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_imageops_invert(mode: str, size: tuple[int, int]) -> None:
    source = make_image(mode, size)
    assert_image_equal(
        evaluate(ImageOps.invert(Image.from_pil(source))), PILImageOps.invert(source)
    )


@pytest.mark.parametrize("threshold", [0, 1, 128, 255, 256])
@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_solarize(mode: str, threshold: int) -> None:
    source = make_image(mode, (19, 17))
    assert_image_equal(
        evaluate(ImageOps.solarize(Image.from_pil(source), threshold)),
        PILImageOps.solarize(source, threshold),
    )


@pytest.mark.parametrize("bits", [1, 4, 7, 8])
@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_posterize(mode: str, bits: int) -> None:
    source = make_image(mode, (19, 17))
    assert_image_equal(
        evaluate(ImageOps.posterize(Image.from_pil(source), bits)),
        PILImageOps.posterize(source, bits),
    )


def _gamma(value: int) -> float:
    return 255.0 * (value / 255.0) ** 0.45 + 0.5


POINT_TABLES = {
    "callable-gamma": _gamma,
    "callable-out-of-range": lambda v: v * 1.7 - 40,
    "callable-banker-rounding": lambda v: v + 0.5,
}


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("table", list(POINT_TABLES), ids=list(POINT_TABLES))
@pytest.mark.parametrize("mode", MODES)
def test_point_callable(mode: str, table: str, size: tuple[int, int]) -> None:
    source = make_image(mode, size)
    function = POINT_TABLES[table]
    assert_image_equal(evaluate(Image.from_pil(source).point(function)), source.point(function))


@pytest.mark.parametrize("mode", MODES)
def test_point_list_per_band(mode: str) -> None:
    source = make_image(mode, (19, 17))
    bands = PILImage.getmodebands(mode)
    table = [(i * (b + 3) + 11 * b) % 300 for b in range(bands) for i in range(256)]
    assert_image_equal(evaluate(Image.from_pil(source).point(table)), source.point(table))


#: ``point(table, mode)`` of one-byte images: the thresholding idiom and others.
MODE_TABLES = {
    "threshold-128": lambda v: 255 if v > 128 else 0,
    "stored-one": lambda v: 1 if v > 100 else 0,  # a 1 image storing 1, as Pillow stores it
    "float-out-of-range": lambda v: v * 1.7 - 20.5,
    "list": [(v * 37 + 5) % 300 for v in range(256)],
}


def _one_byte_source(mode: str, size: tuple[int, int]) -> PILImage.Image:
    gray = make_image("L", size, seed=3)
    if mode == "P":
        return make_image("RGB", size, seed=3).convert("P")
    return gray if mode == "L" else gray.convert("1")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("table", list(MODE_TABLES))
@pytest.mark.parametrize("target", ["1", "L"])
@pytest.mark.parametrize("source", ["L", "P", "1"])
def test_point_to_a_mode(source: str, target: str, table: str, size: tuple[int, int]) -> None:
    image = _one_byte_source(source, size)
    expected = image.point(MODE_TABLES[table], target)
    actual = evaluate(Image.from_pil(image).point(MODE_TABLES[table], target))
    assert_image_equal(actual, expected)
    assert actual.tobytes("raw", "L") == expected.tobytes("raw", "L")  # the stored bytes
    assert actual.info == expected.info


@pytest.mark.parametrize(
    ("source", "target"), [("L", "I"), ("L", "F"), ("L", "P"), ("LA", "LA"), ("RGB", "RGB")]
)
def test_point_to_other_modes_is_refused_or_raises_as_pillow(source: str, target: str) -> None:
    image = make_image(source, (9, 7))
    table = [v // 2 for v in range(256)] * PILImage.getmodebands(target)
    try:
        image.point(table, target)
    except ValueError as pillow:  # e.g. LA to LA: Pillow's own mode check
        with pytest.raises(ValueError, match=re.escape(str(pillow))):
            Image.from_pil(image).point(table, target)
        return
    with pytest.raises(Unsupported, match="point"):
        plan_graph(Image.from_pil(image).point(table, target))


@pytest.mark.parametrize("factor", [0.0, 0.37, 1.0, 2.5])
@pytest.mark.parametrize("mode", MODES)
def test_brightness(mode: str, factor: float) -> None:
    source = make_image(mode, (19, 17))
    expected = PILImageEnhance.Brightness(source).enhance(factor)
    assert_image_equal(
        evaluate(ImageEnhance.Brightness(Image.from_pil(source)).enhance(factor)), expected
    )


def test_large_l_image_uses_a_two_dimensional_grid() -> None:
    source = make_image("L", (4096, 4096), seed=3)
    lazy = ImageChops.invert(Image.from_pil(source))
    assert_image_equal(evaluate(lazy), PILImageChops.invert(source))


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_thresholding_idiom_keeps_pillows_stored_values(size: tuple[int, int]) -> None:
    """``point(lambda v: v > 128, "1")`` stores 0 and 1 (not 255): ``getpixel``,
    ``get_flattened_data`` and a later ``point`` read them, ``tobytes`` packs "not zero"; the
    stored bytes travel through a second graph and the executor as they are."""
    source = make_image("L", size, seed=4)
    expected = source.point(lambda v: v > 128, "1")
    assert set(expected.get_flattened_data()) <= {0, 1}
    got = evaluate(Image.from_pil(source).point(lambda v: v > 128, "1"))
    assert_image_equal(got, expected)
    assert list(got.get_flattened_data()) == list(expected.get_flattened_data())
    flipped = expected.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT)
    with GpuBatchExecutor() as executor:
        (result,) = executor.run([(0, Image.from_pil(got).transpose(0))])
    assert_image_equal(result.image, flipped)
    assert list(result.image.point(lambda v: v * 9).get_flattened_data()) == list(
        flipped.point(lambda v: v * 9).get_flattened_data()
    )
