"""GPU parity for ImageEnhance.Contrast: the mean is summed and rounded on the device."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageStat
from pillow_gpu import Image, ImageEnhance
from pillow_gpu._graph import walk
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice

pytestmark = pytest.mark.usefixtures("device")

SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
FACTORS = [0.0, 0.5, 1.0, 1.7, -1.0, 3.0]
FACTOR_IDS = [f"f{f:g}" for f in FACTORS]


def _gpu_contrast(source: PILImage.Image, factor: float) -> PILImage.Image:
    return evaluate(ImageEnhance.Contrast(Image.from_pil(source)).enhance(factor))


def _pil_contrast(source: PILImage.Image, factor: float) -> PILImage.Image:
    return PILImageEnhance.Contrast(source).enhance(factor)


def _l_sum_count(source: PILImage.Image) -> tuple[int, int]:
    stat = ImageStat.Stat(source.convert("L"))
    return int(stat.sum[0]), int(stat.count[0])


def gray_source(mode: str, gray: PILImage.Image, seed: int = 0) -> PILImage.Image:
    """A ``mode`` image whose ``convert("L")`` is ``gray`` (random alpha/padding bytes)."""
    rng = np.random.default_rng(seed)
    g = np.asarray(gray, dtype=np.uint8)
    noise = rng.integers(0, 256, g.shape, dtype=np.uint8)
    planes = {
        "L": [g],
        "LA": [g, noise],
        "RGB": [g, g, g, noise],
        "RGBA": [g, g, g, noise],
        "RGBX": [g, g, g, noise],
        "CMYK": [np.zeros_like(g)] * 3 + [255 - g],
    }[mode]
    data = np.stack(planes, axis=-1).tobytes()
    if mode == "RGB":
        return PILImage.frombytes("RGB", gray.size, data, "raw", "RGBX")
    return PILImage.frombytes(mode, gray.size, data)


def half_mean_gray(size: tuple[int, int], seed: int) -> PILImage.Image:
    """A random L image whose mean is exactly q + 0.5 (the pixel count must be even)."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 256, size[0] * size[1], dtype=np.int64)
    count = values.size
    delta = count // 2 - int(values.sum()) % count  # sum % count must become count / 2
    for index in range(count):  # spread the correction over as many pixels as needed
        step = int(np.clip(values[index] + delta, 0, 255)) - int(values[index])
        values[index] += step
        delta -= step
        if delta == 0:
            break
    return PILImage.frombytes("L", size, values.astype(np.uint8).tobytes())


@pytest.mark.parametrize("factor", FACTORS, ids=FACTOR_IDS)
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_contrast(mode: str, size: tuple[int, int], factor: float) -> None:
    source = make_image(mode, size, seed=size[0])
    assert_image_equal(_gpu_contrast(source, factor), _pil_contrast(source, factor))


@pytest.mark.parametrize("factor", [0.0, 1.7], ids=["f0", "f1.7"])
@pytest.mark.parametrize("mode", MODES)
def test_contrast_640x480(mode: str, factor: float) -> None:
    source = make_image(mode, (640, 480), seed=7)
    assert_image_equal(_gpu_contrast(source, factor), _pil_contrast(source, factor))


@pytest.mark.parametrize("factor", FACTORS, ids=FACTOR_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_contrast_of_a_constant_image(mode: str, factor: float) -> None:
    source = gray_source(mode, PILImage.new("L", (19, 17), 201), seed=3)
    assert _l_sum_count(source) == (201 * 19 * 17, 19 * 17)
    assert_image_equal(_gpu_contrast(source, factor), _pil_contrast(source, factor))


HALF_SIZES = [(2, 1), (4, 3), (64, 33)]


@pytest.mark.parametrize("factor", FACTORS, ids=FACTOR_IDS)
@pytest.mark.parametrize("size", HALF_SIZES, ids=[f"{w}x{h}" for w, h in HALF_SIZES])
@pytest.mark.parametrize("mode", MODES)
def test_contrast_when_the_mean_is_exactly_half_way(
    mode: str, size: tuple[int, int], factor: float
) -> None:
    source = gray_source(mode, half_mean_gray(size, seed=size[1]), seed=1)
    total, count = _l_sum_count(source)
    assert 2 * (total % count) == count, "the source must have a mean of exactly q + 0.5"
    assert_image_equal(_gpu_contrast(source, factor), _pil_contrast(source, factor))


def test_contrast_of_two_to_the_24_pixels_with_a_half_way_mean() -> None:
    # 4096 x 4096, half 255 and half 254: sum = 254.5 * 2**24, just below 2**32 (the carry
    # word stays 0; test_pgpu_parity_large.py passes it), and the mean is exactly 254.5
    # (Pillow rounds it up to 255). Filled on the device: no upload.
    size, half = (4096, 4096), (4096, 2048)
    lazy = Image.new("L", size, 255)
    lazy.paste(254, (0, 0, *half))  # a colour fill: Image.new pasted, in place
    source = PILImage.new("L", size, 255)
    source.paste(254, (0, 0, *half))
    assert _l_sum_count(source) == (254 * 2**24 + 2**23, 2**24)
    expected = _pil_contrast(source, 3.0)
    assert_image_equal(evaluate(ImageEnhance.Contrast(lazy).enhance(3.0)), expected)


@pytest.mark.parametrize("mode", MODES)
def test_degenerate_is_pillows_degenerate(mode: str) -> None:
    source = make_image(mode, (19, 17), seed=5)
    lazy = ImageEnhance.Contrast(Image.from_pil(source)).degenerate
    assert_image_equal(evaluate(lazy), PILImageEnhance.Contrast(source).degenerate)


def test_contrast_of_a_lazy_graph_and_chained_contrasts() -> None:
    source = make_image("RGBA", (33, 20), seed=9)
    lazy = Image.from_pil(source).transpose(Image.ROTATE_90)
    lazy = ImageEnhance.Contrast(ImageEnhance.Contrast(lazy).enhance(2.2)).enhance(0.3)
    expected = source.transpose(PILImage.Transpose.ROTATE_90)
    expected = _pil_contrast(_pil_contrast(expected, 2.2), 0.3)
    assert_image_equal(evaluate(lazy), expected)


def test_a_reused_allocation_starts_its_sum_from_zero(device: SharedDevice) -> None:
    # The second graph has the same shape and constants, so it takes the first one's pooled
    # buffers; without the in-submission clear its sum would start from the first sum.
    first, second = (make_image("RGB", (23, 9), seed=seed) for seed in (11, 12))
    assert_image_equal(_gpu_contrast(first, 0.0), _pil_contrast(first, 0.0))
    created = device.buffers_created
    assert_image_equal(_gpu_contrast(second, 0.0), _pil_contrast(second, 0.0))
    assert device.buffers_created == created, "the second graph should reuse the pooled slot"


@pytest.mark.parametrize(
    ("mode", "shaders"),
    [("L", ["sum_l", "contrast", "pack_l"]), ("RGBA", ["convert", "sum_l", "contrast"])],
    ids=["L-no-convert", "RGBA-convert-to-L"],
)
def test_plan_keeps_the_statistic_on_the_device(mode: str, shaders: list[str]) -> None:
    plan = plan_graph(ImageEnhance.Contrast(Image.new(mode, (40, 30), 9)).enhance(0.5))
    assert [d.shader for d in plan.program.dispatches] == ["fill", *shaders]
    summed = plan.program.dispatches[1 if mode == "L" else 2]
    assert plan.program.buffers[summed.bindings[1]].nbytes == 8  # two u32 words: low, carries


def test_recording_reads_no_pixels(tmp_path: Path, device: SharedDevice) -> None:
    path = tmp_path / "a.png"
    make_image("RGB", (9, 7)).save(path)
    opened = Image.open(path)
    created = device.buffers_created
    plan = plan_graph(ImageEnhance.Contrast(opened).enhance(0.4))
    assert opened.node.cache.get() is None  # neither recording nor planning decoded it
    assert plan.sources == (opened.node,)
    assert device.buffers_created == created


@pytest.mark.parametrize("factor", [0.0, 0.5, 1.8])
@pytest.mark.parametrize("mode", ["YCbCr", "HSV"])
def test_ycbcr_and_hsv_run_as_pillows_steps(mode: str, factor: float) -> None:
    # Pillow blends with Image.new("L", size, mean).convert(mode); the fused kernel has no
    # route for these modes, so the steps are recorded: the mean of the L conversion (Contrast
    # of L at 0.0), converted to the mode, blended with the image.
    source = make_image("RGB", (23, 11), seed=4).convert(mode)
    lazy = ImageEnhance.Contrast(Image.from_pil(source)).enhance(factor)
    steps = [(node.op, node.mode) for node in walk(lazy.node)]
    recorded = [("pil", mode), ("convert", "L"), ("contrast", "L"), ("convert", mode)]
    assert steps == [*recorded, ("blend", mode)]
    expected = PILImageEnhance.Contrast(source).enhance(factor)
    result = evaluate(lazy)
    assert_image_equal(result, expected)
    assert (result.info, lazy.info) == (expected.info, expected.info)


def test_to_pil_matches_pillow() -> None:
    source = make_image("LA", (19, 17), seed=2)
    lazy = ImageEnhance.Contrast(Image.from_pil(source)).enhance(1.7)
    assert_image_equal(lazy.to_pil(), _pil_contrast(source, 1.7))
