"""GPU parity of the routes Pillow runs by band count on YCbCr, HSV, LAB, La and RGBa.

Pillow's 8-bit resampling, reduce, transform filters, ``point`` and its kernel, rank, mode and
box filters pick their code by the image's band count, never its mode (ImageChops and blend
work byte by byte, and so do ImageEnhance.Sharpness, a filter and a blend, Color, a
conversion to L and back and a blend, and Contrast, an L image at the mean of the L conversion
converted to the mode and a blend, both recorded as those steps for YCbCr and HSV): YCbCr, HSV and
LAB go the three-band way (like RGB: byte 3 written 0, or kept from the fill), La and RGBa the
two- and four-band ways, taken as they are (Pillow's Python layer premultiplies LA and RGBA
around resampling and filtered transforms; La and RGBa are those forms already). The GPU runs
them as their band twins (``_layout.BAND_TWINS``). Each case equals live Pillow: mode, size,
``tobytes()`` and the stored padding byte of the three-band modes, over noise in every stored
byte at the parity sizes. Pillow's own refusals (the box filters on YCbCr, HSV and LAB) are
raised when the call is recorded, as Pillow raises them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageEnhance
from pillow_gpu.gpu import evaluate, plan_graph

from .test_pgpu_parity_limited_convert import assert_stored_equal, contents, stored_image

pytestmark = pytest.mark.usefixtures("device")

MODES = ("YCbCr", "HSV", "LAB", "La", "RGBa")
SIZES = ((1, 1), (3, 2), (19, 17), (65, 33))
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
FILL = {"YCbCr": (10, 200, 30), "HSV": (20, 210, 40), "LAB": (70, 130, 250), "RGBa": (1, 2, 3, 4)}

R = PILImage.Resampling
_Op = Callable[[Any], Any]


def _thumbnail(image: Any) -> Any:
    image.thumbnail((7, 5))
    return image


#: Operations Pillow runs by band count (called on a Pillow image or a lazy one).
OPERATIONS: dict[str, _Op] = {
    "resize-bilinear-down": lambda im: im.resize((11, 9), R.BILINEAR),
    "resize-box": lambda im: im.resize((5, 4), R.BOX),
    "resize-hamming": lambda im: im.resize((14, 12), R.HAMMING),
    "resize-bicubic-up": lambda im: im.resize((40, 30), R.BICUBIC),
    "resize-lanczos-sub-box": lambda im: im.resize(
        (9, 7), R.LANCZOS, (0.25, 0, im.width * 0.75, im.height * 0.5)
    ),
    "resize-reducing-gap": lambda im: im.resize((6, 5), R.BICUBIC, reducing_gap=1.5),
    "thumbnail": _thumbnail,
    "reduce-2": lambda im: im.reduce(2),
    "reduce-3x2-box": lambda im: im.reduce((3, 2), (min(1, im.width - 1), 0, *im.size)),
    "rotate-bilinear-expand": lambda im: im.rotate(17, R.BILINEAR, expand=True),
    "rotate-bicubic": lambda im: im.rotate(-33, R.BICUBIC, center=(3, 4)),
    "affine-bicubic-shear": lambda im: im.transform(
        (23, 19), PILImage.Transform.AFFINE, (0.9, 0.35, -2.0, -0.2, 1.1, 1.5), R.BICUBIC
    ),
    "quad-bilinear": lambda im: im.transform(
        (15, 12), PILImage.Transform.QUAD, (0, 0, 2, 16, 20, 15, 22, 1), R.BILINEAR
    ),
    "quad-nearest": lambda im: im.transform(
        (15, 12), PILImage.Transform.QUAD, (0, 0, 2, 16, 20, 15, 22, 1)
    ),
    "extent-bicubic": lambda im: im.transform(
        (9, 8), PILImage.Transform.EXTENT, (1.5, 0.5, 12.25, 9.0), R.BICUBIC
    ),
    "smooth-3x3": lambda im: im.filter(ImageFilter.SMOOTH),
    "blur-5x5": lambda im: im.filter(ImageFilter.BLUR),
    "kernel-offset": lambda im: im.filter(ImageFilter.Kernel((3, 3), [1, -2, 1] * 3, 1, 64)),
    "median-3": lambda im: im.filter(ImageFilter.MedianFilter(3)),
    "min-5": lambda im: im.filter(ImageFilter.MinFilter(5)),
    "rank-7": lambda im: im.filter(ImageFilter.RankFilter(7, 30)),
    "mode-3": lambda im: im.filter(ImageFilter.ModeFilter(3)),
}
#: Pillow's box filters: La and RGBa only (YCbCr, HSV and LAB raise ValueError in Pillow).
BOX_FILTERS: dict[str, _Op] = {
    "box-blur-2": lambda im: im.filter(ImageFilter.BoxBlur(2)),
    "gaussian-1.5": lambda im: im.filter(ImageFilter.GaussianBlur(1.5)),
    "unsharp-mask": lambda im: im.filter(ImageFilter.UnsharpMask(2, 150, 3)),
}


#: Per-byte and per-band operations of one or two images (module: PIL's or pillow_gpu's).
_Binary = Callable[[Any, Any, Any], Any]
BYTEWISE: dict[str, _Binary] = {
    "point-table": lambda m, a, b: a.point(list(range(255, -1, -1)) * len(a.getbands())),
    "point-callable": lambda m, a, b: a.point(lambda v: v // 2 + 7),
    "chops-invert": lambda m, a, b: m[0].invert(a),
    "multiply": lambda m, a, b: m[0].multiply(a, b),
    "add-scaled": lambda m, a, b: m[0].add(a, b, 2.0, 10),
    "subtract-modulo": lambda m, a, b: m[0].subtract_modulo(a, b),
    "soft-light": lambda m, a, b: m[0].soft_light(a, b),
    "blend": lambda m, a, b: m[0].blend(a, b, 0.3),
    "sharpness": lambda m, a, b: m[1].Sharpness(a).enhance(1.7),
    "brightness": lambda m, a, b: m[1].Brightness(a).enhance(0.6),
    "color": lambda m, a, b: m[1].Color(a).enhance(0.4),
    "color-amplified": lambda m, a, b: m[1].Color(a).enhance(1.8),
    "contrast": lambda m, a, b: m[1].Contrast(a).enhance(0.6),
    "contrast-amplified": lambda m, a, b: m[1].Contrast(a).enhance(2.3),
    "contrast-degenerate": lambda m, a, b: m[1].Contrast(a).enhance(0.0),
}
PIL_MODULES = (PILImageChops, PILImageEnhance)
GPU_MODULES = (ImageChops, ImageEnhance)


def _pillow_error(call: Callable[[], Any]) -> ValueError | None:
    """The ValueError Pillow raises for ``call``, or None."""
    try:
        call()
    except ValueError as error:
        return error
    return None


def _image(mode: str, size: tuple[int, int], seed: int = 0) -> PILImage.Image:
    return stored_image(mode, contents("noise", size, seed))


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("operation", list(OPERATIONS))
@pytest.mark.parametrize("mode", MODES)
def test_band_count_routes_equal_pillow(mode: str, operation: str, size: tuple[int, int]) -> None:
    image = _image(mode, size)
    call = OPERATIONS[operation]
    expected = call(image.copy())
    assert_stored_equal(evaluate(call(Image.from_pil(image))), expected)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("operation", list(BYTEWISE))
@pytest.mark.parametrize("mode", MODES)
def test_bytewise_routes_equal_pillow(mode: str, operation: str, size: tuple[int, int]) -> None:
    a, b = _image(mode, size, seed=0), _image(mode, size, seed=1)
    call = BYTEWISE[operation]
    refusal = _pillow_error(lambda: call(PIL_MODULES, a, b))
    if refusal is not None:  # the enhancers of LAB, Color and Contrast of La, RGBa: Pillow's
        with pytest.raises(ValueError, match=re.escape(str(refusal))):
            call(GPU_MODULES, Image.from_pil(a), Image.from_pil(b))
        return
    expected = call(PIL_MODULES, a, b)
    actual = call(GPU_MODULES, Image.from_pil(a), Image.from_pil(b))
    assert_stored_equal(evaluate(actual), expected)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("operation", list(BOX_FILTERS))
@pytest.mark.parametrize("mode", MODES)
def test_box_filters_as_pillow_takes_them(mode: str, operation: str, size: tuple[int, int]) -> None:
    image = _image(mode, size)
    call = BOX_FILTERS[operation]
    if mode in ("La", "RGBa"):
        assert_stored_equal(evaluate(call(Image.from_pil(image))), call(image))
        return
    refusal = _pillow_error(lambda: call(image))
    assert refusal is not None  # Pillow's box filters refuse the three-band limited modes
    with pytest.raises(ValueError, match=re.escape(str(refusal))):  # checked when recorded
        call(Image.from_pil(image))


@pytest.mark.parametrize("mode", ["YCbCr", "HSV", "LAB", "RGBa"])
def test_filtered_rotation_keeps_the_fill_colour(mode: str) -> None:
    # Outside the source the fill; inside, YCbCr/HSV/LAB keep the fill's byte 3 (Image.new's).
    image = _image(mode, (19, 17), seed=2)
    expected = image.rotate(33, R.BILINEAR, expand=True, fillcolor=FILL[mode])
    actual = Image.from_pil(image).rotate(33, R.BILINEAR, expand=True, fillcolor=FILL[mode])
    assert_stored_equal(evaluate(actual), expected)


def test_no_premultiplication_around_la_and_rgba_premultiplied_forms() -> None:
    # La and RGBa are resampled as they are: no premultiply dispatch is planned for them.
    for mode in ("La", "RGBa"):
        lazy = Image.from_pil(_image(mode, (19, 17))).resize((9, 7), R.BICUBIC)
        shaders = [dispatch.shader for dispatch in plan_graph(lazy).program.dispatches]
        assert "premultiply" not in shaders, (mode, shaders)
        assert "resample" in shaders


CHAINS: dict[str, _Op] = {
    "ycbcr-thumbnail-to-rgb": lambda im: _thumbnail(im.convert("YCbCr")).convert("RGB"),
    "lab-rotated-to-rgb": lambda im: im.convert("LAB").rotate(8, R.BICUBIC).convert("RGB"),
    "hsv-median-to-rgb": lambda im: (
        im.convert("HSV").filter(ImageFilter.MedianFilter(3)).convert("RGB")
    ),
    "rgba-premultiplied-blur": lambda im: (
        im.convert("RGBa").filter(ImageFilter.GaussianBlur(2)).convert("RGBA")
    ),
}


def test_chains_through_an_executor() -> None:
    source = _image("RGBA", (41, 29), seed=4)
    executor = GpuBatchExecutor()
    try:
        jobs = [(name, chain(Image.from_pil(source))) for name, chain in CHAINS.items()]
        results = {result.input_key: result.image for result in executor.run(jobs)}
    finally:
        executor.close()
    for name, chain in CHAINS.items():
        assert_stored_equal(results[name], chain(source.copy()))
