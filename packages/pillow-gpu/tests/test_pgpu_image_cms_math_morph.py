"""``pillow_gpu.ImageCms``, ``ImageMath`` and ``ImageMorph`` against live Pillow.

Pillow runs these on its images' C buffers; code written for Pillow switches to them by its
imports. A lazy argument is completed with Pillow and Pillow's own code runs on it: each result
must be Pillow's (mode, size, bytes, ``info``), a new image lazy where the input was lazy (and
the later operations on it exact on the GPU), in-place calls must change the lazy handle, and
Pillow's errors must be raised unchanged. Pillow's images pass through as in Pillow.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageCms as PILImageCms
from PIL import ImageMath as PILImageMath
from PIL import ImageMorph as PILImageMorph
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageCms, ImageMath, ImageMorph, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate

SIZES = {"13x9": (13, 9), "64x48": (64, 48)}


def _same(actual: Any, expected: PILImage.Image) -> None:
    assert isinstance(actual, Image.Image)
    assert_image_equal(actual.to_pil(), expected)
    assert actual.info == expected.info


def _public(module: Any) -> list[str]:
    return [name for name in dir(module) if not name.startswith("_")]


@pytest.mark.parametrize(
    ("ours", "pillows"),
    [(ImageCms, PILImageCms), (ImageMath, PILImageMath), (ImageMorph, PILImageMorph)],
    ids=["ImageCms", "ImageMath", "ImageMorph"],
)
def test_every_public_name_of_pillow_is_here(ours: Any, pillows: Any) -> None:
    assert [name for name in _public(pillows) if not hasattr(ours, name)] == []


# -- ImageMath ------------------------------------------------------------------------------

EXPRESSIONS = {
    "scaled": lambda args: args["a"] * 2 + 1,
    "difference": lambda args: abs(args["a"] - args["b"]),
    "masked": lambda args: args["convert"](args["min"](args["a"], args["b"]), "L"),
    "float": lambda args: args["float"](args["a"]) / 3,
}


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES)
@pytest.mark.parametrize("mode", ["L", "I", "F"])
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_lambda_eval_of_lazy_images_is_pillows(
    expression: str, mode: str, size: tuple[int, int]
) -> None:
    a, b = (make_image("L", size, seed=seed).convert(mode) for seed in (1, 2))
    expected = PILImageMath.lambda_eval(EXPRESSIONS[expression], a=a, b=b)
    lazy = ImageMath.lambda_eval(
        EXPRESSIONS[expression], a=ImageOps.mirror(Image.from_pil(a.transpose(0))), b=b
    )
    _same(lazy, expected)
    # A PIL image only: Pillow's result as it is.
    assert isinstance(ImageMath.lambda_eval(EXPRESSIONS[expression], a=a, b=b), PILImage.Image)


def test_unsafe_eval_and_its_results_go_on_to_the_gpu() -> None:
    source = make_image("L", (31, 17))
    expected = PILImageMath.unsafe_eval("convert(a * 3 - 100, 'L')", a=source)
    lazy = ImageMath.unsafe_eval("convert(a * 3 - 100, 'L')", a=Image.from_pil(source))
    _same(lazy, expected)
    assert_image_equal(evaluate(ImageOps.invert(lazy)), PILImageOps.invert(expected))
    assert ImageMath.unsafe_eval("7 + 1") == 8  # not an image: as it is


def test_image_math_raises_pillows_errors() -> None:
    lazy = Image.from_pil(make_image("RGB", (4, 4)))
    with pytest.raises(ValueError, match="unsupported mode") as expected:
        PILImageMath.lambda_eval(lambda args: args["a"] + 1, a=lazy.to_pil())
    with pytest.raises(ValueError, match=str(expected.value)):
        ImageMath.lambda_eval(lambda args: args["a"] + 1, a=lazy)


def _png(mode: str, *, cut: bool) -> bytes:
    data = io.BytesIO()
    make_image(mode, (23, 11)).save(data, "PNG")
    return data.getvalue()[:-60] if cut else data.getvalue()


@pytest.mark.parametrize("cut", [False, True], ids=["whole", "cut-short"])
@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_image_math_of_an_opened_file_loads_it_as_pillow(mode: str, cut: bool) -> None:
    """An opened file goes to the expression as Pillow's image of it: Pillow's check of the
    mode comes before the load, so a damaged RGB file raises that, as Pillow's does."""
    data = _png(mode, cut=cut)
    outcomes = []
    for image, math in ((PILImage.open(io.BytesIO(data)), PILImageMath), (None, ImageMath)):
        source = Image.open(io.BytesIO(data)) if image is None else image
        try:
            result = math.lambda_eval(lambda args: args["a"] * 2 - 10, a=source)
        except (ValueError, OSError) as error:
            outcomes.append(f"{type(error).__name__}: {error}")
            continue
        pixels = result if isinstance(result, PILImage.Image) else result.to_pil()
        outcomes.append((pixels.mode, pixels.tobytes()))
    assert outcomes[1] == outcomes[0]


def _apng(mode: str, *, cut: bool) -> bytes:
    data = io.BytesIO()
    frames = [make_image(mode, (23, 11)).rotate(40 * index) for index in range(3)]
    frames[0].save(data, "PNG", save_all=True, append_images=frames[1:])
    return data.getvalue()[:-60] if cut else data.getvalue()


@pytest.mark.parametrize("cut", [False, True], ids=["whole", "cut-short"])
@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_image_math_of_a_sought_frame_loads_it_as_pillow(mode: str, cut: bool) -> None:
    """A frame sought and not used yet goes to the expression as the handle's Pillow reader
    stands on it: Pillow checks the mode before it loads the frame, so the last frame of a
    file cut short raises that in an RGB animation, and the load's error in an L one."""
    data = _apng(mode, cut=cut)
    outcomes = []
    for module, math in ((PILImage, PILImageMath), (Image, ImageMath)):
        with module.open(io.BytesIO(data)) as source:
            source.seek(2)
            try:
                result = math.lambda_eval(lambda args: args["a"] * 2 - 10, a=source)
            except (ValueError, OSError, SyntaxError) as error:
                outcomes.append(f"{type(error).__name__}: {error}")
                continue
            pixels = result if isinstance(result, PILImage.Image) else result.to_pil()
            outcomes.append((pixels.mode, pixels.tobytes()))
    assert outcomes[1] == outcomes[0]


# -- ImageMorph -----------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES)
@pytest.mark.parametrize("operation", ["dilation4", "erosion8", "edge", "corner"])
def test_morph_of_a_lazy_image_is_pillows(operation: str, size: tuple[int, int]) -> None:
    source = make_image("L", size).point(lambda value: 255 * (value > 140))
    pillows = PILImageMorph.MorphOp(op_name=operation)
    ours = ImageMorph.MorphOp(op_name=operation)
    lazy = Image.from_pil(source)
    count, expected = pillows.apply(source)
    lazy_count, result = ours.apply(lazy)
    assert lazy_count == count
    _same(result, expected)
    assert ours.match(lazy) == pillows.match(source)
    assert ours.get_on_pixels(lazy) == pillows.get_on_pixels(source)
    assert isinstance(ours.apply(source)[1], PILImage.Image)  # a PIL image: Pillow's result


def test_morph_raises_pillows_errors() -> None:
    lazy = Image.from_pil(make_image("RGB", (4, 4)))
    with pytest.raises(ValueError, match="Image mode must be 1 or L"):
        ImageMorph.MorphOp(op_name="edge").apply(lazy)


# -- ImageCms -------------------------------------------------------------------------------


def _profiles() -> tuple[Any, Any]:
    return PILImageCms.createProfile("sRGB"), PILImageCms.createProfile("LAB")


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES)
@pytest.mark.parametrize(("mode", "out"), [("RGB", "LAB"), ("RGBA", "LAB"), ("RGB", "RGB")])
def test_profile_to_profile_of_a_lazy_image_is_pillows(
    mode: str, out: str, size: tuple[int, int]
) -> None:
    srgb, lab = _profiles()
    target = lab if out == "LAB" else srgb
    source = make_image(mode, size)
    expected = PILImageCms.profileToProfile(source, srgb, target, outputMode=out)
    lazy = Image.from_pil(source)
    _same(ImageCms.profileToProfile(lazy, srgb, target, outputMode=out), expected)
    in_place = source.copy()
    try:
        PILImageCms.profileToProfile(in_place, srgb, target, outputMode=out, inPlace=True)
    except PILImageCms.PyCMSError as error:  # Pillow converts in place within a mode only
        with pytest.raises(PILImageCms.PyCMSError, match=str(error)):
            ImageCms.profileToProfile(lazy, srgb, target, outputMode=out, inPlace=True)
        assert_image_equal(lazy.to_pil(), source)  # the handle unchanged
        return
    assert ImageCms.profileToProfile(lazy, srgb, target, outputMode=out, inPlace=True) is None
    assert_image_equal(lazy.to_pil(), in_place)  # the handle changed in place


def test_transforms_take_lazy_images_and_in_place_edits_change_the_handle() -> None:
    srgb, lab = _profiles()
    source = make_image("RGB", (23, 11))
    transform = ImageCms.buildTransform(srgb, srgb, "RGB", "RGB")
    assert isinstance(transform, PILImageCms.ImageCmsTransform)
    expected = PILImageCms.buildTransform(srgb, srgb, "RGB", "RGB").apply(source)
    lazy = ImageOps.flip(ImageOps.flip(Image.from_pil(source)))
    _same(transform.apply(lazy), expected)
    _same(transform.point(lazy), expected)
    _same(ImageCms.applyTransform(lazy, transform), expected)
    assert isinstance(transform.apply(source), PILImage.Image)
    into = Image.new("RGB", source.size)
    assert transform.apply(lazy, into) is into
    assert_image_equal(into.to_pil(), expected)
    assert transform.apply_in_place(lazy) is lazy
    assert_image_equal(lazy.to_pil(), expected)
    assert ImageCms.applyTransform(lazy, transform, inPlace=True) is None
    to_lab = ImageCms.buildTransformFromOpenProfiles(srgb, lab, "RGB", "LAB")
    assert to_lab.apply(lazy).mode == "LAB"


def test_image_cms_raises_pillows_errors_and_leaves_the_handle() -> None:
    srgb, _ = _profiles()
    transform = ImageCms.buildTransform(srgb, srgb, "RGB", "RGB")
    lazy = Image.from_pil(make_image("L", (5, 5)))
    before = lazy.tobytes()
    with pytest.raises(PILImageCms.PyCMSError):
        ImageCms.applyTransform(lazy, transform, inPlace=True)
    with pytest.raises(ValueError, match="mode mismatch"):
        transform.apply_in_place(lazy)
    assert lazy.mode == "L"
    assert lazy.tobytes() == before
    with pytest.raises(PILImageCms.PyCMSError):
        ImageCms.buildTransform(srgb, srgb, "RGB", "NOT-A-MODE")


def test_a_photo_converts_to_srgb_by_its_embedded_profile() -> None:
    """The module docstring's example: a JPEG carrying an (sRGB) ICC profile."""
    srgb = PILImageCms.ImageCmsProfile(PILImageCms.createProfile("sRGB"))
    saved = io.BytesIO()
    make_image("RGB", (64, 40)).save(saved, "JPEG", icc_profile=srgb.tobytes())
    pillows = PILImage.open(io.BytesIO(saved.getvalue()))
    source = PILImageCms.ImageCmsProfile(io.BytesIO(pillows.info["icc_profile"]))
    expected = PILImageCms.profileToProfile(pillows, source, srgb, outputMode="RGB")
    expected.thumbnail((16, 16))
    im = Image.open(io.BytesIO(saved.getvalue()))
    source = ImageCms.ImageCmsProfile(io.BytesIO(im.info["icc_profile"]))
    im = ImageCms.profileToProfile(im, source, srgb, outputMode="RGB")
    im.thumbnail((16, 16))
    assert_image_equal(evaluate(im), expected)


@pytest.mark.parametrize("module", ["ours", "Pillow's"])
def test_point_with_a_transform_is_pillows_and_runs_with_pillow(module: str) -> None:
    """``im.point(transform)`` hands the image to the transform, as Pillow's ``point`` does
    (``ImagePointHandler``): Pillow's pixels and ``info``; on the GPU a documented refusal."""
    srgb, lab = _profiles()
    build = ImageCms.buildTransform if module == "ours" else PILImageCms.buildTransform
    source = make_image("RGB", (12, 7))
    source.info["comment"] = b"kept by nothing"
    expected = source.point(PILImageCms.buildTransform(srgb, lab, "RGB", "LAB"))
    lazy = Image.from_pil(source).point(build(srgb, lab, "RGB", "LAB"))
    assert (lazy.mode, lazy.info) == (expected.mode, expected.info)
    with pytest.raises(Unsupported, match="ImagePointHandler"):
        evaluate(ImageOps.mirror(lazy))
    _same(lazy, expected)
