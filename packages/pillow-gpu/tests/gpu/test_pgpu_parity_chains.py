"""GPU parity for chains of operations and hypothesis-generated random graphs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageChops, ImageEnhance, ImageFilter, ImageOps
from pillow_gpu._testing import MODES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_invert_median_crop_rotate_chain(mode: str) -> None:
    source = make_image(mode, (65, 33))
    lazy = (
        ImageOps.invert(Image.from_pil(source))
        .filter(ImageFilter.MedianFilter(3))
        .crop((-3, 2, 40, 30))
        .transpose(Image.ROTATE_90)
    )
    expected = (
        PILImageOps.invert(source)
        .filter(PILImageFilter.MedianFilter(3))
        .crop((-3, 2, 40, 30))
        .transpose(PILImage.Transpose.ROTATE_90)
    )
    assert_image_equal(evaluate(lazy), expected)


def test_diamond_graph_with_paste_blend_and_blur() -> None:
    source = make_image("RGBA", (65, 33))
    base = Image.from_pil(source)
    left = ImageEnhance.Brightness(base).enhance(0.7)
    right = base.filter(ImageFilter.GaussianBlur(1.7)).transpose(Image.FLIP_LEFT_RIGHT)
    lazy = ImageChops.blend(left, right, 0.35)
    lazy.paste(base.resize((9, 9), Image.NEAREST), (-2, 5))  # in place, as in Pillow
    p_left = PILImageEnhance.Brightness(source).enhance(0.7)
    p_right = source.filter(PILImageFilter.GaussianBlur(1.7)).transpose(
        PILImage.Transpose.FLIP_LEFT_RIGHT
    )
    expected = PILImage.blend(p_left, p_right, 0.35)
    expected.paste(source.resize((9, 9), PILImage.Resampling.NEAREST), (-2, 5))
    assert_image_equal(evaluate(lazy), expected)


def test_conversion_chain_through_grayscale() -> None:
    source = make_image("RGB", (19, 17))
    lazy = ImageOps.grayscale(Image.from_pil(source)).convert("RGBA").getchannel("A")
    expected = source.convert("L").convert("RGBA").getchannel("A")
    assert_image_equal(evaluate(lazy), expected)


# -- hypothesis: random chains of steps that keep a native mode, applied to both libraries ---

_KINDS = [
    "invert",
    "transpose",
    "crop",
    "expand",
    "resize",
    "brightness",
    "box",
    "gauss",
    "median",
    "mode",
    "unsharp",
    "kernel",
    "point",
    "blend_self",
    "sharpness",
    "split_merge",
    "putalpha",
    "colorize",
    "contrast",
    "equalize",
    "autocontrast",
    "rotate",
]
_RESIZE_FILTERS = [
    PILImage.Resampling.NEAREST,
    PILImage.Resampling.BOX,
    PILImage.Resampling.BILINEAR,
    PILImage.Resampling.HAMMING,
    PILImage.Resampling.BICUBIC,
    PILImage.Resampling.LANCZOS,
]
# Band operations (and Sharpness/colorize built on them) with a few steps to mix them with.
_BAND_KINDS = ["sharpness", "split_merge", "putalpha", "colorize", "invert", "crop", "gauss"]


@st.composite
def _step(draw: st.DrawFn, kinds: list[str]) -> tuple[str, Any]:
    kind = draw(st.sampled_from(kinds))
    argument: Any = None
    if kind == "transpose":
        argument = draw(st.sampled_from(list(PILImage.Transpose)))
    elif kind == "crop":
        x, y = draw(st.integers(-4, 4)), draw(st.integers(-4, 4))
        argument = (x, y, x + draw(st.integers(1, 12)), y + draw(st.integers(1, 12)))
    elif kind == "expand":
        argument = draw(st.integers(0, 3))
    elif kind == "resize":
        size = (draw(st.integers(1, 20)), draw(st.integers(1, 20)))
        argument = (size, draw(st.sampled_from(_RESIZE_FILTERS)))
    elif kind in ("brightness", "box", "gauss", "point", "blend_self", "sharpness", "contrast"):
        low = -1 if kind in ("blend_self", "sharpness", "contrast") else 0
        argument = draw(st.floats(low, 3, allow_nan=False))
    elif kind == "autocontrast":  # (cutoff, ignore, preserve_tone)
        cutoff = draw(st.sampled_from([0, 2, (1, 10), 0.5, 49.5]))
        argument = (cutoff, draw(st.sampled_from([None, 0, (0, 255)])), draw(st.booleans()))
    elif kind == "putalpha":  # None: the image's first band as alpha
        argument = draw(st.one_of(st.none(), st.integers(-10, 300)))
    elif kind == "colorize":
        blackpoint = draw(st.integers(0, 128))
        argument = (blackpoint, draw(st.integers(blackpoint, 255)))
    elif kind == "median":
        argument = draw(st.sampled_from([1, 3, 5]))
    elif kind == "rotate":  # (angle, expand, fill: None or a grey level)
        angle = draw(st.floats(-360, 360, allow_nan=False))
        argument = (angle, draw(st.booleans()), draw(st.one_of(st.none(), st.integers(0, 255))))
    elif kind == "mode":
        argument = draw(st.integers(-1, 7))
    elif kind == "unsharp":
        radius = draw(st.floats(0, 4, allow_nan=False))
        argument = (radius, draw(st.integers(-100, 600)), draw(st.integers(-1, 12)))
    elif kind == "kernel":
        weights = [draw(st.integers(-3, 5)) for _ in range(9)]
        argument = PILImageFilter.Kernel((3, 3), weights, draw(st.sampled_from([None, 1, 4])))
    return kind, argument


def _apply(ours: bool, image: Any, step: tuple[str, Any]) -> Any:
    """Apply ``step`` with pillow_gpu (ours) or with live Pillow."""
    kind, arg = step
    chops = ImageChops if ours else PILImageChops
    if kind == "invert":
        return chops.invert(image)
    if kind == "transpose":
        return image.transpose(arg)
    if kind == "crop":
        return image.crop(arg)
    if kind == "expand":
        return (ImageOps if ours else PILImageOps).expand(image, arg, 9)
    if kind == "resize":
        return image.resize(*arg)
    if kind == "brightness":
        return (ImageEnhance if ours else PILImageEnhance).Brightness(image).enhance(arg)
    if kind in ("box", "gauss"):
        return image.filter(
            ImageFilter.BoxBlur(arg) if kind == "box" else ImageFilter.GaussianBlur(arg)
        )
    if kind == "median":
        return image.filter(ImageFilter.MedianFilter(arg))
    if kind == "rotate":  # NEAREST, Pillow's default; a grey fill is valid in every mode
        angle, expand, grey = arg
        fill = None if grey is None else f"rgb({grey},{grey},{grey})"
        return image.rotate(angle, expand=expand, fillcolor=fill)
    if kind == "mode":
        return image.filter(ImageFilter.ModeFilter(arg))
    if kind == "unsharp":
        return image.filter(ImageFilter.UnsharpMask(*arg))
    if kind == "kernel":
        return image.filter(arg)
    if kind == "point":
        return image.point(lambda v: v * (arg - 1.5) + 30)
    if kind == "sharpness":
        return (ImageEnhance if ours else PILImageEnhance).Sharpness(image).enhance(arg)
    if kind == "contrast":
        return (ImageEnhance if ours else PILImageEnhance).Contrast(image).enhance(arg)
    if kind == "equalize":  # Pillow equalizes only L and RGB (P is converted first)
        if image.mode not in ("L", "RGB"):
            return image
        return (ImageOps if ours else PILImageOps).equalize(image)
    if kind == "autocontrast":  # Pillow's _lut applies the table only to L and RGB
        if image.mode not in ("L", "RGB"):
            return image
        return (ImageOps if ours else PILImageOps).autocontrast(image, *arg[:2], None, arg[2])
    if kind == "split_merge":  # bands in reverse order, same mode
        return (Image if ours else PILImage).merge(image.mode, image.split()[::-1])
    if kind == "putalpha":
        if image.mode == "CMYK":  # converts through CMYK -> RGBA: no GPU route
            return image
        alpha = image.getchannel(0) if arg is None else arg
        out = image.copy()
        out.putalpha(alpha)  # in place, in Pillow and in pillow_gpu
        return out
    if kind == "colorize":
        gray = (ImageOps if ours else PILImageOps).grayscale(image)
        return (ImageOps if ours else PILImageOps).colorize(gray, "navy", "gold", None, *arg)
    blend = ImageChops.blend if ours else PILImage.blend
    return blend(image, chops.invert(image), arg)


@st.composite
def _graphs(
    draw: st.DrawFn, kinds: list[str] = _KINDS
) -> tuple[str, tuple[int, int], int, list[tuple[str, Any]]]:
    mode = draw(st.sampled_from(MODES))
    size = (draw(st.integers(1, 24)), draw(st.integers(1, 24)))
    return (
        mode,
        size,
        draw(st.integers(0, 1000)),
        draw(st.lists(_step(kinds), min_size=1, max_size=4)),
    )


_Graph = tuple[str, tuple[int, int], int, list[tuple[str, Any]]]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_graphs())
def test_random_graphs_match_pillow(graph: _Graph) -> None:
    _check_graph(graph)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(_graphs(_BAND_KINDS))
def test_random_band_graphs_match_pillow(graph: _Graph) -> None:
    _check_graph(graph)


def _check_graph(graph: _Graph) -> None:
    mode, size, seed, steps = graph
    source = make_image(mode, size, seed)
    lazy: Any = Image.from_pil(source)
    expected = source
    for step in steps:
        lazy = _apply(True, lazy, step)
        expected = _apply(False, expected, step)
    assert_image_equal(evaluate(lazy), expected)
