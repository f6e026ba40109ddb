"""GPU parity for ImageFilter.Kernel and the built-in kernels on L kept as Pillow's packed bytes.

The convolution filters four pixels per invocation (``kernels.convolve``, ``PACKED = 1``): taps
come from the word and its two neighbours, border columns keep their byte inside a word of
filtered pixels. Widths that divide by four use Pillow's rows as they are; other widths run on
rows of whole words (``kernels.pad_l``) whose padding lies past the real border columns. Widths
cover one word per row, rows whose first and last words hold border pixels of a 5x5 kernel,
every residue mod 4 and rows narrower than the kernel; heights cover images smaller than the
kernel and single rows.
"""

from __future__ import annotations

import pytest
from PIL import Image as PILImage
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import Image, ImageEnhance, ImageFilter
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

#: Widths that divide by four, then widths whose rows start inside a word.
WIDTHS = [4, 8, 12, 36, 64, 1, 2, 3, 5, 6, 7, 18, 35]
HEIGHTS = [1, 2, 3, 4, 5, 17]
KERNELS: dict[str, PILImageFilter.Filter] = {
    "signed3-offset": ImageFilter.Kernel((3, 3), [1, -2, 3, 0, 5, 1, -1, 2, 1], 3, 7),
    "asymmetric5": ImageFilter.Kernel((5, 5), [i % 7 - 2 for i in range(25)], 5, -3),
    "fractional3": ImageFilter.Kernel((3, 3), [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]),
    "SHARPEN": ImageFilter.SHARPEN(),
    "SMOOTH_MORE": ImageFilter.SMOOTH_MORE(),
    "EDGE_ENHANCE_MORE": ImageFilter.EDGE_ENHANCE_MORE(),
    "EMBOSS": ImageFilter.EMBOSS(),
    "FIND_EDGES": ImageFilter.FIND_EDGES(),
}


def _check(source: PILImage.Image, pil_filter: PILImageFilter.Filter) -> None:
    assert_image_equal(
        evaluate(Image.from_pil(source).filter(pil_filter)), source.filter(pil_filter)
    )


@pytest.mark.parametrize("height", HEIGHTS, ids=[f"h{h}" for h in HEIGHTS])
@pytest.mark.parametrize("width", WIDTHS, ids=[f"w{w}" for w in WIDTHS])
@pytest.mark.parametrize("name", list(KERNELS))
def test_packed_l_kernel_matches_pillow(name: str, width: int, height: int) -> None:
    _check(make_image("L", (width, height), seed=width * 31 + height), KERNELS[name])


@pytest.mark.parametrize("name", ["signed3-offset", "asymmetric5", "SHARPEN"])
def test_packed_l_kernel_of_extremes_matches_pillow(name: str) -> None:
    # 0/255 stripes: sums past both ends of the clip on every lane of a word.
    source = PILImage.new("L", (36, 17))
    source.putdata([255 * ((x // 3 + y) % 2) for y in range(17) for x in range(36)])
    _check(source, KERNELS[name])


def test_packed_l_large_kernel_matches_pillow() -> None:
    _check(make_image("L", (1024, 97), seed=9), ImageFilter.SMOOTH_MORE())


@pytest.mark.parametrize("name", ["signed3-offset", "asymmetric5"])
def test_packed_l_kernel_reads_and_writes_pillow_bytes(name: str) -> None:
    """One dispatch on the packed bytes: no unpack of the upload, no pack_l of the result."""
    plan = plan_graph(Image.from_pil(make_image("L", (36, 17))).filter(KERNELS[name]))
    assert [dispatch.pipeline for dispatch in plan.program.dispatches] == ["convolve?PACKED=1"]


@pytest.mark.parametrize("width", [5, 18, 35], ids=["w5", "w18", "w35"])
def test_l_kernel_of_other_widths_runs_on_whole_word_rows(width: int) -> None:
    """Pillow's bytes into whole-word rows, the packed convolution, and back: no unpack."""
    source = make_image("L", (width, 9))
    plan = plan_graph(Image.from_pil(source).filter(ImageFilter.SHARPEN()))
    pipelines = [dispatch.pipeline for dispatch in plan.program.dispatches]
    assert pipelines == ["pad_l?TO_FLAT=0", "convolve?PACKED=1", "pad_l?TO_FLAT=1"]
    _check(source, ImageFilter.SHARPEN())


@pytest.mark.parametrize("width", [36, 35], ids=["w36", "w35"])
@pytest.mark.parametrize("factor", [0.0, 0.5, 1.7, 3.0], ids=["f0", "f0.5", "f1.7", "f3"])
def test_packed_l_sharpness_matches_pillow(factor: float, width: int) -> None:
    source = make_image("L", (width, 17), seed=4)
    lazy = ImageEnhance.Sharpness(Image.from_pil(source)).enhance(factor)
    pipelines = [dispatch.pipeline for dispatch in plan_graph(lazy).program.dispatches]
    assert "convolve?PACKED=1" in pipelines
    assert_image_equal(evaluate(lazy), PILImageEnhance.Sharpness(source).enhance(factor))
