"""GPU parity for Image.reduce and resize(reducing_gap=...) (reduce kernel)."""

from __future__ import annotations

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu.kernels.reduce import SPLIT_BLOCK

pytestmark = pytest.mark.usefixtures("device")

R = PILImage.Resampling
_Factor = int | tuple[int, int] | list[int]
# Pillow's special-cased shapes (1xN, Nx1, 2x2 .. 5x5), the general case, and [1, 1] (a
# list skips Python's crop shortcut: LA/RGBA then round-trip through premultiplication)
FACTORS: dict[str, _Factor] = {
    "2": 2,
    "1x3": (1, 3),
    "4x1": (4, 1),
    "3x3": (3, 3),
    "4x4": 4,
    "5x5": (5, 5),
    "7x2": (7, 2),
    "list-1x1": [1, 1],
}


def _sub_box(w: int, h: int) -> tuple[int, int, int, int]:
    return (w // 5, h // 4, max(w // 5 + 1, w - w // 7), max(h // 4 + 1, h - 1))


@pytest.mark.parametrize("boxed", [False, True], ids=["whole", "sub-box"])
@pytest.mark.parametrize("factor", list(FACTORS.values()), ids=list(FACTORS))
@pytest.mark.parametrize("src", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", MODES)
def test_reduce_matches_pillow(
    mode: str, src: tuple[int, int], factor: _Factor, boxed: bool
) -> None:
    source = make_image(mode, src)
    box = _sub_box(*src) if boxed else None
    expected = source.reduce(factor, box)  # type: ignore[arg-type]
    assert_image_equal(evaluate(Image.from_pil(source).reduce(factor, box)), expected)  # type: ignore[arg-type]


@pytest.mark.parametrize("factor", [3, (2, 5)], ids=["3", "2x5"])
@pytest.mark.parametrize("mode", ["L", "RGBA"])
def test_reduce_640x480_matches_pillow(mode: str, factor: _Factor) -> None:
    source = make_image(mode, (640, 480))
    expected = source.reduce(factor)  # type: ignore[arg-type]
    assert_image_equal(evaluate(Image.from_pil(source).reduce(factor)), expected)  # type: ignore[arg-type]


GAPS = {
    "gap-1-bicubic": ((65, 33), (9, 7), R.BICUBIC, None, 1.0),
    "gap-2-lanczos-box": ((65, 33), (6, 5), R.LANCZOS, (3.3, 1.5, 60.2, 31.0), 2.0),
    "gap-3-bilinear-x-only": ((640, 48), (40, 40), R.BILINEAR, None, 3.0),
    "gap-too-large-no-reduce": ((19, 17), (7, 5), R.BOX, None, 8.0),
    "gap-hamming-640": ((640, 480), (101, 77), R.HAMMING, None, 1.5),
}


@pytest.mark.parametrize("case", list(GAPS.values()), ids=list(GAPS))
@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA"])
def test_resize_with_reducing_gap_matches_pillow(mode: str, case: tuple[object, ...]) -> None:
    src, size, method, box, gap = case
    source = make_image(mode, src)  # type: ignore[arg-type]
    expected = source.resize(size, method, box, gap)  # type: ignore[arg-type]
    lazy = Image.from_pil(source).resize(size, method, box, gap)  # type: ignore[arg-type]
    assert_image_equal(evaluate(lazy), expected)


# Blocks of more than SPLIT_BLOCK pixels are summed in two dispatches (row sums, then block
# sums): at, just past and far past the split, with partial edge blocks and a sub-box.
LARGE_BLOCKS = {
    "64x64-direct": ((600, 500), (64, 64), None),
    "64x65-split": ((600, 500), (64, 65), None),
    "256-split": ((600, 600), 256, None),
    "300x200-split-sub-box": ((700, 650), (300, 200), (13, 7, 690, 640)),
    "5000x1-split": ((10_000, 3), (5000, 1), None),
}


@pytest.mark.parametrize("case", list(LARGE_BLOCKS.values()), ids=list(LARGE_BLOCKS))
@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "LA"])
def test_large_blocks_match_pillow(
    mode: str, case: tuple[tuple[int, int], _Factor, tuple[int, int, int, int] | None]
) -> None:
    src, factor, box = case
    source = make_image(mode, src)
    lazy = Image.from_pil(source).reduce(factor, box)  # type: ignore[arg-type]
    fx, fy = (factor, factor) if isinstance(factor, int) else factor
    shaders = [dispatch.pipeline for dispatch in plan_graph(lazy).program.dispatches]
    split = fx * fy > SPLIT_BLOCK
    assert ("reduce?STAGE=1" in shaders, "reduce?STAGE=2" in shaders) == (split, split)
    assert_image_equal(evaluate(lazy), source.reduce(factor, box))  # type: ignore[arg-type]


def test_thumbnail_to_a_few_pixels_matches_pillow() -> None:
    source = make_image("RGB", (2048, 1536))
    expected = source.copy()
    expected.thumbnail((4, 4))  # reducing_gap 2.0: reduce by 256 x 256, then resize
    lazy = Image.from_pil(source)
    lazy.thumbnail((4, 4))
    assert_image_equal(evaluate(lazy), expected)
