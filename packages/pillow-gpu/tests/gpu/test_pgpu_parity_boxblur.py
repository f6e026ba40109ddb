"""GPU parity for the running-sum box blur (BoxBlur, GaussianBlur) against live Pillow.

Sizes cover a single pixel, lines shorter than the window, lines split into several segments
(300 and 7 samples, segments of 64 or the window), square and non-square images (the
horizontal passes of GaussianBlur go through a transposed intermediate). Contents are random
bytes and random 0/255 bytes (the largest window sums and fixed-point products).
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import Image, ImageFilter
from pillow_gpu._testing import MODES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu.kernels import boxblur

pytestmark = pytest.mark.usefixtures("device")

SIZES = [(1, 1), (2, 3), (19, 17), (300, 7), (7, 300), (64, 64)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
BOX_RADII: list[float | tuple[float, float]] = [
    0,
    0.5,
    1,
    1.7,
    3,
    20,
    40,
    255.5,
    256,
    (0, 3),
    (20, 0.5),
    (256, 1.7),
    (0.5, 255.5),
]
GAUSSIAN_RADII: list[float | tuple[float, float]] = [0.3, 1, 2, 5, 40, (2, 0), (0.3, 40)]
CONTENTS = ["noise", "extremes"]


def _radius_id(radius: float | tuple[float, float]) -> str:
    return f"r{radius[0]}x{radius[1]}" if isinstance(radius, tuple) else f"r{radius}"


def _source(content: str, mode: str, size: tuple[int, int]) -> PILImage.Image:
    if content == "noise":
        return make_image(mode, size)
    rng = np.random.default_rng(7)
    width, height = size
    if mode == "RGB":  # the padding byte too
        data = rng.choice(np.array([0, 255], dtype=np.uint8), width * height * 4).tobytes()
        return PILImage.frombytes("RGB", size, data, "raw", "RGBX")
    count = width * height * PILImage.getmodebands(mode)
    data = rng.choice(np.array([0, 255], dtype=np.uint8), count).tobytes()
    return PILImage.frombytes(mode, size, data)


def _check(source: PILImage.Image, pil_filter: PILImageFilter.Filter) -> None:
    assert_image_equal(
        evaluate(Image.from_pil(source).filter(pil_filter)), source.filter(pil_filter)
    )


@pytest.mark.parametrize("content", CONTENTS)
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("radius", BOX_RADII, ids=[_radius_id(r) for r in BOX_RADII])
@pytest.mark.parametrize("mode", MODES)
def test_box_blur_matches_pillow(
    mode: str, radius: float | tuple[float, float], size: tuple[int, int], content: str
) -> None:
    _check(_source(content, mode, size), ImageFilter.BoxBlur(radius))


@pytest.mark.parametrize("content", CONTENTS)
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("radius", GAUSSIAN_RADII, ids=[_radius_id(r) for r in GAUSSIAN_RADII])
@pytest.mark.parametrize("mode", MODES)
def test_gaussian_blur_matches_pillow(
    mode: str, radius: float | tuple[float, float], size: tuple[int, int], content: str
) -> None:
    _check(_source(content, mode, size), ImageFilter.GaussianBlur(radius))


def test_wide_blur_on_many_segments_matches_pillow() -> None:
    # 1000 samples per line: r = 1 runs 16 segments of 64, r = 100 five of 201.
    source = make_image("RGBA", (1000, 260), seed=3)
    _check(source, ImageFilter.BoxBlur(100))
    _check(source, ImageFilter.GaussianBlur(1.7))


def _f32_radii() -> np.ndarray:
    """Float32 radii in [0, 256]: around every integer and half, and random ones."""
    f32 = np.float32
    found = [np.arange(0, 257, dtype=f32), np.arange(0, 257, dtype=f32) + f32(0.5)]
    for r in range(257):
        above = np.nextafter(f32(r), f32(300))
        below = np.nextafter(f32(r + 1), f32(0))
        found += [np.full(1, above), np.full(1, below)]
    found.append(np.random.default_rng(0).uniform(0, 256, 100_000).astype(f32))
    radii = np.concatenate(found)
    return radii[radii <= f32(256)]


def test_weights_keep_the_shader_sums_within_u32() -> None:
    # The shader's overflow proof needs (2r + 1) * ww <= 2^24 and fw >= 0 (boxblur.weights).
    radii = _f32_radii()
    r = radii.astype(np.int64)
    ww = (np.float32(16777216.0) / (radii * np.float32(2) + np.float32(1))).astype(np.int64)
    assert [boxblur.weights(float(x))[1] for x in radii[::997]] == ww[::997].tolist()
    fw = (2**24 - (2 * r + 1) * ww) // 2
    assert ((2 * r + 1) * ww <= 2**24).all()
    assert (fw >= 0).all()
    bulk = (2 * r + 1) * 255 * ww + 510 * fw + 2**23  # the largest value a lane computes
    assert int(bulk.max()) < 2**32


@pytest.mark.parametrize(
    ("radius", "length", "segment"),
    [(0, 1, 1), (1, 300, 64), (20, 300, 64), (40, 300, 81), (255, 300, 300), (3, 7, 7)],
    ids=["r0-len1", "r1-len300", "r20-len300", "r40-len300", "r255-len300", "r3-len7"],
)
def test_segments_cover_the_window(radius: int, length: int, segment: int) -> None:
    assert boxblur.segment(radius, length) == segment
    first_window = min(2 * radius + 1, length)
    assert boxblur.invocation_work(radius, length) == first_window + 3 + 5 * segment


def test_blur_work_does_not_grow_with_the_radius() -> None:
    # O(1) per pixel: r = 20 costs the same per pass as r = 1 (one segment start each).
    def work(radius: float) -> int:
        lazy = Image.from_pil(make_image("RGBA", (640, 480))).filter(ImageFilter.BoxBlur(radius))
        return plan_graph(lazy).shader_work

    assert work(20) < 1.5 * work(1)
