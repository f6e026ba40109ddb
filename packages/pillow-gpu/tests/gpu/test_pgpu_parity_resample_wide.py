"""GPU parity for resize of I;16, I;16B, I;16L and I images with the interpolating filters,
and for reduce of I images (thumbnails of 16-bit scans).

Pillow resamples and reduces these modes in doubles (resample_wide's and reduce_wide's
software binary64). Contents are random over the whole value range with the extremes placed
where the filters overshoot (0 beside 65535, int32 minimum beside maximum), so the clamp of
the 16-bit modes and the out-of-range casts of I are reached; I;16B checks Pillow's
little-endian reading of its bytes; reduce blocks of int32 extremes wrap Pillow's int group
sums.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu.lowering._platform import clamps_16bit, int_out_of_range

pytestmark = pytest.mark.usefixtures("device")

R = PILImage.Resampling
FILTERS = [R.BOX, R.BILINEAR, R.HAMMING, R.BICUBIC, R.LANCZOS]
MODES = ("I;16", "I;16B", "I;16L", "I")
_DTYPES = {"I;16": "<u2", "I;16L": "<u2", "I;16B": ">u2", "I": "<i4"}
_Size = tuple[int, int]
SOURCES = ((1, 1), (3, 2), (19, 17), (65, 33))
# target size from the source size: upscale, non-integer and integer downscale, 1xN, one
# axis only, and a vertical-first pass order (height shrinks much more than width)
TARGETS = {
    "up": lambda w, h: (2 * w + 1, h * 3 // 2 + 1),
    "down-fractional": lambda w, h: (max(1, w * 2 // 3), max(1, h * 3 // 5)),
    "down-integer": lambda w, h: (max(1, w // 2), max(1, h // 2)),
    "1xN": lambda w, h: (1, h + 5),
    "width-only": lambda w, h: (w + 3, h),
    "vertical-first": lambda w, h: (max(1, w - 1), max(1, h // 5)),
}


def wide_image(mode: str, size: _Size, seed: int = 0) -> PILImage.Image:
    """Random values of ``mode``; every third row alternates the mode's extremes."""
    rng = np.random.default_rng(seed)
    width, height = size
    if mode == "I":
        low, high = -(2**31), 2**31 - 1
        values = rng.integers(low, high, size=(height, width), endpoint=True)
        values[1::4] = rng.integers(-300, 70000, size=values[1::4].shape)
    else:
        low, high = 0, 65535
        values = rng.integers(low, high, size=(height, width), endpoint=True)
    values[::3, ::2] = high
    values[::3, 1::2] = low
    return PILImage.frombytes(mode, size, values.astype(_DTYPES[mode]).tobytes())


def _check(mode: str, src: _Size, size: _Size, method: int, box: object = None) -> None:
    source = wide_image(mode, src)
    expected = source.resize(size, method, box)  # type: ignore[arg-type]
    lazy = Image.from_pil(source).resize(size, method, box)  # type: ignore[arg-type]
    assert_image_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("method", FILTERS, ids=[f.name for f in FILTERS])
@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("src", SOURCES, ids=[f"{w}x{h}" for w, h in SOURCES])
@pytest.mark.parametrize("mode", MODES)
def test_resize_matches_pillow(mode: str, src: _Size, target: str, method: int) -> None:
    _check(mode, src, TARGETS[target](*src), method)


@pytest.mark.parametrize("method", FILTERS, ids=[f.name for f in FILTERS])
@pytest.mark.parametrize("mode", MODES)
def test_resize_with_a_fractional_box_matches_pillow(mode: str, method: int) -> None:
    _check(mode, (40, 30), (23, 31), method, (5.2, 3.7, 33.9, 28.05))


@pytest.mark.parametrize("mode", MODES)
def test_an_integer_box_of_the_output_size_is_a_crop(mode: str) -> None:
    _check(mode, (20, 10), (7, 5), R.BICUBIC, (3, 2, 10, 7))


@pytest.mark.parametrize("mode", MODES)
def test_long_downscale_and_upscale_match_pillow(mode: str) -> None:
    _check(mode, (640, 9), (5, 40), R.LANCZOS)
    _check(mode, (3, 4), (97, 61), R.BICUBIC)


@pytest.mark.parametrize("mode", ["I;16", "I"])
def test_thumbnail_without_a_reducing_gap_matches_pillow(mode: str) -> None:
    source = wide_image(mode, (300, 200), seed=3)
    expected = source.copy()
    expected.thumbnail((64, 64), reducing_gap=None)
    lazy = Image.from_pil(source)
    lazy.thumbnail((64, 64), reducing_gap=None)
    assert_image_equal(evaluate(lazy), expected)


@settings(max_examples=25, deadline=None)
@given(
    mode=st.sampled_from(MODES),
    src=st.tuples(st.integers(1, 40), st.integers(1, 40)),
    size=st.tuples(st.integers(1, 60), st.integers(1, 60)),
    method=st.sampled_from(FILTERS),
    seed=st.integers(0, 1000),
)
def test_any_size_matches_pillow(
    mode: str, src: _Size, size: _Size, method: int, seed: int
) -> None:
    source = wide_image(mode, src, seed)
    assert_image_equal(
        evaluate(Image.from_pil(source).resize(size, method)), source.resize(size, method)
    )


def test_live_pillow_clamps_16bit_results_and_casts_out_of_range_i_to_a_known_value() -> None:
    assert clamps_16bit()
    above, below = int_out_of_range() or (None, None)
    assert above is not None
    assert below is not None


@pytest.mark.parametrize("mode", ["I;16", "I;16B", "I;16L"])
def test_a_reducing_gap_raises_what_pillow_raises_on_16bit_modes(mode: str) -> None:
    source = wide_image(mode, (300, 200))
    with pytest.raises(ValueError, match="image has wrong mode") as pillow:
        source.copy().thumbnail((64, 64))
    with pytest.raises(ValueError, match="image has wrong mode") as ours:
        Image.from_pil(source).thumbnail((64, 64))
    assert str(ours.value) == str(pillow.value)


REDUCE_CONTENTS = ("random", "small", "extremes")
FACTORS = {"2": 2, "3": 3, "2x3": (2, 3), "5x1": (5, 1), "1x4": (1, 4), "7x5": (7, 5), "4": 4}


def i_image(contents: str, size: _Size, seed: int = 0) -> PILImage.Image:
    """An I image: random int32s, small values, or only the extremes (group sums overflow)."""
    rng = np.random.default_rng(seed)
    count = size[0] * size[1]
    if contents == "random":
        values = rng.integers(-(2**31), 2**31, count)
    elif contents == "small":
        values = rng.integers(-300, 70000, count)
    else:
        values = rng.choice([2**31 - 1, -(2**31), 2**31 - 2, -(2**31) + 1], count)
    return PILImage.frombytes("I", size, values.astype("<i4").tobytes())


@pytest.mark.parametrize("boxed", [False, True], ids=["whole", "box"])
@pytest.mark.parametrize("factor", list(FACTORS.values()), ids=list(FACTORS))
@pytest.mark.parametrize("src", [(8, 8), (37, 19), (13, 101)], ids=["8x8", "37x19", "13x101"])
@pytest.mark.parametrize("contents", REDUCE_CONTENTS)
def test_reduce_of_i_matches_pillow(contents: str, src: _Size, factor: object, boxed: bool) -> None:
    source = i_image(contents, src)
    box = (1, 2, src[0] - 1, src[1]) if boxed else None
    expected = source.reduce(factor, box)  # type: ignore[arg-type]
    lazy = Image.from_pil(source).reduce(factor, box)  # type: ignore[arg-type]
    assert_image_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("method", FILTERS, ids=[f.name for f in FILTERS])
@pytest.mark.parametrize("contents", REDUCE_CONTENTS)
def test_thumbnail_of_i_with_pillows_reducing_gap_matches_pillow(
    contents: str, method: int
) -> None:
    source = i_image(contents, (301, 203), seed=5)
    expected = source.copy()
    expected.thumbnail((40, 40), method)
    lazy = Image.from_pil(source)
    lazy.thumbnail((40, 40), method)
    assert_image_equal(evaluate(lazy), expected)
    kwargs = {"reducing_gap": 1.5, "box": (3.5, 2.0, 290.0, 200.25)}
    resized = Image.from_pil(source).resize((31, 17), method, **kwargs)
    assert_image_equal(evaluate(resized), source.resize((31, 17), method, **kwargs))


def test_a_reduce_block_beyond_exact_doubles_is_refused() -> None:
    lazy = Image.new("I", (2100, 1100), 7).reduce((2048, 1024))
    with pytest.raises(Unsupported) as info:
        plan_graph(lazy)
    assert "2**53" in info.value.why


def test_float_images_stay_refused() -> None:
    lazy = Image.new("F", (9, 7), 1.5).resize((4, 3), R.BILINEAR)
    with pytest.raises(Unsupported) as info:
        plan_graph(lazy)
    assert "NEAREST" in info.value.why
