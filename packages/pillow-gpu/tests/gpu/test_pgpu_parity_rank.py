"""GPU parity for every rank-filter method (min/max, 3x3 median and sorting network, radix
select) over window sizes, rank classes, modes, image sizes and tie-heavy images."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import Image, ImageChops
from pillow_gpu._testing import MODES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate
from pillow_gpu.gpu._planner import plan_graph

pytestmark = pytest.mark.usefixtures("device")

# 1x1 and 2x3 are smaller than every window; 19x17 and 33x7 have widths that are not
# multiples of the 4-pixel L packing or the 16-wide workgroup; 65x33 spans workgroups.
SIZES = ((1, 1), (2, 3), (19, 17), (33, 7), (65, 33))
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
# L rows whose width divides by four stay Pillow's packed bytes through the filter (packing 3):
# 4x5 is one word per row (both edges in one word), 8x3 two, 36x9 and 64x33 many.
PACKED_SIZES = ((4, 5), (8, 3), (36, 9), (64, 33))
PACKED_IDS = [f"{w}x{h}" for w, h in PACKED_SIZES]


def _filters() -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {"size1": (1, 0)}
    for size in (3, 5, 7):
        last = size * size - 1
        ranks = {"min": 0, "median": last // 2, "max": last, "low": 1, "high": last - 2}
        found.update({f"{name}{size}": (size, rank) for name, rank in ranks.items()})
    found["rank3-7"] = (3, 7)
    found["rank7-30"] = (7, 30)
    return found


FILTERS = _filters()


def _check(source: PILImage.Image, size: int, rank: int) -> None:
    pil_filter = PILImageFilter.RankFilter(size, rank)
    lazy = Image.from_pil(source).filter(pil_filter)
    assert_image_equal(evaluate(lazy), source.filter(pil_filter))


@pytest.mark.parametrize("shape", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", list(FILTERS))
@pytest.mark.parametrize("mode", MODES)
def test_rank_filter_on_noise(mode: str, name: str, shape: tuple[int, int]) -> None:
    _check(make_image(mode, shape, seed=3), *FILTERS[name])


@pytest.mark.parametrize("shape", PACKED_SIZES, ids=PACKED_IDS)
@pytest.mark.parametrize("name", list(FILTERS))
def test_rank_filter_on_packed_l(name: str, shape: tuple[int, int]) -> None:
    _check(make_image("L", shape, seed=5), *FILTERS[name])


@pytest.mark.parametrize(
    ("shape", "packed"), [((64, 9), True), ((63, 9), False)], ids=["width64", "width63"]
)
def test_packed_l_rank_filter_reads_and_writes_pillow_bytes(
    shape: tuple[int, int], packed: bool
) -> None:
    """An L median of an inversion on whole-word rows is one packing-3 dispatch: no widening
    of the upload and no packing of the result; other widths copy their rows into whole words
    and back around the same dispatch."""
    source = Image.from_pil(make_image("L", shape, seed=1))
    plan = plan_graph(ImageChops.invert(source).filter(PILImageFilter.MedianFilter(3)))
    program = plan.program
    pipelines = [dispatch.pipeline for dispatch in program.dispatches]
    if packed:
        assert pipelines == ["rank?INVERT=1&PACKING=3"]
        # the folded inversion's output is never made: not bound, not charged
        (pruned,) = [spec for spec in program.buffers if spec.role == "pruned"]
        assert all(pruned.index not in d.bindings for d in program.dispatches)
        charged = [spec for spec in program.buffers if spec.role not in ("pruned", "resident")]
        assert plan.gpu_bytes == sum(-(-s.nbytes // 256) * 256 for s in charged) + (
            plan.staging_nbytes
        )
    else:  # rows of whole words and back; the inversion still folds into the filter
        assert pipelines == ["pad_l?TO_FLAT=0", "rank?INVERT=1&PACKING=3", "pad_l?TO_FLAT=1"]


# The 3x3 median runs two columns of four rows per invocation for the word modes (two pixels;
# LA among them, its bytes 1 and 2 masked) and L (two groups of four pixels, packed or one word
# per pixel): one to five columns per row
# (a pair missing its second column at 1, 3 and 5) and every height remainder modulo four; L
# widths that do not divide by four (rows copied into whole words, kernels.pad_l) end anywhere
# in a group of eight.
MEDIAN_EDGE_CASES = [
    (mode, (columns * unit, height))
    for mode, unit in (("RGB", 1), ("RGBA", 1), ("LA", 1), ("L", 4))
    for columns in (1, 2, 3, 5)
    for height in (1, 2, 3, 4, 6, 7)
] + [
    ("L", (width, height))
    for width in (1, 2, 3, 5, 6, 7, 9, 10, 11, 15, 18)
    for height in (1, 4, 7)
]


@pytest.mark.parametrize("inverted", [False, True], ids=["plain", "inverted"])
@pytest.mark.parametrize(
    ("mode", "shape"),
    MEDIAN_EDGE_CASES,
    ids=[f"{mode}-{w}x{h}" for mode, (w, h) in MEDIAN_EDGE_CASES],
)
def test_median_invocation_edges(mode: str, shape: tuple[int, int], inverted: bool) -> None:
    source = make_image(mode, shape, seed=shape[0] * 16 + shape[1])
    median = PILImageFilter.MedianFilter(3)
    lazy = Image.from_pil(source)
    expected = PILImageChops.invert(source) if inverted else source
    if inverted:
        lazy = ImageChops.invert(lazy)
    assert_image_equal(evaluate(lazy.filter(median)), expected.filter(median))


def test_la_median_runs_as_a_word_mode() -> None:
    """LA's 3x3 median takes the word modes' two-pixel, four-row invocations (packing 0); its
    bytes 1 and 2 are written 0, as the two-pixel LA packing wrote them."""
    lazy = Image.from_pil(make_image("LA", (9, 6))).filter(PILImageFilter.MedianFilter(3))
    pipelines = [dispatch.pipeline for dispatch in plan_graph(lazy).program.dispatches]
    assert "rank?INVERT=0&PACKING=0" in pipelines


UNPACKED_L_WIDTHS = (1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 15, 18, 20)


@pytest.mark.parametrize("height", [1, 4, 7], ids=["h1", "h4", "h7"])
@pytest.mark.parametrize("width", UNPACKED_L_WIDTHS, ids=[f"w{w}" for w in UNPACKED_L_WIDTHS])
def test_unpacked_l_median_invocation_edges(width: int, height: int) -> None:
    """L made on the device one word per pixel (a nearest-neighbour resize, which writes one
    word per pixel) filters eight pixels of four rows per invocation (packing 2) at every width
    and height remainder."""
    source = make_image("L", (2 * width, height), seed=width * 8 + height)
    median = PILImageFilter.MedianFilter(3)
    nearest = PILImage.Resampling.NEAREST
    lazy = Image.from_pil(source).resize((width, height), nearest).filter(median)
    pipelines = [dispatch.pipeline for dispatch in plan_graph(lazy).program.dispatches]
    assert "rank?INVERT=0&PACKING=2" in pipelines
    assert_image_equal(evaluate(lazy), source.resize((width, height), nearest).filter(median))


def _ties(mode: str, shape: tuple[int, int]) -> PILImage.Image:
    # Three values only (0, 1, 255): every window holds long runs of equal samples.
    rng = np.random.default_rng(7)
    width, height = shape
    bands = 4 if mode == "RGB" else len(PILImage.new(mode, (1, 1)).getbands())
    data = rng.choice(np.array([0, 1, 255], dtype=np.uint8), width * height * bands)
    raw = "RGBX" if mode == "RGB" else mode
    return PILImage.frombytes(mode, shape, data.tobytes(), "raw", raw)


@pytest.mark.parametrize("name", list(FILTERS))
@pytest.mark.parametrize("mode", MODES)
def test_rank_filter_on_ties(mode: str, name: str) -> None:
    _check(_ties(mode, (23, 11)), *FILTERS[name])


@pytest.mark.parametrize("name", list(FILTERS))
def test_rank_filter_on_packed_l_ties(name: str) -> None:
    _check(_ties("L", (24, 11)), *FILTERS[name])


@pytest.mark.parametrize("name", ["size1", "min3", "median3", "low3", "median5", "max7"])
@pytest.mark.parametrize("mode", MODES)
def test_rank_filter_on_a_constant_image(mode: str, name: str) -> None:
    colour = {"L": 200, "LA": (9, 250)}.get(mode, (255, 0, 128, 7)[: len(mode)])
    _check(PILImage.new(mode, (21, 6), colour), *FILTERS[name])


@pytest.mark.parametrize("width", [5, 8], ids=["unpacked", "packed"])
def test_rank_filter_edges_replicate_like_pillow(width: int) -> None:
    # A single bright pixel in a corner: clamped edges make it 4 of the corner's 9 samples
    # for 3x3, so ranks 0-4 are 0 there and ranks 5-8 are 255, in Pillow as on the GPU.
    for corner in ((0, 0), (width - 1, 3)):
        source = PILImage.new("L", (width, 4), 0)
        source.putpixel(corner, 255)
        for rank in (4, 5, 8):
            expected = source.filter(PILImageFilter.RankFilter(3, rank))
            assert expected.getpixel(corner) == (255 if rank >= 5 else 0)
            _check(source, 3, rank)


@pytest.mark.parametrize("name", list(FILTERS))
@pytest.mark.parametrize("mode", MODES)
def test_rank_filter_after_an_inversion(mode: str, name: str) -> None:
    """The inversion is folded into the filter (rank n-1-k, result inverted): still exact."""
    size, rank = FILTERS[name]
    source = _ties(mode, (19, 17))
    pil_filter = PILImageFilter.RankFilter(size, rank)
    lazy = ImageChops.invert(Image.from_pil(source)).filter(pil_filter)
    assert_image_equal(evaluate(lazy), PILImageChops.invert(source).filter(pil_filter))


@pytest.mark.parametrize("name", list(FILTERS))
def test_packed_l_rank_filter_after_an_inversion(name: str) -> None:
    size, rank = FILTERS[name]
    source = _ties("L", (20, 17))
    pil_filter = PILImageFilter.RankFilter(size, rank)
    lazy = ImageChops.invert(Image.from_pil(source)).filter(pil_filter)
    assert_image_equal(evaluate(lazy), PILImageChops.invert(source).filter(pil_filter))


# -- I: int32 values (rank_int) ----------------------------------------------------------------
#: I contents: a few small values (many ties), any int32, and the extremes only (signed order:
#: -2**31 is the smallest, never an unsigned-looking 2**31).
I_CONTENTS = ("ties", "any", "extremes")


def _i_image(content: str, shape: tuple[int, int]) -> PILImage.Image:
    rng = np.random.default_rng(shape[0] * 31 + shape[1])
    rows = (shape[1], shape[0])
    if content == "ties":
        values = rng.integers(-3, 3, rows)
    elif content == "any":
        values = rng.integers(-(2**31), 2**31, rows)
    else:
        values = rng.choice([2**31 - 1, -(2**31), -1, 0, 1], rows)
    return PILImage.fromarray(values.astype(np.int32), "I")


@pytest.mark.parametrize("shape", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", list(FILTERS))
@pytest.mark.parametrize("content", I_CONTENTS)
def test_rank_filter_on_i(content: str, name: str, shape: tuple[int, int]) -> None:
    _check(_i_image(content, shape), *FILTERS[name])


def test_the_denoising_idiom_for_16_bit_scans() -> None:
    """Pillow refuses rank filters on I;16; users convert to I first, then back."""
    scan = PILImage.fromarray(np.arange(0, 65536, 97, dtype=np.uint16)[:600].reshape(20, 30))
    assert scan.mode == "I;16"
    expected = scan.convert("I").filter(PILImageFilter.MedianFilter(5)).convert("I;16")
    lazy = Image.from_pil(scan).convert("I").filter(PILImageFilter.MedianFilter(5))
    assert_image_equal(evaluate(lazy.convert("I;16")), expected)
