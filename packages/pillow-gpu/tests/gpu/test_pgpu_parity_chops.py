"""GPU parity for ImageChops binary operations and blend (exhaustive byte pairs)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from pillow_gpu import Image, ImageChops
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
SIMPLE = [
    "multiply",
    "screen",
    "overlay",
    "hard_light",
    "soft_light",
    "difference",
    "darker",
    "lighter",
    "add_modulo",
    "subtract_modulo",
]


def _all_pairs() -> tuple[PILImage.Image, PILImage.Image]:
    a = np.repeat(np.arange(256, dtype=np.uint8), 256).reshape(256, 256)
    b = np.tile(np.arange(256, dtype=np.uint8), 256).reshape(256, 256)
    return PILImage.fromarray(a), PILImage.fromarray(b)


@pytest.mark.parametrize("name", SIMPLE)
def test_every_byte_pair(name: str) -> None:
    a, b = _all_pairs()
    lazy = getattr(ImageChops, name)(Image.from_pil(a), Image.from_pil(b))
    assert_image_equal(evaluate(lazy), getattr(PILImageChops, name)(a, b))


@pytest.mark.parametrize(("scale", "offset"), [(1.0, 0), (2.0, 0), (0.7, -3), (1.3, 7), (3, 255)])
@pytest.mark.parametrize("name", ["add", "subtract"])
def test_scaled_every_byte_pair(name: str, scale: float, offset: int) -> None:
    a, b = _all_pairs()
    lazy = getattr(ImageChops, name)(Image.from_pil(a), Image.from_pil(b), scale, offset)
    assert_image_equal(evaluate(lazy), getattr(PILImageChops, name)(a, b, scale, offset))


@pytest.mark.parametrize("alpha", [0.0, 1.0, 0.6, 0.25, -0.5, 1.5, 0.999])
def test_blend_every_byte_pair(alpha: float) -> None:
    a, b = _all_pairs()
    lazy = ImageChops.blend(Image.from_pil(a), Image.from_pil(b), alpha)
    assert_image_equal(evaluate(lazy), PILImage.blend(a, b, alpha))


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", SIMPLE)
@pytest.mark.parametrize("mode", MODES)
def test_modes_and_overlap_sizes(mode: str, name: str, size: tuple[int, int]) -> None:
    a = make_image(mode, size, seed=1)
    b = make_image(mode, (size[1] + 2, max(1, size[0] - 1)), seed=2)  # different size
    lazy = getattr(ImageChops, name)(Image.from_pil(a), Image.from_pil(b))
    assert_image_equal(evaluate(lazy), getattr(PILImageChops, name)(a, b))


@pytest.mark.parametrize("alpha", [0.0, 0.6, 1.0, 2.0])
@pytest.mark.parametrize("mode", MODES)
def test_blend_modes(mode: str, alpha: float) -> None:
    a = make_image(mode, (19, 17), seed=1)
    b = make_image(mode, (19, 17), seed=2)
    lazy = ImageChops.blend(Image.from_pil(a), Image.from_pil(b), alpha)
    assert_image_equal(evaluate(lazy), PILImage.blend(a, b, alpha))


def test_same_source_on_both_sides_is_uploaded_once() -> None:
    source = make_image("RGBA", (19, 17))
    shared = Image.from_pil(source)
    lazy = ImageChops.multiply(shared, ImageChops.invert(shared))
    from pillow_gpu.gpu import plan_graph

    assert len(plan_graph(lazy).uploads) == 1
    assert_image_equal(evaluate(lazy), PILImageChops.multiply(source, PILImageChops.invert(source)))
