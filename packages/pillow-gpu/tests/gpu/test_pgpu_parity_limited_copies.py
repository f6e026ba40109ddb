"""GPU parity of the copy and band routes on YCbCr, La, RGBa, HSV and LAB; the rest refused.

Transpose, crop, expand, paste, putpixel, resize NEAREST, transform/rotate NEAREST, leaf
uploads, ``Image.new``, getchannel/split and merge equal live Pillow byte for byte, the
stored padding byte of YCbCr, HSV and LAB included (resampling, transform filters and image
filters, point, ImageChops and blend, which Pillow runs by band count or byte by byte:
``test_pgpu_parity_limited_bands``); putalpha and the like are refused with
``Unsupported`` naming the mode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageChops, ImageOps
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

from .test_pgpu_parity_limited_convert import assert_stored_equal, contents, stored_image

pytestmark = pytest.mark.usefixtures("device")

MODES = ("YCbCr", "La", "RGBa", "HSV", "LAB")
SIZES = ((1, 1), (3, 2), (19, 17), (65, 33))
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
#: A colour per mode, as Pillow takes it (Image.new, expand, paste, putpixel, fillcolor).
COLOURS: dict[str, Any] = {
    "YCbCr": (10, 200, 30),
    "La": (90, 140),
    "RGBa": (1, 2, 3, 4),
    "HSV": (20, 210, 40),
    "LAB": (70, 130, 250),
}


def _image(mode: str, size: tuple[int, int] = (37, 19), seed: int = 0) -> PILImage.Image:
    return stored_image(mode, contents("noise", size, seed))


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_leaf_round_trip_keeps_every_stored_byte(mode: str, size: tuple[int, int]) -> None:
    image = _image(mode, size)
    assert_stored_equal(evaluate(Image.from_pil(image)), image)


@pytest.mark.parametrize("colour", ["zero", "colour"])
@pytest.mark.parametrize("mode", MODES)
def test_new(mode: str, colour: str) -> None:
    value = 0 if colour == "zero" else COLOURS[mode]
    expected = PILImage.new(mode, (7, 5), value)
    assert_stored_equal(evaluate(Image.new(mode, (7, 5), value)), expected)


METHODS = list(PILImage.Transpose)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
@pytest.mark.parametrize("mode", MODES)
def test_transpose(mode: str, method: PILImage.Transpose, size: tuple[int, int]) -> None:
    image = _image(mode, size)
    assert_stored_equal(evaluate(Image.from_pil(image).transpose(method)), image.transpose(method))


BOXES = {"inside": (2, 3, 10, 9), "overhanging": (-3, -2, 40, 22), "outside": (50, 40, 55, 44)}


@pytest.mark.parametrize("box", list(BOXES.values()), ids=list(BOXES))
@pytest.mark.parametrize("mode", MODES)
def test_crop(mode: str, box: tuple[int, int, int, int]) -> None:
    image = _image(mode)
    assert_stored_equal(evaluate(Image.from_pil(image).crop(box)), image.crop(box))


@pytest.mark.parametrize("fill", ["zero", "int", "colour"])
@pytest.mark.parametrize("mode", MODES)
def test_expand(mode: str, fill: str) -> None:
    value = {"zero": 0, "int": 200, "colour": COLOURS[mode]}[fill]
    image = _image(mode)
    expected = PILImageOps.expand(image, (1, 2, 3, 4), value)
    actual = evaluate(ImageOps.expand(Image.from_pil(image), (1, 2, 3, 4), value))
    assert_stored_equal(actual, expected)


OFFSETS = {"origin": (0, 0), "inside": (4, 5), "negative": (-3, -4), "overhang": (30, 15)}


@pytest.mark.parametrize("offset", list(OFFSETS.values()), ids=list(OFFSETS))
@pytest.mark.parametrize("mode", MODES)
def test_paste_same_mode(mode: str, offset: tuple[int, int]) -> None:
    base, patch = _image(mode, seed=0), _image(mode, (11, 9), seed=1)
    expected = base.copy()
    expected.paste(patch, offset)
    lazy = Image.from_pil(base)
    lazy.paste(Image.from_pil(patch), offset)
    assert_stored_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("mode", MODES)
def test_paste_of_a_colour(mode: str) -> None:
    base = _image(mode)
    expected = base.copy()
    expected.paste(COLOURS[mode], (3, 4, 20, 11))
    lazy = Image.from_pil(base)
    lazy.paste(COLOURS[mode], (3, 4, 20, 11))
    assert_stored_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("mode", MODES)
def test_putpixel(mode: str) -> None:
    image = _image(mode)
    expected = image.copy()
    expected.putpixel((5, 6), COLOURS[mode])
    lazy = Image.from_pil(image)
    lazy.putpixel((5, 6), COLOURS[mode])
    assert_stored_equal(evaluate(lazy), expected)


RESIZES = {
    "down": ((13, 7), None),
    "up": ((80, 41), None),
    "box": ((17, 9), (3.5, 2.25, 30.0, 17.5)),
}


@pytest.mark.parametrize("case", list(RESIZES))
@pytest.mark.parametrize("mode", MODES)
def test_resize_nearest(mode: str, case: str) -> None:
    size, box = RESIZES[case]
    image = _image(mode)
    expected = image.resize(size, PILImage.Resampling.NEAREST, box)
    actual = evaluate(Image.from_pil(image).resize(size, PILImage.Resampling.NEAREST, box))
    assert_stored_equal(actual, expected)


@pytest.mark.parametrize("mode", MODES)
def test_resize_to_the_same_size_is_a_copy_with_any_filter(mode: str) -> None:
    image = _image(mode)
    expected = image.resize(image.size, PILImage.Resampling.BICUBIC)
    actual = evaluate(Image.from_pil(image).resize(image.size, PILImage.Resampling.BICUBIC))
    assert_stored_equal(actual, expected)


AFFINES = {
    "scale": (0.7, 0, 2.5, 0, 1.3, -1.0),
    "fixed": (0.8, 0.3, -2.0, -0.25, 0.9, 4.0),
}


@pytest.mark.parametrize("fill", ["none", "colour"])
@pytest.mark.parametrize("matrix", list(AFFINES))
@pytest.mark.parametrize("mode", MODES)
def test_transform_affine_nearest(mode: str, matrix: str, fill: str) -> None:
    image = _image(mode)
    colour = None if fill == "none" else COLOURS[mode]
    args = ((31, 23), PILImage.Transform.AFFINE, AFFINES[matrix], PILImage.Resampling.NEAREST)
    expected = image.transform(*args, fillcolor=colour)
    actual = evaluate(Image.from_pil(image).transform(*args, fillcolor=colour))
    assert_stored_equal(actual, expected)


@pytest.mark.parametrize("angle", [30, 90, 200])
@pytest.mark.parametrize("mode", MODES)
def test_rotate_nearest(mode: str, angle: int) -> None:
    image = _image(mode)
    expected = image.rotate(angle, expand=True, fillcolor=COLOURS[mode])
    actual = evaluate(Image.from_pil(image).rotate(angle, expand=True, fillcolor=COLOURS[mode]))
    assert_stored_equal(actual, expected)


@pytest.mark.parametrize("mode", MODES)
def test_getchannel_and_split_every_band(mode: str) -> None:
    image = _image(mode)
    lazy = Image.from_pil(image)
    for index, band in enumerate(image.getbands()):
        assert_stored_equal(evaluate(lazy.getchannel(index)), image.getchannel(index))
        assert_stored_equal(evaluate(lazy.getchannel(band)), image.getchannel(band))
    for actual, expected in zip(lazy.split(), image.split(), strict=True):
        assert_stored_equal(evaluate(actual), expected)


@pytest.mark.parametrize("mode", MODES)
def test_merge_of_l_bands(mode: str) -> None:
    bands = [_image("L", seed=seed) for seed in range(PILImage.getmodebands(mode))]
    expected = PILImage.merge(mode, bands)
    actual = evaluate(Image.merge(mode, [Image.from_pil(band) for band in bands]))
    assert_stored_equal(actual, expected)


def test_ycbcr_chain_of_copies_and_conversions() -> None:
    image = _image("RGB", (41, 23), seed=5)
    lazy = Image.from_pil(image).convert("YCbCr").crop((2, 1, 39, 20))
    lazy = lazy.transpose(PILImage.Transpose.ROTATE_270).resize((11, 13), PILImage.NEAREST)
    expected = image.convert("YCbCr").crop((2, 1, 39, 20))
    expected = expected.transpose(PILImage.Transpose.ROTATE_270).resize((11, 13), PILImage.NEAREST)
    assert_stored_equal(evaluate(lazy), expected)
    assert_stored_equal(evaluate(lazy.convert("RGB")), expected.convert("RGB"))
    assert_stored_equal(evaluate(lazy.getchannel("Cr")), expected.getchannel("Cr"))


def _putalpha(image: Any) -> Any:
    image.putalpha(128)
    return image


_Op = Callable[[Any, Any], Any]
#: Operations with no proven route on these modes (called with the ImageChops module and an
#: image, Pillow's or a lazy one). Each is refused at admission, naming the mode.
REFUSED: dict[str, _Op] = {
    "resize-mks2013": lambda m, im: im.resize((9, 5), PILImage.Resampling.MKS2013),
    "putalpha": lambda m, im: _putalpha(im),
}


def _pillow_accepts(mode: str, operation: str) -> bool:
    try:
        REFUSED[operation](PILImageChops, _image(mode, (5, 4)))
    except (ValueError, OSError):  # e.g. putalpha on YCbCr: Pillow refuses
        return False
    return True


REFUSED_CASES = [
    pytest.param(mode, operation, id=f"{mode}-{operation}")
    for mode in MODES
    for operation in REFUSED
    if _pillow_accepts(mode, operation)
]


@pytest.mark.parametrize(("mode", "operation"), REFUSED_CASES)
def test_other_operations_are_refused_naming_the_mode(mode: str, operation: str) -> None:
    lazy = REFUSED[operation](ImageChops, Image.from_pil(_image(mode)))
    with pytest.raises(Unsupported) as info:
        plan_graph(lazy)
    assert mode in info.value.why or mode in info.value.observed


def test_every_mode_has_refused_cases() -> None:
    assert {mode for mode, _ in (case.values for case in REFUSED_CASES)} == set(MODES)
