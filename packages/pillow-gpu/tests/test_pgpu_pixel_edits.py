"""Pillow's calls that need the pixels at the call (putdata, frombytes, apply_transparency,
remap_palette, effect_spread): run with Pillow on the graph's current pixels, then lazily on."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")


def _photo(mode: str = "RGB") -> PILImage.Image:
    rng = np.random.default_rng(11)
    return PILImage.fromarray(rng.integers(0, 256, (10, 12, 3), dtype=np.uint8)).convert(mode)


@pytest.mark.parametrize(
    ("mode", "data", "scale", "offset"),
    [
        ("RGB", [(i % 256, (3 * i) % 256, 7) for i in range(120)], 1.0, 0.0),
        ("L", list(range(120)), 1.0, 0.0),
        ("L", list(range(120)), 2.0, 5.0),
        ("RGB", [(1, 2, 3)] * 30, 1.0, 0.0),  # shorter than the image: the rest kept
        ("I", [i * 1000 - 50000 for i in range(120)], 1.0, 0.0),
    ],
    ids=["rgb", "l", "l-scaled", "rgb-short", "i"],
)
def test_putdata_matches_pillow_and_the_gpu_goes_on(
    mode: str, data: list, scale: float, offset: float
) -> None:
    source = _photo(mode)
    expected = source.copy()
    expected.putdata(data, scale, offset)
    lazy = Image.from_pil(source).rotate(90, expand=True).rotate(-90, expand=True)
    assert lazy.putdata(data, scale, offset) is None
    assert_image_equal(lazy.to_pil(), expected)
    if mode != "I":  # then an operation on the GPU, from the new pixels
        assert_image_equal(evaluate(ImageOps.invert(lazy)), PILImageOps.invert(expected))


def test_frombytes_overwrites_in_place_and_errors_leave_the_image() -> None:
    data = bytes(range(256)) * 2
    expected = PILImage.new("L", (16, 8), 9)
    expected.frombytes(data[:128])
    lazy = Image.new("L", (16, 8), 9)
    lazy.frombytes(data[:128])
    assert_image_equal(evaluate(lazy), expected)
    kept = Image.new("L", (16, 8), 9)
    with pytest.raises(ValueError, match="not enough image data"):
        PILImage.new("L", (16, 8)).frombytes(data[:10])
    with pytest.raises(ValueError, match="not enough image data"):
        kept.frombytes(data[:10])
    assert_image_equal(evaluate(kept), PILImage.new("L", (16, 8), 9))


def test_apply_transparency_matches_pillow() -> None:
    source = _photo().convert("P")
    source.info["transparency"] = 3
    expected = source.copy()
    expected.apply_transparency()
    lazy = Image.from_pil(source)
    lazy.apply_transparency()
    got = lazy.to_pil()
    assert_image_equal(got, expected)
    assert got.getpalette("RGBA") == expected.getpalette("RGBA")
    assert got.info == expected.info == {}
    assert_image_equal(evaluate(lazy.convert("RGBA")), expected.convert("RGBA"))


@pytest.mark.parametrize("order", ["reversed", "rotated"])
def test_remap_palette_matches_pillow(order: str) -> None:
    source = _photo().convert("P")
    dest_map = list(range(255, -1, -1)) if order == "reversed" else [*range(7, 256), *range(7)]
    expected = source.remap_palette(dest_map)
    got = evaluate(Image.from_pil(source).remap_palette(dest_map))
    assert_image_equal(got, expected)
    assert got.getpalette() == expected.getpalette()


def test_remap_palette_raises_as_pillow() -> None:
    with pytest.raises(ValueError, match="illegal image mode"):
        _photo().remap_palette([0, 1])
    with pytest.raises(ValueError, match="illegal image mode"):
        Image.from_pil(_photo()).remap_palette([0, 1])


def test_remap_palette_checks_the_mode_before_loading_a_file(tmp_path: Path) -> None:
    """Pillow raises its mode error for an RGB file it could not load, not the load's error."""
    data = io.BytesIO()
    _photo().save(data, "PNG")
    path = tmp_path / "cut.png"
    path.write_bytes(data.getvalue()[:-40])
    for library in (PILImage, Image):
        with library.open(path) as opened, pytest.raises(ValueError, match="illegal image mode"):
            opened.remap_palette([0, 1])


def test_effect_spread_moves_pixels_as_pillow_does() -> None:
    """Random offsets: the same pixels, moved within the distance (no two runs agree)."""
    source = _photo("L")
    spread = evaluate(Image.from_pil(source).effect_spread(2))
    assert (spread.mode, spread.size) == (source.mode, source.size)
    assert set(spread.tobytes()) <= set(source.tobytes())
