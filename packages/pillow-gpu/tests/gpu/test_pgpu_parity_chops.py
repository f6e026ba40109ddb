"""GPU parity for ImageChops binary operations and blend (exhaustive byte pairs)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from pillow_gpu import Image, ImageChops
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph

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

    assert len(plan_graph(lazy).uploads) == 1
    assert_image_equal(evaluate(lazy), PILImageChops.multiply(source, PILImageChops.invert(source)))


OFFSETS = [(3, None), (-4, 2), (13, 9), (0, 0), (27, -30), (1, 8)]


@pytest.mark.parametrize("shift", OFFSETS, ids=[f"{x}_{y}" for x, y in OFFSETS])
@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "P", "1", "I;16", "F"])
def test_offset_wraps_as_pillow(mode: str, shift: tuple[int, int | None]) -> None:
    """ImageChops.offset: crops pasted over the image, on the GPU and on Pillow's route."""
    source = make_image("RGB", (13, 9))
    source = source.quantize(5) if mode == "P" else source.convert(mode)
    source.info["comment"] = b"kept"
    expected = PILImageChops.offset(source, *shift)
    for actual in (
        evaluate(ImageChops.offset(Image.from_pil(source), *shift)),
        ImageChops.offset(Image.from_pil(source), *shift).to_pil(),
    ):
        assert_image_equal(actual, expected)
        assert (actual.getpalette(), actual.info) == (expected.getpalette(), expected.info)


def test_constant_and_duplicate() -> None:
    source = make_image("RGB", (13, 9))
    assert_image_equal(
        evaluate(ImageChops.constant(Image.from_pil(source), 77)),
        PILImageChops.constant(source, 77),
    )
    assert_image_equal(
        evaluate(ImageChops.duplicate(Image.from_pil(source))), PILImageChops.duplicate(source)
    )


BILEVEL = ["logical_and", "logical_or", "logical_xor", *SIMPLE, "add", "subtract"]
BILEVEL_SIZES = [((17, 9), (17, 9)), ((20, 13), (15, 16)), ((64, 3), (64, 3)), ((1, 1), (5, 2))]


def _bilevel(size: tuple[int, int], stored: str, seed: int) -> PILImage.Image:
    """A 1 image as convert("1") gives it (0/255), or storing 0, 1 and 2 (a point table)."""
    gray = make_image("L", size, seed=seed)
    if stored == "0-255":
        return gray.convert("1", dither=PILImage.Dither.NONE)
    return gray.point(lambda v: v % 3, "1")


@pytest.mark.parametrize("stored", ["0-255", "0-1-2"])
@pytest.mark.parametrize(
    "sizes", BILEVEL_SIZES, ids=[f"{a[0]}x{a[1]}-{b[0]}x{b[1]}" for a, b in BILEVEL_SIZES]
)
@pytest.mark.parametrize("name", BILEVEL)
def test_chops_of_1_images_match_pillow(
    name: str, sizes: tuple[tuple[int, int], tuple[int, int]], stored: str
) -> None:
    """Pillow runs them on the stored bytes (logical ones: any non-zero byte is set), the
    result a 1 image storing what they give; the GPU as for L, on the byte in each word."""
    first, second = _bilevel(sizes[0], stored, 1), _bilevel(sizes[1], "0-255", 3)
    lazy = getattr(ImageChops, name)(Image.from_pil(first), Image.from_pil(second))
    assert_image_equal(evaluate(lazy), getattr(PILImageChops, name)(first, second))


def test_logical_chops_raise_pillow_s_mode_error() -> None:
    with pytest.raises(ValueError, match="image has wrong mode"):  # Pillow's mode check
        ImageChops.logical_and(Image.from_pil(make_image("L", (4, 4))), Image.new("L", (4, 4)))
