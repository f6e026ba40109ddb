"""GPU parity for BoxBlur, GaussianBlur and UnsharpMask on L kept as Pillow's packed bytes.

The blur runs four pixels to a word (``kernels.boxblur``, packed): the vertical passes on the
packed rows, the horizontal ones on rows regrouped four to a word (``kernels.interleave_l``).
Widths that divide by four use Pillow's rows as they are; other widths run on rows of whole
words (``kernels.pad_l``), every width residue mod 4 and rows shorter than a word included.
Heights cover every residue mod 4 (the last group's padding rows) and single rows; radii cover
the r = 0 copy, one axis zero, and windows wider than the image.
"""

from __future__ import annotations

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import Image, ImageChops, ImageFilter
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._work import INVOCATION_OVERHEAD
from pillow_gpu.gpu.kernels import interleave_l, pad_l

pytestmark = pytest.mark.usefixtures("device")

WIDTHS = [4, 8, 36, 64]
#: Widths whose rows start inside a word (every residue mod 4, and rows shorter than a word).
OTHER_WIDTHS = [1, 2, 3, 5, 7, 18, 35]
ALL_WIDTHS = WIDTHS + OTHER_WIDTHS
HEIGHTS = [1, 3, 4, 5, 17, 33]
RADII: list[float | tuple[float, float]] = [0, 0.5, 1, 2, 5.5, (0, 3), (3, 0), 100]
BLURS = {"box": ImageFilter.BoxBlur, "gaussian": ImageFilter.GaussianBlur}
UNSHARP = {  # (radius, percent, threshold)
    "default": (2, 150, 3),
    "r0": (0, 150, 3),
    "r0.5-strong": (0.5, 500, 0),
    "r5.5-negative": (5.5, -80, 0),
    "r100-threshold": (100, 250, 40),
}


def _radius_id(radius: float | tuple[float, float]) -> str:
    return f"r{radius[0]}x{radius[1]}" if isinstance(radius, tuple) else f"r{radius}"


def _check(source: PILImage.Image, pil_filter: PILImageFilter.Filter) -> None:
    assert_image_equal(
        evaluate(Image.from_pil(source).filter(pil_filter)), source.filter(pil_filter)
    )


@pytest.mark.parametrize("height", HEIGHTS, ids=[f"h{h}" for h in HEIGHTS])
@pytest.mark.parametrize("width", ALL_WIDTHS, ids=[f"w{w}" for w in ALL_WIDTHS])
@pytest.mark.parametrize("radius", RADII, ids=[_radius_id(r) for r in RADII])
@pytest.mark.parametrize("blur", list(BLURS))
def test_packed_l_blur_matches_pillow(
    blur: str, radius: float | tuple[float, float], width: int, height: int
) -> None:
    _check(make_image("L", (width, height), seed=width + height), BLURS[blur](radius))


@pytest.mark.parametrize("height", HEIGHTS, ids=[f"h{h}" for h in HEIGHTS])
@pytest.mark.parametrize("width", ALL_WIDTHS, ids=[f"w{w}" for w in ALL_WIDTHS])
@pytest.mark.parametrize("name", list(UNSHARP))
def test_packed_l_unsharp_mask_matches_pillow(name: str, width: int, height: int) -> None:
    _check(make_image("L", (width, height), seed=height), ImageFilter.UnsharpMask(*UNSHARP[name]))


def test_packed_l_blur_of_extremes_matches_pillow() -> None:
    # 0/255 stripes: the largest window sums and fixed-point products on every lane.
    source = PILImage.new("L", (36, 17))
    source.putdata([255 * ((x // 3 + y) % 2) for y in range(17) for x in range(36)])
    for pil_filter in (ImageFilter.BoxBlur(1.7), ImageFilter.GaussianBlur(3)):
        _check(source, pil_filter)


def test_packed_l_large_gaussian_blur_matches_pillow() -> None:
    _check(make_image("L", (1024, 97), seed=5), ImageFilter.GaussianBlur(2))


SHAPES = {
    "box-1": (
        ImageFilter.BoxBlur(1),
        ["interleave_l?TO_ROWS=0", "boxblur", "interleave_l?TO_ROWS=1", "boxblur"],
    ),
    "box-vertical-only": (ImageFilter.BoxBlur((0, 3)), ["boxblur"]),
    "box-horizontal-only": (
        ImageFilter.BoxBlur((3, 0)),
        ["interleave_l?TO_ROWS=0", "boxblur", "interleave_l?TO_ROWS=1"],
    ),
    "box-0-copy": (ImageFilter.BoxBlur(0), ["boxblur"]),
    "gaussian-2": (
        ImageFilter.GaussianBlur(2),
        ["interleave_l?TO_ROWS=0", *["boxblur"] * 3, "interleave_l?TO_ROWS=1", *["boxblur"] * 3],
    ),
    "unsharp-2": (
        ImageFilter.UnsharpMask(2, 150, 3),
        [
            "interleave_l?TO_ROWS=0",
            *["boxblur"] * 3,
            "interleave_l?TO_ROWS=1",
            *["boxblur"] * 3,
            "unsharp",
        ],
    ),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_packed_l_blur_reads_and_writes_pillow_bytes(name: str) -> None:
    """A blur of packed L on whole-word rows neither widens the upload nor packs the result."""
    pil_filter, pipelines = SHAPES[name]
    plan = plan_graph(Image.from_pil(make_image("L", (36, 17))).filter(pil_filter))
    assert [dispatch.pipeline for dispatch in plan.program.dispatches] == pipelines


@pytest.mark.parametrize("width", [5, 18, 35], ids=["w5", "w18", "w35"])
def test_l_blur_of_other_widths_runs_on_whole_word_rows(width: int) -> None:
    """Rows that start inside a word are copied into whole-word rows and back: no widening to
    one word per pixel."""
    source = make_image("L", (width, 9))
    plan = plan_graph(Image.from_pil(source).filter(ImageFilter.GaussianBlur(2)))
    pipelines = [dispatch.pipeline for dispatch in plan.program.dispatches]
    assert pipelines == ["pad_l?TO_FLAT=0", *SHAPES["gaussian-2"][1], "pad_l?TO_FLAT=1"]
    _check(source, ImageFilter.GaussianBlur(2))


def test_l_unsharp_mask_of_other_widths_runs_on_whole_word_rows() -> None:
    source = make_image("L", (35, 9))
    unsharp = ImageFilter.UnsharpMask(2, 150, 3)
    plan = plan_graph(Image.from_pil(source).filter(unsharp))
    pipelines = [dispatch.pipeline for dispatch in plan.program.dispatches]
    assert pipelines == ["pad_l?TO_FLAT=0", *SHAPES["unsharp-2"][1], "pad_l?TO_FLAT=1"]
    _check(source, unsharp)


@pytest.mark.parametrize("size", [(36, 17), (64, 4), (8, 1)], ids=["36x17", "64x4", "8x1"])
def test_packed_l_chain_invert_blur_point(size: tuple[int, int]) -> None:
    source = make_image("L", size, seed=2)
    blur = ImageFilter.GaussianBlur(1.5)
    lazy = ImageChops.invert(Image.from_pil(source)).filter(blur).point(lambda v: v // 3 + 40)
    plan = plan_graph(lazy)
    pipelines = [dispatch.pipeline for dispatch in plan.program.dispatches]
    assert pipelines == ["invert", *SHAPES["gaussian-2"][1], "lut"]  # no unpack, no pack_l
    expected = PILImageChops.invert(source).filter(blur).point(lambda v: v // 3 + 40)
    assert_image_equal(evaluate(lazy), expected)


INADMISSIBLE = {
    "box-radius": (ImageFilter.BoxBlur(300), "outside the proven 0..256 range"),
    "gaussian-radius": (ImageFilter.GaussianBlur((1, 600)), "outside the proven 0..256 range"),
    "unsharp-radius": (ImageFilter.UnsharpMask(400, 150, 3), "box radius"),
    "unsharp-percent": (ImageFilter.UnsharpMask(2, 2**23 + 1, 3), "percent"),
}


@pytest.mark.parametrize("name", list(INADMISSIBLE))
def test_packed_l_blur_admission_matches_the_one_word_path(name: str) -> None:
    """Packed L refuses the same radii and percents, with the same message, as RGB."""
    pil_filter, match = INADMISSIBLE[name]
    messages = []
    for mode in ("L", "RGB"):
        with pytest.raises(Unsupported, match=match) as error:
            plan_graph(Image.from_pil(make_image(mode, (8, 4))).filter(pil_filter))
        messages.append(str(error.value).replace(f"mode {mode} ", "mode MODE "))
    assert messages[0] == messages[1]


W, H = 40, 30  # 10 words a row, 8 row groups (the last has two padding rows)
TILES = (W // 4) * -(-H // 4)
WORK = {  # (invocations, inner-loop units) of every dispatch, as in test_pgpu_work
    "gaussian-2": (  # box radius 1.375: r = 1; segments are whole lines here
        ImageFilter.GaussianBlur(2),
        [
            (TILES, interleave_l.INVOCATION_WORK),
            *[(8, 3 + 3 + 5 * W)] * 3,  # 8 row groups of 40 samples
            (TILES, interleave_l.INVOCATION_WORK),
            *[(W // 4, 3 + 3 + 5 * H)] * 3,  # 10 word columns of 30 samples
        ],
    ),
    "box-16": (
        ImageFilter.BoxBlur(16),
        [
            (TILES, interleave_l.INVOCATION_WORK),
            (8, 33 + 3 + 5 * W),
            (TILES, interleave_l.INVOCATION_WORK),
            (W // 4, H + 3 + 5 * H),  # the window clamps to the 30-sample column
        ],
    ),
    "unsharp-2": (
        ImageFilter.UnsharpMask(2, 150, 3),
        [
            (TILES, interleave_l.INVOCATION_WORK),
            *[(8, 3 + 3 + 5 * W)] * 3,
            (TILES, interleave_l.INVOCATION_WORK),
            *[(W // 4, 3 + 3 + 5 * H)] * 3,
            (W // 4 * H, 4),  # the per-byte combine, one packed word per invocation
        ],
    ),
}


@pytest.mark.parametrize("name", list(WORK))
def test_packed_l_blur_work_counts_four_pixels_per_step(name: str) -> None:
    pil_filter, dispatches = WORK[name]
    plan = plan_graph(Image.from_pil(PILImage.new("L", (W, H))).filter(pil_filter))
    expected = [n * (INVOCATION_OVERHEAD + inner) for n, inner in dispatches]
    assert [dispatch.work for dispatch in plan.program.dispatches] == expected


def test_l_blur_of_other_widths_work_counts_the_row_copies() -> None:
    # 38 x 30: rows of 10 words (two padding bytes each); the image's bytes fill 285 words.
    width, pixel_words = W - 2, -(-(W - 2) * H // 4)
    plan = plan_graph(Image.from_pil(PILImage.new("L", (width, H))).filter(ImageFilter.BoxBlur(16)))
    dispatches = [
        (W // 4 * H, pad_l.INVOCATION_WORK),
        (TILES, interleave_l.INVOCATION_WORK),
        (8, 33 + 3 + 5 * width),  # 8 row groups of the 38 pixels (not the padded 40)
        (TILES, interleave_l.INVOCATION_WORK),
        (W // 4, H + 3 + 5 * H),
        (pixel_words, pad_l.INVOCATION_WORK),
    ]
    expected = [n * (INVOCATION_OVERHEAD + inner) for n, inner in dispatches]
    assert [dispatch.work for dispatch in plan.program.dispatches] == expected
