"""GPU parity for 16/32-bit images (I;16, I;16B, I;16L, I, F): affine/rotate NEAREST, split,
getchannel and reduce.

I and F take Pillow's 32-bit scale and 16.16 fixed-point paths (the 8-bit kernels copy their
words); the 16-bit modes always take Pillow's generic double path (``ImagingGenericTransform``),
replayed as host tables. Every case runs the real kernels and compares mode, size and
``tobytes()`` with live Pillow; contents carry each mode's edge values (every 16-bit value in
one test, float NaN, infinities and -0.0 in the wide images' first pixels).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu.lowering import affine

from .test_pgpu_parity_wide import SIZE_IDS, SIZES, WIDE, wide_image

pytestmark = pytest.mark.usefixtures("device")

AFFINE = PILImage.Transform.AFFINE
NEAREST = PILImage.Resampling.NEAREST

MATRICES: dict[str, tuple[float, ...]] = {
    "scale": (0.7, 0.0, 1.3, 0.0, 1.1, -2.0),
    "scale-walk-drift": (2.1, 0.0, 0.05, 0.0, 0.1, 0.05),  # Pillow's walk != generic formula
    "mirror-scale": (-1.0, 0.0, 19.0, 0.0, -0.5, 12.0),
    "shear": (1.0, 0.3, -2.0, 0.2, 1.0, 1.0),
    "rotation-like": (0.8, -0.6, 9.0, 0.6, 0.8, -4.0),
    "fractional-ties": (-0.1, 0.3, 1.0, 0.25, 0.75, 0.5),
}
FILLCOLORS: dict[str, Any] = {"no-fill": None, "int": 300, "over-16-bit": 70000, "negative": -3}


def _gpu(lazy: Image.Image) -> PILImage.Image:
    return evaluate(lazy)


@pytest.mark.parametrize("fill", list(FILLCOLORS.values()), ids=list(FILLCOLORS))
@pytest.mark.parametrize("matrix", list(MATRICES.values()), ids=list(MATRICES))
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", WIDE)
def test_transform_affine_nearest(
    mode: str, size: tuple[int, int], matrix: tuple[float, ...], fill: Any
) -> None:
    image = wide_image(mode, size)
    out = (29, 13)
    expected = image.transform(out, AFFINE, matrix, NEAREST, fillcolor=fill)
    lazy = Image.from_pil(image).transform(out, AFFINE, matrix, NEAREST, fillcolor=fill)
    assert_image_equal(_gpu(lazy), expected)


@pytest.mark.parametrize("fill", [1.5, -0.0, math.inf, (9,)], ids=["1.5", "-0.0", "inf", "tuple"])
def test_transform_of_a_float_image_fills_with_pillows_value(fill: Any) -> None:
    image = wide_image("F", (37, 19))
    matrix = MATRICES["shear"]
    expected = image.transform((40, 30), AFFINE, matrix, NEAREST, fillcolor=fill)
    lazy = Image.from_pil(image).transform((40, 30), AFFINE, matrix, NEAREST, fillcolor=fill)
    assert_image_equal(_gpu(lazy), expected)


ANGLES = (12.5, -33, 45, 90, 123.4, 270, 359.9)
PLACEMENTS: dict[str, dict[str, Any]] = {
    "centred": {},
    "expand": {"expand": True},
    "center-and-translate": {"center": (0.5, 7.25), "translate": (-4, 1)},
    "expand-fill": {"expand": True, "fillcolor": 65535},
}


@pytest.mark.parametrize("placement", list(PLACEMENTS.values()), ids=list(PLACEMENTS))
@pytest.mark.parametrize("angle", ANGLES)
@pytest.mark.parametrize("mode", WIDE)
def test_rotate_nearest(mode: str, angle: float, placement: dict[str, Any]) -> None:
    image = wide_image(mode, (37, 19))
    expected = image.rotate(angle, NEAREST, **placement)
    assert_image_equal(_gpu(Image.from_pil(image).rotate(angle, NEAREST, **placement)), expected)


@pytest.mark.parametrize("mode", ["I;16", "I;16B", "I;16L"])
def test_rotating_every_16_bit_value(mode: str) -> None:
    dtype = ">u2" if mode == "I;16B" else "<u2"
    values = np.arange(65536, dtype=np.uint32).astype(dtype).tobytes()
    image = PILImage.frombytes(mode, (256, 256), values)
    for angle, expand in ((33.3, True), (-7, False)):
        expected = image.rotate(angle, NEAREST, expand)
        assert_image_equal(_gpu(Image.from_pil(image).rotate(angle, NEAREST, expand)), expected)


def test_rotate_runs_through_the_batch_executor() -> None:
    images = {mode: wide_image(mode, (37, 19), seed=3) for mode in WIDE}
    jobs = [
        (mode, Image.from_pil(im).rotate(21, expand=True, fillcolor=5))
        for mode, im in images.items()
    ]
    executor = GpuBatchExecutor()
    try:
        with executor.run(jobs) as results:
            got = {str(result.input_key): result.image for result in results}
    finally:
        executor.close()
    assert set(got) == set(images)
    for mode, image in images.items():
        assert_image_equal(got[mode], image.rotate(21, expand=True, fillcolor=5))


# -- the 16-bit generic path: cases the 8/32-bit paths do not take -------------------------
def test_corners_beyond_32768_run_on_16_bit_and_are_refused_on_32_bit() -> None:
    # Source coordinates past 32768: Pillow's 8/32-bit double fallback, the 16-bit generic path.
    matrix = (1.0, 0.5, 33000.0, 0.0, 1.0, 0.0)
    for mode in WIDE:
        image = wide_image(mode, (33100, 2))
        lazy = Image.from_pil(image).transform((40, 2), AFFINE, matrix, NEAREST)
        if mode in ("I", "F"):
            with pytest.raises(Unsupported, match="outside"):
                plan_graph(lazy)
            continue
        expected = image.transform((40, 2), AFFINE, matrix, NEAREST)
        assert expected.getbbox() is not None  # the case copies real pixels
        assert_image_equal(_gpu(lazy), expected)


RESIZES = {  # widths where Pillow's scale walk and the generic formula pick other columns
    "4->15": ((4, 3), (15, 2)),
    "4->22": ((4, 3), (22, 5)),
    "640->27": ((640, 2), (27, 2)),
    "7->169": ((7, 2), (169, 3)),
    "37x19->80x45": ((37, 19), (80, 45)),
}


@pytest.mark.parametrize("case", list(RESIZES.values()), ids=list(RESIZES))
@pytest.mark.parametrize("mode", WIDE)
def test_resize_nearest_follows_each_modes_path(mode: str, case: tuple) -> None:
    source, size = case
    image = wide_image(mode, source)
    for box in (None, (0.5, 0.25, source[0] - 0.75, source[1])):
        expected = image.resize(size, NEAREST, box)
        assert_image_equal(_gpu(Image.from_pil(image).resize(size, NEAREST, box)), expected)


def test_the_fma_probe_tells_fused_from_unfused() -> None:
    # The probe's pixel lands in another column when either multiply-add is fused.
    a, _, _ = affine._FMA_PROBE
    xin, yin = 3.5, 4.5

    def fused(p: float, q: float, r: float) -> float:
        return float(Fraction(p) * Fraction(q) + Fraction(r))

    unfused = math.floor((a[0] * xin + a[1] * yin) + a[2])
    assert unfused != math.floor(fused(a[0], xin, a[1] * yin) + a[2])
    assert unfused != math.floor(fused(a[1], yin, a[0] * xin) + a[2])
    assert affine._pillow_is_unfused()


def test_a_per_pixel_table_over_the_bound_is_refused() -> None:
    lazy = Image.new("I;16", (2100, 2100)).rotate(30, NEAREST, expand=True)
    with pytest.raises(Unsupported) as info:
        plan_graph(lazy)
    assert str(affine.MAX_PIXEL_TABLE) in info.value.why
    assert "to_pil()" in info.value.fix


@pytest.mark.parametrize(
    "matrix",
    [(math.nan, 0.0, 0.0, 0.0, 1.0, 0.0), (1.0, math.nan, 0.0, 0.0, 1.0, 0.0)],
    ids=["scale-nan", "shear-nan"],
)
@pytest.mark.parametrize("mode", ["I;16", "I;16B"])
def test_nan_coordinates_are_refused_on_16_bit(mode: str, matrix: tuple[float, ...]) -> None:
    lazy = Image.new(mode, (9, 7), 3).transform((9, 7), AFFINE, matrix, NEAREST)
    with pytest.raises(Unsupported, match="NaN"):
        plan_graph(lazy)


# -- split, getchannel, reduce ----------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", WIDE)
def test_split_is_a_copy(mode: str, size: tuple[int, int]) -> None:
    image = wide_image(mode, size)
    (expected,) = image.split()
    (band,) = Image.from_pil(image).split()
    assert_image_equal(_gpu(band), expected)


@pytest.mark.parametrize("channel", [0, "I", "F"])
@pytest.mark.parametrize("mode", WIDE)
def test_getchannel_raises_what_pillow_raises(mode: str, channel: int | str) -> None:
    image = wide_image(mode, (5, 3))
    with pytest.raises(ValueError, match=r"wrong mode|has no channel") as pillow_error:
        image.getchannel(channel)
    with pytest.raises(ValueError, match=r"wrong mode|has no channel") as lazy_error:
        Image.from_pil(image).getchannel(channel)
    assert str(lazy_error.value) == str(pillow_error.value)


FACTORS = {"2": 2, "3x1": (3, 1), "1x2-box": (1, 2)}


@pytest.mark.parametrize("factor", list(FACTORS.values()), ids=list(FACTORS))
def test_reduce_of_float_is_refused_naming_the_arithmetic(factor: Any) -> None:
    """I reduces on the GPU (test_pgpu_parity_resample_wide); F stays refused."""
    lazy = Image.from_pil(wide_image("F", (37, 19))).reduce(factor)
    with pytest.raises(Unsupported) as info:
        plan_graph(lazy)
    assert "mode F" in info.value.why
    assert "float32" in info.value.why
    assert 'convert("L")' in info.value.fix


@pytest.mark.parametrize("mode", ["I;16", "I;16B", "I;16L"])
def test_reduce_of_16_bit_raises_what_pillow_raises(mode: str) -> None:
    image = wide_image(mode, (9, 7))
    with pytest.raises(ValueError, match="wrong mode") as pillow_error:
        image.reduce(2)
    with pytest.raises(ValueError, match="wrong mode") as lazy_error:
        Image.from_pil(image).reduce(2)
    assert str(lazy_error.value) == str(pillow_error.value)


@pytest.mark.parametrize("box", [None, (2, 3, 30, 15)], ids=["whole", "box"])
@pytest.mark.parametrize("mode", WIDE)
def test_reduce_by_one_is_pillows_crop(mode: str, box: tuple[int, int, int, int] | None) -> None:
    image = wide_image(mode, (37, 19))
    assert_image_equal(_gpu(Image.from_pil(image).reduce(1, box)), image.reduce(1, box))
