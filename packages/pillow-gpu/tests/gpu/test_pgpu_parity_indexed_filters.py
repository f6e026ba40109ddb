"""GPU parity for ``Image.filter`` on bilevel (1) and palette (P) images.

Pillow's single-band filters run on the stored byte: a 1 image takes the kernel, rank and mode
filters (its 0/255 bytes, or any value a ``point`` table gave it; a kernel filter stores any
value back, which ``getpixel`` returns and ``tobytes`` packs as "not zero"), a P image takes
ModeFilter on its palette indices and keeps its palette; the other filters raise as Pillow
raises, at recording. Sources: random 0/255, a thresholded image storing 0 and 1, a P image
of a few indices with a palette and a transparency index, and a GIF file; sizes 1x1 to 65x33;
through ``evaluate`` and an executor batch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
#: The filters Pillow runs on a 1 image.
BILEVEL_FILTERS = {
    "BLUR": PILImageFilter.BLUR,
    "SHARPEN": PILImageFilter.SHARPEN,
    "FIND_EDGES": PILImageFilter.FIND_EDGES,
    "EMBOSS": PILImageFilter.EMBOSS,
    "kernel-3x3": PILImageFilter.Kernel((3, 3), [1, 2, 1, 2, 4, 2, 1, 2, 1]),
    "kernel-5x5-offset": PILImageFilter.Kernel((5, 5), list(range(-12, 13)), 9, 40),
    "median-3": PILImageFilter.MedianFilter(3),
    "min-3": PILImageFilter.MinFilter(3),
    "max-5": PILImageFilter.MaxFilter(5),
    "rank-5-3": PILImageFilter.RankFilter(5, 3),
    "mode-3": PILImageFilter.ModeFilter(3),
    "mode-5": PILImageFilter.ModeFilter(5),
}


def _bilevel(content: str, size: tuple[int, int]) -> PILImage.Image:
    gray = make_image("L", size, seed=size[0] + 3 * size[1])
    if content == "stored-one":  # the thresholding idiom stores 0 and 1
        return gray.point(lambda v: v > 100, "1")
    return gray.convert("1", dither=PILImage.Dither.NONE)


def _palette(size: tuple[int, int]) -> PILImage.Image:
    rng = np.random.default_rng(size[0] * 7 + size[1])
    image = PILImage.frombytes("P", size, rng.integers(0, 6, size[0] * size[1], dtype=np.uint8))
    image.putpalette([(13 * i) % 256 for i in range(768)])
    image.info["transparency"] = 2
    return image


def _same(source: PILImage.Image, pil_filter: PILImageFilter.Filter) -> None:
    expected = source.filter(pil_filter)
    got = evaluate(Image.from_pil(source).filter(pil_filter))
    assert_image_equal(got, expected)
    assert got.getpalette() == expected.getpalette()
    assert got.info == expected.info


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", list(BILEVEL_FILTERS))
@pytest.mark.parametrize("content", ["0-255", "stored-one"])
def test_bilevel_filters_match_pillow(content: str, name: str, size: tuple[int, int]) -> None:
    _same(_bilevel(content, size), BILEVEL_FILTERS[name])


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("filter_size", [2, 3, 5, 7])
def test_mode_filter_of_a_palette_image_keeps_its_palette(
    size: tuple[int, int], filter_size: int
) -> None:
    _same(_palette(size), PILImageFilter.ModeFilter(filter_size))


def test_mode_filter_of_a_gif_file(tmp_path: Path) -> None:
    path = tmp_path / "a.gif"
    _palette((31, 22)).save(path)
    with PILImage.open(path) as opened:
        expected = opened.filter(PILImageFilter.ModeFilter(3))
    got = evaluate(Image.open(path).filter(PILImageFilter.ModeFilter(3)))
    assert_image_equal(got, expected)
    assert (got.getpalette(), got.info) == (expected.getpalette(), expected.info)


#: Filters Pillow refuses for these modes, and its message.
REFUSED = {
    "1-gaussian": ("1", PILImageFilter.GaussianBlur(1), "image has wrong mode"),
    "1-box": ("1", PILImageFilter.BoxBlur(1), "image has wrong mode"),
    "1-unsharp": ("1", PILImageFilter.UnsharpMask(), "image has wrong mode"),
    "P-blur": ("P", PILImageFilter.BLUR, "cannot filter palette images"),
    "P-median": ("P", PILImageFilter.MedianFilter(3), "cannot filter palette images"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_filters_pillow_refuses_raise_its_error_when_recorded(case: str) -> None:
    mode, pil_filter, message = REFUSED[case]
    source = _palette((9, 7)) if mode == "P" else _bilevel("0-255", (9, 7))
    with pytest.raises(ValueError, match=message):
        source.filter(pil_filter)
    with pytest.raises(ValueError, match=message):
        Image.from_pil(source).filter(pil_filter)


def test_a_batch_of_bilevel_and_palette_filters_matches_pillow() -> None:
    sources = [_bilevel("stored-one", (23, 14)), _bilevel("0-255", (23, 14)), _palette((23, 14))]
    filters = [PILImageFilter.MedianFilter(3), PILImageFilter.BLUR, PILImageFilter.ModeFilter(3)]
    jobs = [
        (i, Image.from_pil(s).filter(f))
        for i, (s, f) in enumerate(zip(sources, filters, strict=True))
    ]
    with GpuBatchExecutor() as executor, executor.run(jobs) as results:
        found = {result.input_key: result.image for result in results}
    for i, (source, pil_filter) in enumerate(zip(sources, filters, strict=True)):
        assert_image_equal(found[i], source.filter(pil_filter))


#: Operations after the filter, reading the filtered words as P or 1 images.
FOLLOWING = {
    "convert-RGBA": lambda image: image.convert("RGBA"),
    "convert-L": lambda image: image.convert("L"),
    "rotate": lambda image: image.rotate(30, expand=True),
    "point": lambda image: image.point(lambda v: 255 - v),
    "resize": lambda image: image.resize((40, 9)),
}


@pytest.mark.parametrize("following", list(FOLLOWING))
@pytest.mark.parametrize("mode", ["1", "P"])
def test_operations_after_the_filter_match_pillow(mode: str, following: str) -> None:
    source = _palette((19, 17)) if mode == "P" else _bilevel("stored-one", (19, 17))
    pil_filter = PILImageFilter.ModeFilter(3) if mode == "P" else PILImageFilter.SHARPEN
    then = FOLLOWING[following]
    expected = then(source.filter(pil_filter))
    got = evaluate(then(Image.from_pil(source).filter(pil_filter)))
    assert_image_equal(got, expected)
    assert got.getpalette() == expected.getpalette()
