"""PIL images as arguments of the module functions (pillow_gpu._pil_inputs)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
from PIL import ImageChops as PILImageChops
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageEnhance, ImageOps
from pillow_gpu._testing import LAZY_MODULES, PILLOW_MODULES, assert_image_equal, make_image

#: name -> (the call on pillow_gpu's module, the same call on Pillow's), each given two images.
Call = Callable[[Any, Any, Any], Any]
CALLS: dict[str, Call] = {
    "ImageOps.invert": lambda m, a, b: m.ImageOps.invert(a),
    "ImageOps.autocontrast": lambda m, a, b: m.ImageOps.autocontrast(a, cutoff=2),
    "ImageOps.posterize": lambda m, a, b: m.ImageOps.posterize(a, 3),
    "ImageOps.expand": lambda m, a, b: m.ImageOps.expand(a, border=2, fill=7),
    "ImageOps.fit": lambda m, a, b: m.ImageOps.fit(a, (6, 9)),
    "ImageOps.pad-keyword": lambda m, a, b: m.ImageOps.pad(image=a, size=(12, 5)),
    "ImageOps.exif_transpose": lambda m, a, b: m.ImageOps.exif_transpose(a),
    "ImageChops.add": lambda m, a, b: m.ImageChops.add(a, b, 2.0, 3),
    "ImageChops.difference-keywords": lambda m, a, b: m.ImageChops.difference(image1=a, image2=b),
    "ImageChops.invert": lambda m, a, b: m.ImageChops.invert(a),
    "ImageChops.offset": lambda m, a, b: m.ImageChops.offset(a, 3, 2),
    "ImageEnhance.Contrast": lambda m, a, b: m.ImageEnhance.Contrast(a).enhance(1.4),
    "ImageEnhance.Sharpness": lambda m, a, b: m.ImageEnhance.Sharpness(a).enhance(1.7),
    "Image.blend": lambda m, a, b: m.Image.blend(a, b, 0.3),
    "Image.eval": lambda m, a, b: m.Image.eval(a, lambda v: v // 2),
}
OURS = LAZY_MODULES
PILLOWS = PILLOW_MODULES
MODES = ("L", "RGB")
#: Which of the two arguments are passed as PIL images (the others as lazy images).
MIXES = {"both-pil": (True, True), "first-pil": (True, False), "second-pil": (False, True)}


@pytest.mark.parametrize("mix", list(MIXES))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CALLS))
def test_pil_arguments_record_as_from_pil(name: str, mode: str, mix: str) -> None:
    first, second = make_image(mode, (11, 7), 1), make_image(mode, (11, 7), 2)
    as_pil = MIXES[mix]
    args = [
        source if pil else Image.from_pil(source)
        for source, pil in zip((first, second), as_pil, strict=True)
    ]
    lazy = CALLS[name](OURS, *args)
    assert isinstance(lazy, Image.Image)
    assert_image_equal(lazy.to_pil(), CALLS[name](PILLOWS, first, second))


def test_pil_arguments_run_on_the_gpu() -> None:
    sources = [make_image("RGB", (13, 9), seed) for seed in range(3)]
    jobs = [
        (index, ImageChops.multiply(ImageOps.invert(source), sources[0]))
        for index, source in enumerate(sources)
    ]
    with GpuBatchExecutor() as executor:
        found = {result.input_key: result.image for result in executor.run(jobs)}
    for index, source in enumerate(sources):
        expected = PILImageChops.multiply(PILImageOps.invert(source), sources[0])
        assert_image_equal(found[index], expected)


def test_pil_argument_is_copied_at_the_call() -> None:
    # Pillow's eager call reads the pixels then; a later change to the image changes nothing.
    source = make_image("L", (6, 4), 3)
    expected = PILImageOps.invert(source)
    lazy = ImageOps.invert(source)
    source.putpixel((0, 0), 0 if source.getpixel((0, 0)) else 255)
    assert_image_equal(lazy.to_pil(), expected)


def test_exif_transpose_in_place_changes_the_pil_image() -> None:
    source = make_image("RGB", (8, 5), 4)
    exif = source.getexif()
    exif[0x0112] = 6  # rotate 270: width and height swap
    source.info["exif"] = exif.tobytes()
    expected = PILImageOps.exif_transpose(source.copy())
    assert ImageOps.exif_transpose(source, in_place=True) is None
    assert_image_equal(source, expected)
    assert source.size == (5, 8)


@pytest.mark.parametrize(
    ("call", "argument", "where"),
    [
        (lambda: ImageOps.invert(5), "image is a builtins.int", "invert()"),
        (lambda: ImageChops.add(Image.new("L", (2, 2)), "x"), "image2 is a builtins.str", "add()"),
        (lambda: ImageEnhance.Contrast(b"L"), "image is a builtins.bytes", "Contrast()"),
        (lambda: Image.blend(None, Image.new("L", (2, 2)), 0.5), "im1 is a builtins.NoneType", ""),
    ],
    ids=["ImageOps.invert-int", "ImageChops.add-str", "ImageEnhance.Contrast-bytes", "blend-None"],
)
def test_other_arguments_are_refused_with_the_argument_named(
    call: Callable[[], Any], argument: str, where: str
) -> None:
    with pytest.raises(TypeError, match="records lazy images") as info:
        call()
    message = str(info.value)
    assert f"observed: {argument}" in message
    assert where in message
    assert "fix: pass a pillow_gpu image" in message


@pytest.mark.parametrize(
    "function",
    [ImageOps.invert, ImageOps.fit, ImageChops.add, Image.blend, ImageEnhance.Contrast.__init__],
    ids=lambda function: function.__qualname__,
)
def test_wrapped_functions_keep_their_signature(function: Callable[..., Any]) -> None:
    wrapped = function.__wrapped__  # type: ignore[attr-defined]
    assert inspect.signature(function) == inspect.signature(wrapped)
    assert (function.__name__, function.__doc__) == (wrapped.__name__, wrapped.__doc__)
