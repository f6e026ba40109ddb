"""GPU parity for ``Image.rotate`` and ``Image.transform(AFFINE)`` with BILINEAR and BICUBIC.

Pillow interpolates in doubles (``ImagingGenericTransform`` with ``affine_transform`` and its
bilinear and bicubic filters); affine_filtered repeats each operation in software binary64.
BICUBIC overshoots, so its clamps at 0 and 255 are reached on the random contents. Cases cover
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
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

AFFINE = PILImage.Transform.AFFINE
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


@settings(max_examples=30, deadline=None)
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
    source = make_image(mode, (23, 14))
    kwargs = {"center": center, "expand": expand}
    expected = source.rotate(angle, resample, **kwargs)
    _same(Image.from_pil(source).rotate(angle, resample, **kwargs), expected)


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


@pytest.mark.parametrize("resample", FILTERS, ids=FILTER_IDS)
@pytest.mark.parametrize("mode", ["I", "F", "I;16", "YCbCr"])
def test_other_modes_stay_refused(mode: str, resample: int) -> None:
    lazy = Image.new(mode, (9, 7)).rotate(30, resample)
    with pytest.raises(Unsupported):
        plan_graph(lazy)
