"""GPU parity for band operations: getbands, split, Image.merge and putalpha."""

from __future__ import annotations

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from pillow_gpu import Image, ImageChops
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate
from pillow_gpu.gpu.kernels.bands import PUTALPHA_MODES

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_split_and_getbands(mode: str, size: tuple[int, int]) -> None:
    source = make_image(mode, size)
    lazy = Image.from_pil(source)
    assert lazy.getbands() == source.getbands()
    ours, theirs = lazy.split(), source.split()
    assert len(ours) == len(theirs)
    for band, expected in zip(ours, theirs, strict=True):
        assert_image_equal(evaluate(band), expected)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_merge_of_l_sources(mode: str, size: tuple[int, int]) -> None:
    # Bands from separate seeds, so each output byte must come from its own source.
    count = len(PILImage.new(mode, (1, 1)).getbands())
    sources = [make_image("L", size, seed) for seed in range(count)]
    expected = PILImage.merge(mode, sources)
    assert_image_equal(evaluate(Image.merge(mode, [Image.from_pil(s) for s in sources])), expected)


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "CMYK", "RGBX", "LA"])
def test_merge_of_lazy_bands_reordered(mode: str) -> None:
    source = make_image(mode, (19, 17))
    lazy = Image.from_pil(source)
    reordered = Image.merge(mode, list(reversed(lazy.split())))
    assert_image_equal(evaluate(reordered), PILImage.merge(mode, list(reversed(source.split()))))


@pytest.mark.parametrize("mode", ["RGB", "LA"])
def test_merged_padding_bytes_downstream(mode: str) -> None:
    # Pillow writes 0 into the RGB padding byte and LA's bytes 1-2; ChopsInvert flips them,
    # and RGB padding is compared by assert_image_equal. LA goes on to RGBA (byte 0 only).
    sources = [make_image("L", (19, 17), seed) for seed in range(len(mode))]
    lazy = ImageChops.invert(Image.merge(mode, [Image.from_pil(s) for s in sources]))
    expected = PILImageChops.invert(PILImage.merge(mode, sources))
    if mode == "LA":
        lazy, expected = lazy.convert("RGBA"), expected.convert("RGBA")
    assert_image_equal(evaluate(lazy), expected)


ALPHAS = {"L-image": None, "int-0": 0, "int-128": 128, "int-300": 300, "int-minus-7": -7}


@pytest.mark.parametrize("alpha", list(ALPHAS), ids=list(ALPHAS))
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", list(PUTALPHA_MODES))
def test_putalpha(mode: str, size: tuple[int, int], alpha: str) -> None:
    source = make_image(mode, size)
    value = ALPHAS[alpha]
    alpha_image = make_image("L", size, seed=9)
    expected = source.copy()
    expected.putalpha(alpha_image if value is None else value)
    lazy = Image.from_pil(source)
    original = lazy.copy()
    assert lazy.putalpha(Image.from_pil(alpha_image) if value is None else value) is None
    assert (lazy.mode, original.mode) == (expected.mode, mode)  # in place; the copy keeps its
    assert_image_equal(evaluate(lazy), expected)
    assert_image_equal(evaluate(original), source)
