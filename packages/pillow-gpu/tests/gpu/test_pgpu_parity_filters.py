"""GPU parity for BoxBlur, GaussianBlur, rank filters and ImageFilter.Kernel."""

from __future__ import annotations

import pytest
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import Image, ImageFilter
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
RADII = [0, 0.4, 1, 1.7, 2.5, (0, 2), (3.25, 0.5), 40]
RADIUS_IDS = [str(r) for r in RADII]


def _check(source_mode: str, size: tuple[int, int], pil_filter: PILImageFilter.Filter) -> None:
    source = make_image(source_mode, size)
    assert_image_equal(
        evaluate(Image.from_pil(source).filter(pil_filter)), source.filter(pil_filter)
    )


@pytest.mark.parametrize("radius", RADII, ids=RADIUS_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_box_blur_radii(mode: str, radius: float) -> None:
    _check(mode, (19, 17), ImageFilter.BoxBlur(radius))


@pytest.mark.parametrize("radius", RADII, ids=RADIUS_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_gaussian_blur_radii(mode: str, radius: float) -> None:
    _check(mode, (19, 17), ImageFilter.GaussianBlur(radius))


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_blurs_sizes(mode: str, size: tuple[int, int]) -> None:
    _check(mode, size, ImageFilter.BoxBlur(1))
    _check(mode, size, ImageFilter.GaussianBlur(2))


def test_gaussian_blur_large_rgba() -> None:
    _check("RGBA", (1024, 768), ImageFilter.GaussianBlur(3.25))


RANKS = {
    "median3": ImageFilter.MedianFilter(3),
    "min3": ImageFilter.MinFilter(3),
    "max3": ImageFilter.MaxFilter(3),
    "median5": ImageFilter.MedianFilter(5),
    "rank5-7": ImageFilter.RankFilter(5, 7),
    "rank7-48": ImageFilter.RankFilter(7, 48),
    "size1": ImageFilter.MedianFilter(1),
}


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", list(RANKS))
@pytest.mark.parametrize("mode", MODES)
def test_rank_filters(mode: str, name: str, size: tuple[int, int]) -> None:
    _check(mode, size, RANKS[name])


KERNELS: dict[str, PILImageFilter.Filter] = {
    "box3": ImageFilter.Kernel((3, 3), [1] * 9),
    "signed3-offset": ImageFilter.Kernel((3, 3), [1, -2, 3, 0, 5, 1, -1, 2, 1], 3, 7),
    "asymmetric5": ImageFilter.Kernel((5, 5), [i % 7 - 2 for i in range(25)], 5, -3),
    "zero-sum3": ImageFilter.Kernel((3, 3), [-1, -1, -1, -1, 8, -1, -1, -1, -1]),
    "fractional3": ImageFilter.Kernel((3, 3), [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]),
    "BLUR": ImageFilter.BLUR(),
    "SHARPEN": ImageFilter.SHARPEN(),
    "EMBOSS": ImageFilter.EMBOSS(),
}


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", list(KERNELS))
@pytest.mark.parametrize("mode", MODES)
def test_kernels(mode: str, name: str, size: tuple[int, int]) -> None:
    _check(mode, size, KERNELS[name])


def test_builtin_filter_classes_are_accepted_like_pillow() -> None:
    source = make_image("RGB", (19, 17))
    lazy = Image.from_pil(source).filter(ImageFilter.SMOOTH_MORE)
    assert_image_equal(evaluate(lazy), source.filter(PILImageFilter.SMOOTH_MORE))
