"""GPU parity for Pillow's generic transform: ``rotate`` and ``transform(AFFINE)`` with BILINEAR
and BICUBIC, ``transform(QUAD)`` with all three filters, and ``transform(EXTENT)``.

Pillow maps and interpolates in doubles (``ImagingGenericTransform`` with ``affine_transform``
or ``quad_transform`` and its filters); generic_transform repeats each operation in software
binary64. BICUBIC overshoots, so its clamps at 0 and 255 are reached on the random contents.
Cases cover
every mode the route admits (LA and RGBA premultiplied as Pillow converts them), rotations at
angles whose coordinates fall on and beside pixel centres, expand, fill colours (alpha
included), scales whose source coordinates land exactly on edges and centres (fractions of
0, the last column, the FLOOR of -0.5..0), shears, mirrors and translations, through
``evaluate`` and a batch; matrices outside the proven range and the other filters are refused.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu.lowering import _platform, affine
from pillow_gpu.gpu.lowering._platform import filters_wrap_int32

pytestmark = pytest.mark.usefixtures("device")

AFFINE = PILImage.Transform.AFFINE
QUAD = PILImage.Transform.QUAD
EXTENT = PILImage.Transform.EXTENT
ALL_FILTERS = [
    PILImage.Resampling.NEAREST,
    *[PILImage.Resampling.BILINEAR, PILImage.Resampling.BICUBIC],
]
BILINEAR = PILImage.Resampling.BILINEAR
FILTERS = [PILImage.Resampling.BILINEAR, PILImage.Resampling.BICUBIC]
FILTER_IDS = [f.name for f in FILTERS]
MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")
SIZES = ((1, 1), (3, 2), (19, 17), (65, 33))
ANGLES = (12.5, -33, 45, 123.4, 359.9, 0.001, 30)
FILLS: dict[str, Any] = {"no-fill": None, "colour": "red", "translucent": (10, 200, 90, 128)}


def _fill(mode: str, fill: Any) -> Any:
    if mode == "L" and fill is not None:
        return 77
    if mode == "LA" and isinstance(fill, tuple):
        return fill[:1] + fill[3:]
    if mode in ("RGB", "RGBX") and isinstance(fill, tuple):
        return fill[:3]
    return fill


def _same(lazy: Image.Image, expected: PILImage.Image) -> None:
    assert_image_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("resample", FILTERS, ids=FILTER_IDS)
@pytest.mark.parametrize("fill", list(FILLS))
@pytest.mark.parametrize("expand", [False, True], ids=["same-size", "expand"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", MODES)
def test_rotate_matches_pillow(
    mode: str, size: tuple[int, int], expand: bool, fill: str, resample: int
) -> None:
    source = make_image(mode, size)
    lazy = Image.from_pil(source)
    for angle in ANGLES:
        kwargs = {"expand": expand, "fillcolor": _fill(mode, FILLS[fill])}
        expected = source.rotate(angle, resample, **kwargs)
        _same(lazy.rotate(angle, resample, **kwargs), expected)


MATRICES: dict[str, tuple[float, ...]] = {
    "half-scale": (0.5, 0, 0, 0, 0.5, 0),  # centres on sample edges: fractions of 0.25/0.75
    "double-scale": (2.0, 0.0, 0.25, 0.0, 2.0, 0.75),
    "exact-centres": (1.0, 0.0, 0.0, 0.0, 1.0, 0.0),  # dx = dy = 0 everywhere
    "last-column": (1.0, 0.0, 0.5, 0.0, 1.0, -0.5),  # FLOOR(-0.5..0) = -1 and the edge clip
    "shear": (1.3, 0.2, -3.7, -0.15, 0.9, 2.25),
    "mirror": (-1.0, 0.3, 40.0, 0.2, 1.1, -5.0),
    "thirds": (1 / 3, 0.1, 2 / 3, -0.1, 1 / 3, 1 / 7),
    "tiny-rotation": (math.cos(1e-6), math.sin(1e-6), 0.0, -math.sin(1e-6), math.cos(1e-6), 0.0),
}


@pytest.mark.parametrize("resample", FILTERS, ids=FILTER_IDS)
@pytest.mark.parametrize("matrix", list(MATRICES.values()), ids=list(MATRICES))
@pytest.mark.parametrize("mode", MODES)
def test_affine_matrices_match_pillow(mode: str, matrix: tuple[float, ...], resample: int) -> None:
    source = make_image(mode, (40, 30))
    expected = source.transform((50, 40), AFFINE, matrix, resample)
    _same(Image.from_pil(source).transform((50, 40), AFFINE, matrix, resample), expected)


@pytest.mark.parametrize("resample", FILTERS, ids=FILTER_IDS)
@pytest.mark.parametrize("mode", ["L", "RGBA"])
def test_noise_rotations_match_pillow(mode: str, resample: int) -> None:
    """Uniform noise at many angles: every rounding of the interpolation is reached often."""
    rng = np.random.default_rng(11)
    bands = len(mode)
    noise = rng.integers(0, 256, (96, 128, bands), dtype=np.uint8)
    source = PILImage.fromarray(noise[..., 0] if bands == 1 else noise, mode)
    lazy = Image.from_pil(source)
    for angle in (1.5, 9.25, 33.3, 61, 87.77, 145, 201.5, 300.1):
        expected = source.rotate(angle, resample, expand=True)
        _same(lazy.rotate(angle, resample, expand=True), expected)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    mode=st.sampled_from(MODES),
    angle=st.floats(-720, 720, allow_nan=False),
    center=st.tuples(st.floats(-5, 30, allow_subnormal=False), st.floats(-5, 30)),
    expand=st.booleans(),
    resample=st.sampled_from(FILTERS),
)
def test_any_rotation_matches_pillow(
    mode: str, angle: float, center: tuple[float, float], expand: bool, resample: int
) -> None:
    """Exact on the GPU, or refused at admission where the matrix holds a coefficient outside
    the range the kernels are proven for (a tiny centre and an angle a hair from 180 degrees
    give an offset of 6e-311, a subnormal double), the CPU route then exact."""
    source = make_image(mode, (23, 14))
    kwargs = {"center": center, "expand": expand}
    expected = source.rotate(angle, resample, **kwargs)
    lazy = Image.from_pil(source).rotate(angle, resample, **kwargs)
    refused = ""
    try:
        result = evaluate(lazy)
    except Unsupported as refusal:
        refused, result = str(refusal), lazy.to_pil()
    assert not refused or "map's coefficients (the transform matrix) are proven" in refused
    assert_image_equal(result, expected)


def test_a_rotation_whose_matrix_holds_a_subnormal_offset_is_refused_and_exact_on_the_cpu() -> None:
    """The case hypothesis found: an offset of 6.4e-311 (subnormal), which the GPU's double
    arithmetic is not proven for, is refused at admission, never computed inexactly."""
    source = make_image("L", (23, 14))
    kwargs: dict[str, Any] = {"center": (0.0, 3.1773391259476803e-296), "expand": False}
    angle = 179.9999999999999
    lazy = Image.from_pil(source).rotate(angle, BILINEAR, **kwargs)
    with pytest.raises(Unsupported, match="coefficients"):
        evaluate(lazy)
    assert_image_equal(lazy.to_pil(), source.rotate(angle, BILINEAR, **kwargs))


def test_a_batch_of_rotations_matches_pillow() -> None:
    sources = [make_image("RGBA", (31, 22), seed) for seed in range(5)]
    jobs = [
        (i, Image.from_pil(s).rotate(17 * i + 3, BILINEAR, expand=True))
        for i, s in enumerate(sources)
    ]
    with GpuBatchExecutor() as executor, executor.run(jobs) as results:
        found = {result.input_key: result.image for result in results}
    for index, source in enumerate(sources):
        assert_image_equal(found[index], source.rotate(17 * index + 3, BILINEAR, expand=True))


REFUSED = {
    "nan": (math.nan, 0, 0, 0, 1, 0),
    "infinite": (1, math.inf, 0, 0, 1, 0),
    "huge": (1e200, 0, 0, 0, 1, 0),
    "tiny": (1, 1e-200, 0, 0, 1, 0),
    "subnormal-offset": (1, 0, 5e-324, 0, 1, 0),
}


@pytest.mark.parametrize("resample", FILTERS, ids=FILTER_IDS)
def test_tiny_normal_offsets_match_pillow(resample: int) -> None:
    """A centre a hair off 0 gives offsets near 1e-300: any normal offset is admitted."""
    source = make_image("RGB", (23, 14))
    for center in ((0.0, 3.1e-267), (1e-300, 2.0), (-2.3e-300, 0.0)):
        expected = source.rotate(1.0, resample, center=center)
        _same(Image.from_pil(source).rotate(1.0, resample, center=center), expected)


@pytest.mark.parametrize("matrix", list(REFUSED.values()), ids=list(REFUSED))
def test_matrices_outside_the_proven_range_are_refused(matrix: tuple[float, ...]) -> None:
    lazy = Image.from_pil(make_image("RGB", (9, 7))).transform((9, 7), AFFINE, matrix, BILINEAR)
    with pytest.raises(Unsupported) as info:
        plan_graph(lazy)
    assert "matrix" in info.value.why
    assert "to_pil()" in info.value.fix


#: I contents: small values; the int32 extremes, where a row's int differences wrap and results
#: leave the int32 range; any int32.
I_CONTENTS = ("small", "extremes", "any")
_EXTREMES = (2**31 - 1, -(2**31), 0, 1, -1, 2**30, -(2**30))


def _i_source(content: str, size: tuple[int, int]) -> PILImage.Image:
    rng = np.random.default_rng(size[0] * 100 + size[1])
    shape = (size[1], size[0])
    if content == "extremes":
        values = rng.choice(_EXTREMES, shape)
    elif content == "small":
        values = rng.integers(-1000, 1000, shape)
    else:
        values = rng.integers(-(2**31), 2**31, shape)
    return PILImage.fromarray(values.astype(np.int32), "I")


@pytest.mark.parametrize("resample", FILTERS, ids=FILTER_IDS)
@pytest.mark.parametrize("content", I_CONTENTS)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_i_rotations_and_warps_match_pillow(
    size: tuple[int, int], content: str, resample: int
) -> None:
    source = _i_source(content, size)
    lazy = Image.from_pil(source)
    for angle in ANGLES[:4]:
        for kwargs in ({"expand": True}, {"fillcolor": -5}):
            _same(lazy.rotate(angle, resample, **kwargs), source.rotate(angle, resample, **kwargs))
    for matrix in MATRICES.values():
        expected = source.transform((23, 19), AFFINE, matrix, resample)
        _same(lazy.transform((23, 19), AFFINE, matrix, resample), expected)
    for quad in QUADS.values():
        expected = source.transform((21, 17), QUAD, quad, resample, fillcolor=9)
        _same(lazy.transform((21, 17), QUAD, quad, resample, fillcolor=9), expected)


def test_live_pillow_wraps_the_i_filters_row_ints(monkeypatch: pytest.MonkeyPatch) -> None:
    assert filters_wrap_int32()
    # the probe can fail: a replay without the wrap disagrees with live Pillow
    monkeypatch.setattr(_platform, "_wrapped", lambda value: value)
    assert not filters_wrap_int32.__wrapped__()


@pytest.mark.parametrize("resample", FILTERS, ids=FILTER_IDS)
def test_f_stays_refused(resample: int) -> None:
    """F's filters compute in doubles and store floats: no proven route (the 16-bit modes and
    I have theirs, test_pgpu_parity_wide16_filtered and the I tests above)."""
    lazy = Image.new("F", (9, 7), 3).rotate(30, resample)
    with pytest.raises(Unsupported, match=r"mode F .*NEAREST"):
        plan_graph(lazy)
    lazy = Image.new("F", (9, 7)).transform((9, 7), QUAD, (0, 0, 0, 7, 9, 7, 9, 0), resample)
    with pytest.raises(Unsupported, match="mode F"):
        plan_graph(lazy)


#: Quads (NW, SW, SE, NE corners): the whole image, an inset, a keystone with fractional and
#: outside corners, a fold-over, a sliver and one sensitive to the map's evaluation order.
QUADS: dict[str, tuple[float, ...]] = {
    "whole": (0, 0, 0, 30, 40, 30, 40, 0),
    "inset": (3, 2, 1, 28, 37, 31, 39, 1),
    "keystone": (2.5, 1.25, -3, 33.5, 44.75, 27.2, 38.1, -2.9),
    "fold": (10, 10, 5, 25, 30, 28, 35, 3),
    "sliver": (0.1, 0.2, 0.1, 29.9, 0.3, 29.8, 0.2, 0.1),
    # one output pixel whose NEAREST source changes if (d * xx) * yy is evaluated as
    # (d * yy) * xx (found by a search over random quads)
    "order-sensitive": (0.3, 16.91, 42.8, 9.3, -2.15, 23.37, 2.65, 42.95),
}
QUAD_MODES = (*MODES, "I;16", "I", "F")


def _quad_source(mode: str) -> PILImage.Image:
    if mode == "I;16":
        return make_image("L", (40, 30)).convert("I").point(lambda v: v * 250).convert(mode)
    if mode in ("I", "F"):
        return make_image("RGB", (40, 30)).convert(mode)
    return make_image(mode, (40, 30))


def _check_quad(mode: str, quad: tuple[float, ...], resample: int) -> None:
    source = _quad_source(mode)
    for fill in (None, 7 if mode in ("L", "I;16", "I", "F") else "red"):
        expected = source.transform((37, 29), QUAD, quad, resample, fillcolor=fill)
        lazy = Image.from_pil(source).transform((37, 29), QUAD, quad, resample, fillcolor=fill)
        _same(lazy, expected)


@pytest.mark.parametrize("quad", list(QUADS.values()), ids=list(QUADS))
@pytest.mark.parametrize("mode", QUAD_MODES)
def test_quad_nearest_matches_pillow(mode: str, quad: tuple[float, ...]) -> None:
    _check_quad(mode, quad, PILImage.Resampling.NEAREST)


@pytest.mark.parametrize("resample", FILTERS, ids=FILTER_IDS)
@pytest.mark.parametrize("quad", list(QUADS.values()), ids=list(QUADS))
@pytest.mark.parametrize("mode", MODES)
def test_quad_interpolated_matches_pillow(
    mode: str, quad: tuple[float, ...], resample: int
) -> None:
    _check_quad(mode, quad, resample)


def _perspective(target: list[tuple[float, float]], size: tuple[int, int]) -> list[float]:
    """PERSPECTIVE coefficients mapping the output's corners to ``target`` (a keystone)."""
    corners = [(0, 0), (size[0], 0), (size[0], size[1]), (0, size[1])]
    rows = []
    for (x, y), (u, v) in zip(corners, target, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    solution = np.linalg.solve(np.array(rows, dtype=float), np.array(target, dtype=float).ravel())
    return [float(v) for v in solution]


#: PERSPECTIVE maps of a 37 x 29 output: keystones (a scanned page), a strong tilt that
#: samples outside the source, a near-identity one (a6, a7 tiny), exact affine (a6 = a7 = 0).
PERSPECTIVES: dict[str, list[float]] = {
    "keystone": _perspective([(3, 2), (35, 0), (39, 31), (-2, 27)], (37, 29)),
    "strong-tilt": _perspective([(12, 8), (28, 9), (47, 36), (-9, 33)], (37, 29)),
    "near-identity": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1e-4, -2e-4],
    "affine": [0.9, 0.2, 1.5, -0.1, 1.1, -0.5, 0.0, 0.0],
}
PERSPECTIVE_MODES = (*MODES, "I", "YCbCr", "P")


@pytest.mark.parametrize("resample", ALL_FILTERS, ids=[f.name for f in ALL_FILTERS])
@pytest.mark.parametrize("name", list(PERSPECTIVES))
@pytest.mark.parametrize("mode", PERSPECTIVE_MODES)
def test_perspective_matches_pillow(mode: str, name: str, resample: int) -> None:
    source = _quad_source(mode) if mode != "P" else _quad_source("RGB").convert("P")
    if mode == "YCbCr":
        source = _quad_source("RGB").convert(mode)
    coefficients = PERSPECTIVES[name]
    for fill in (None, 7 if mode in ("L", "I", "P") else "red"):
        args = ((37, 29), PILImage.Transform.PERSPECTIVE, coefficients, resample)
        expected = source.transform(*args, fillcolor=fill)
        _same(Image.from_pil(source).transform(*args, fillcolor=fill), expected)


@settings(max_examples=30, deadline=None)
@given(
    mode=st.sampled_from(MODES),
    offsets=st.lists(st.integers(-768, 768), min_size=8, max_size=8),  # 1/64 pixel steps
    resample=st.sampled_from(ALL_FILTERS),
)
def test_any_keystone_matches_pillow(mode: str, offsets: list[int], resample: int) -> None:
    corners = [(0, 0), (37, 0), (37, 29), (0, 29)]
    target = [
        (x + offsets[2 * i] / 64, y + offsets[2 * i + 1] / 64) for i, (x, y) in enumerate(corners)
    ]
    try:
        coefficients = _perspective(target, (37, 29))
    except np.linalg.LinAlgError:
        assume(False)
    assume(affine._perspective_refusal(coefficients, (37, 29)) is None)
    source = _quad_source(mode)
    args = ((37, 29), PILImage.Transform.PERSPECTIVE, coefficients, resample)
    lazy = Image.from_pil(source).transform(*args)
    try:  # the proven coefficient range (a solved map can hold a tiny nonzero term)
        plan_graph(lazy)
    except Unsupported as refused:
        assume("coefficients" not in refused.why)
        raise
    _same(lazy, source.transform(*args))


#: Maps whose denominator a6 xx + a7 yy + 1 is zero at an output pixel (a6 * 0.5 = -1), or
#: whose coordinates leave the normal doubles there.
SINGULAR = {
    "horizon-on-a-pixel": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, -2.0, 0.0],
    "subnormal-coordinate": [1e-310, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
}


@pytest.mark.parametrize("name", list(SINGULAR))
def test_perspective_outside_the_normal_doubles_is_refused(name: str) -> None:
    lazy = Image.from_pil(make_image("RGB", (9, 7))).transform(
        (9, 7), PILImage.Transform.PERSPECTIVE, SINGULAR[name], BILINEAR
    )
    with pytest.raises(Unsupported) as refused:
        plan_graph(lazy)
    assert "to_pil()" in refused.value.fix


EXTENTS = {"whole": (0, 0, 40, 30), "fractional": (5.5, 2.25, 30, 20), "zoom": (10, 10, 12, 13)}


@pytest.mark.parametrize("resample", ALL_FILTERS, ids=[f.name for f in ALL_FILTERS])
@pytest.mark.parametrize("extent", list(EXTENTS.values()), ids=list(EXTENTS))
@pytest.mark.parametrize("mode", MODES)
def test_extent_matches_pillow(mode: str, extent: tuple[float, ...], resample: int) -> None:
    source = make_image(mode, (40, 30))
    expected = source.transform((33, 21), EXTENT, extent, resample)
    _same(Image.from_pil(source).transform((33, 21), EXTENT, extent, resample), expected)
