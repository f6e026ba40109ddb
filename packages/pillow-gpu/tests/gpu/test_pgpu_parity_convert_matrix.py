"""GPU parity of ``convert(mode, matrix)`` (Pillow's ImagingConvertMatrix) and its refusals.

Pillow computes ``((m0*r + m1*g) + m2*b) + m3`` in float32, adds 0.5 and clips/truncates; the
RGB result's padding byte is never written by Pillow (uninitialised memory), so band bytes
are compared exactly and the padding is checked to be the documented 255.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import make_image, rebuilt
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

_RNG = np.random.default_rng(12)
# Pillow's documented sRGB -> CIE XYZ example matrix, one row per output band.
_XYZ_ROWS = (
    (0.412453, 0.357580, 0.180423, 0),
    (0.212671, 0.715160, 0.072169, 0),
    (0.019334, 0.119193, 0.950227, 0),
)

MATRICES: dict[str, tuple[str, tuple[float, ...]]] = {
    "luma4-L": ("L", (0.299, 0.587, 0.114, 0.0)),
    "luma12-L": ("L", (0.299, 0.587, 0.114, 0.0, *(9.0,) * 8)),  # Pillow reads the first 4
    "xyz-RGB": ("RGB", tuple(v for row in _XYZ_ROWS for v in row)),
    "identity-RGB": ("RGB", (1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0)),
    "invert-RGB": ("RGB", (-1, 0, 0, 255, 0, -1, 0, 255, 0, 0, -1, 255)),
    "halves-L": ("L", (0.5, 0.5, 0.0, 0.0)),  # sums on .5 boundaries
    "minus-half-L": ("L", (1.0, 0.0, 0.0, -0.5)),  # v + 0.5 lands exactly on the byte
    "offset-below-half-L": ("L", (0.1, 0.2, 0.3, 0.4999999)),
    "thirds-L": ("L", (1 / 3, 1 / 3, 1 / 3, 0.0)),
    "large-clipped-L": ("L", (1000.0, -1000.0, 3.5, -7.0)),
    "tiny-L": ("L", (1e-30, 1e-38, 0.0, 0.5)),
    "zero-L": ("L", (0, 0, 0, 0)),
    "ints-L": ("L", (1, 2, -1, 3)),
    "huge-L": ("L", (1e35, -1e35, 1e35, 0.0)),
    **{f"normal{i}-L": ("L", tuple(_RNG.normal(0, 1, 4).tolist())) for i in range(4)},
    **{f"uniform{i}-RGB": ("RGB", tuple(_RNG.uniform(-3, 3, 12).tolist())) for i in range(3)},
}
SIZES = ((1, 1), (5, 3), (37, 19), (64, 64))
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


def _source(size: tuple[int, int], content: str) -> PILImage.Image:
    if content == "noise":  # random padding bytes too: the kernel must not read them
        return make_image("RGB", size, seed=size[0])
    pixels = np.arange(size[0] * size[1], dtype=np.int64)[:, None]
    byte = np.arange(4, dtype=np.int64)[None, :]
    if content == "ramp":
        data = (pixels * (2 * byte + 1) + 67 * byte) & 255
    else:
        data = np.random.default_rng(3).integers(0, 2, (pixels.size, 4)) * 255
    return PILImage.frombytes("RGB", size, data.astype(np.uint8).tobytes(), "raw", "RGBX")


def _assert_matrix_equal(
    actual: PILImage.Image, expected: PILImage.Image, *, padding: bool = True
) -> None:
    """Band bytes equal; with ``padding`` (the GPU's result) the RGB padding byte is 255."""
    assert (actual.mode, actual.size) == (expected.mode, expected.size)
    got = np.frombuffer(actual.tobytes(), dtype=np.uint8)
    want = np.frombuffer(expected.tobytes(), dtype=np.uint8)
    where = np.flatnonzero(got != want)
    assert where.size == 0, f"{where.size} bytes differ, first at {where[:5].tolist()}"
    if padding and actual.mode == "RGB":
        assert set(actual.tobytes("raw", "RGBX")[3::4]) == {255}


@pytest.mark.parametrize("content", ["noise", "ramp", "edges"])
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", list(MATRICES))
def test_matrix_parity(name: str, size: tuple[int, int], content: str) -> None:
    mode, matrix = MATRICES[name]
    source = _source(size, content)
    lazy = Image.from_pil(source).convert(mode, matrix)
    expected = source.convert(mode, matrix)
    _assert_matrix_equal(evaluate(rebuilt(lazy)), expected)  # its own copy: results are cached
    # The CPU replay passes the matrix too; it is Pillow's convert, whose RGB padding byte is
    # uninitialised: its band bytes are compared.
    _assert_matrix_equal(lazy.to_pil(), expected, padding=False)


@pytest.mark.parametrize("name", ["luma4-L", "halves-L", "uniform0-RGB"])
def test_matrix_is_exact_over_every_rgb_triple(name: str) -> None:
    mode, matrix = MATRICES[name]
    index = np.arange(1 << 24, dtype=np.uint32)
    source = PILImage.frombytes("RGB", (4096, 4096), (index | 0xFF000000).tobytes(), "raw", "RGBX")
    expected = source.convert(mode, matrix)
    _assert_matrix_equal(evaluate(Image.from_pil(source).convert(mode, matrix)), expected)


@pytest.mark.parametrize(
    ("mode", "matrix", "reason"),
    [
        ("RGB", (1.0, 0.0, 0.0, 0.0), "uninitialised"),
        ("L", (float("inf"), 0.0, 0.0, 0.0), "finite"),
        ("L", (float("nan"), 0.0, 0.0, 0.0), "finite"),
        ("L", (1e36, 0.0, 0.0, 0.0), "finite"),
        ("RGB", (1.0, 0.0, 0.0, 0.0) * 2 + (0.0, 0.0, 0.0, 1e300), "finite"),
    ],
    ids=["rgb-4-values", "inf", "nan", "over-bound", "double-overflow"],
)
def test_unproven_matrices_are_refused(mode: str, matrix: tuple[float, ...], reason: str) -> None:
    lazy = Image.from_pil(make_image("RGB", (5, 3))).convert(mode, matrix)
    with pytest.raises(Unsupported, match=reason):
        plan_graph(lazy)


def test_over_bound_matrix_still_matches_pillow_on_the_cpu() -> None:
    source = make_image("RGB", (5, 3))
    matrix = (1e36, 1e36, 0.0, 0.0)
    lazy = Image.from_pil(source).convert("L", matrix)
    assert lazy.to_pil().tobytes() == source.convert("L", matrix).tobytes()


@pytest.mark.parametrize(
    ("mode", "target"), [("RGBA", "L"), ("L", "L"), ("RGB", "RGBA"), ("CMYK", "RGB")]
)
def test_matrix_errors_match_pillow_when_recorded(mode: str, target: str) -> None:
    source = make_image(mode, (2, 2))
    with pytest.raises(ValueError, match=r"illegal conversion|wrong mode") as expected:
        source.convert(target, (1.0, 0.0, 0.0, 0.0))
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        Image.from_pil(source).convert(target, (1.0, 0.0, 0.0, 0.0))


def test_matrix_without_a_mode_is_a_copy() -> None:
    lazy = Image.from_pil(make_image("RGB", (5, 3)))
    assert lazy.convert(None, (1.0, 0.0, 0.0, 0.0)).node is lazy.node  # Pillow: self.copy()


@pytest.mark.parametrize("name", ["luma4-L", "xyz-RGB"])
def test_matrix_rewrites_transparency_as_pillow(name: str) -> None:
    mode, matrix = MATRICES[name]
    source = make_image("RGB", (5, 3))
    source.info["transparency"] = (10, 200, 30)
    lazy = Image.from_pil(source).convert(mode, matrix)
    expected = source.convert(mode, matrix)
    assert lazy.info == expected.info  # recorded without evaluating
    result = evaluate(lazy)
    assert result.info == expected.info
    _assert_matrix_equal(result, expected)
