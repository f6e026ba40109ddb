"""GPU parity for transpose, crop and expand of L kept as Pillow's packed bytes.

``kernels.remap`` with PACKED = 1 writes each output word (four pixels in row order) by
gathering its bytes from the packed source, so an L image moves without being widened to a
word per pixel or packed again. Sizes cover pixel counts that leave a partial last word,
widths that do and do not divide by four (rows that start inside a word, on both sides of a
transpose) and a packed grid of fixed width over 1024 words; crops reach past every edge and
expands paint every border with the fill's byte.
"""

from __future__ import annotations

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageFilter, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

SIZES = ((1, 1), (3, 1), (2, 5), (5, 3), (4, 4), (17, 11), (64, 8), (1030, 3))
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
METHODS = list(PILImage.Transpose)


def _pipelines(lazy: Image.Image) -> list[str]:
    return [dispatch.pipeline for dispatch in plan_graph(lazy).program.dispatches]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
def test_packed_transpose(method: PILImage.Transpose, size: tuple[int, int]) -> None:
    source = make_image("L", size, seed=size[0] + 3 * size[1])
    lazy = Image.from_pil(source).transpose(method)
    assert _pipelines(lazy) == ["remap?PACKED=1"]
    assert_image_equal(evaluate(lazy), source.transpose(method))


@pytest.mark.parametrize(
    "box",
    [(0, 0, 1, 1), (1, 2, 16, 9), (-3, -2, 20, 14), (15, 10, 22, 13), (30, 40, 35, 44)],
    ids=["corner", "inside", "overhanging", "past-the-corner", "fully-outside"],
)
def test_packed_crop(box: tuple[int, int, int, int]) -> None:
    source = make_image("L", (17, 11), seed=2)
    lazy = Image.from_pil(source).crop(box)
    assert _pipelines(lazy) == ["remap?PACKED=1"]
    assert_image_equal(evaluate(lazy), source.crop(box))


@pytest.mark.parametrize("size", [(1, 1), (5, 3), (17, 11)], ids=["1x1", "5x3", "17x11"])
@pytest.mark.parametrize(
    ("border", "fill"),
    [(1, 0), ((3, 1), 200), ((1, 2, 3, 4), 0x12345678), ((2, 0, 0, 5), "white")],
    ids=["uniform", "pair", "packed-int", "named-color"],
)
def test_packed_expand(
    size: tuple[int, int], border: int | tuple[int, ...], fill: int | str
) -> None:
    source = make_image("L", size, seed=5)
    lazy = ImageOps.expand(Image.from_pil(source), border, fill)
    assert _pipelines(lazy) == ["remap?PACKED=1"]
    assert_image_equal(evaluate(lazy), PILImageOps.expand(source, border, fill))


def test_a_chain_stays_packed_through_a_move() -> None:
    """A lookup, a rotation and a median: Pillow's bytes from the upload to the result."""
    source = make_image("L", (36, 20), seed=8)
    rotate = PILImage.Transpose.ROTATE_90
    lazy = ImageOps.invert(Image.from_pil(source)).transpose(rotate)
    lazy = lazy.filter(ImageFilter.MedianFilter(3))
    assert "unpack" not in " ".join(_pipelines(lazy))
    assert "pack_l" not in _pipelines(lazy)
    expected = PILImageOps.invert(source).transpose(rotate).filter(PILImageFilter.MedianFilter(3))
    assert_image_equal(evaluate(lazy), expected)
