"""GPU parity for ImageFilter.Kernel and the built-in kernel filters of the 16-bit modes.

Pillow filters an I;16, I;16L or I;16B image's 16-bit values in float32 (Filter.c's
``kernel_i16``): each product rounded, added row by row in its order, the sum clamped to
0..65535 and truncated, the border copied. The GPU route (``kernels.convolve16``) adds host
tables of every value's product with each distinct coefficient in that order. Cases cover every
built-in kernel filter, kernels with awkward coefficients, offsets and scales (a zero scale's
infinities and NaN, sums past both clamps), sizes from one pixel to larger than the kernel in
both directions, a stacked batch through the executor, a 16-bit file opened lazily, and
hypothesis kernels; the live-Pillow probe is shown to reject a fused multiply-add.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu.kernels import convolve16
from pillow_gpu.gpu.lowering import _platform

pytestmark = pytest.mark.usefixtures("device")

MODES = ("I;16", "I;16L", "I;16B")
SIZES = ((1, 1), (2, 3), (5, 4), (6, 6), (17, 9), (40, 31))
FILTERS: dict[str, PILImageFilter.Filter] = {
    "BLUR": PILImageFilter.BLUR,
    "CONTOUR": PILImageFilter.CONTOUR,
    "DETAIL": PILImageFilter.DETAIL,
    "EDGE_ENHANCE": PILImageFilter.EDGE_ENHANCE,
    "EDGE_ENHANCE_MORE": PILImageFilter.EDGE_ENHANCE_MORE,
    "EMBOSS": PILImageFilter.EMBOSS,
    "FIND_EDGES": PILImageFilter.FIND_EDGES,
    "SHARPEN": PILImageFilter.SHARPEN,
    "SMOOTH": PILImageFilter.SMOOTH,
    "SMOOTH_MORE": PILImageFilter.SMOOTH_MORE,
    "awkward-3x3": PILImageFilter.Kernel(
        (3, 3), [1.1, -2.3, 3.7, -4.9, 5.3, -6.1, 7.9, -8.7, 9.3], scale=0.37, offset=-1000.25
    ),
    "random-5x5": PILImageFilter.Kernel(
        (5, 5), [math.sin(2.3 * i) * 4 for i in range(25)], offset=77.7
    ),
    "zero-sum-scale": PILImageFilter.Kernel((3, 3), [1, 1, 1, 1, -8, 1, 1, 1, 1]),
    "past-65535": PILImageFilter.Kernel((3, 3), [1] * 9, scale=2, offset=30000),
    "all-negative": PILImageFilter.Kernel((5, 5), [-1] * 25, scale=1),
}


def _noise(mode: str, size: tuple[int, int], seed: int = 0) -> PILImage.Image:
    """16-bit noise, with a row of the extremes where there is room."""
    rng = np.random.default_rng(seed * 1000 + size[0] * 37 + size[1])
    values = rng.integers(0, 65536, (size[1], size[0]))
    values[0, : min(6, size[0])] = (0, 1, 255, 256, 65534, 65535)[: min(6, size[0])]
    order = ">u2" if mode == "I;16B" else "<u2"
    return PILImage.frombytes(mode, size, values.astype(order).tobytes())


@pytest.mark.parametrize("name", list(FILTERS))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", MODES)
def test_kernel_filters_match_pillow(mode: str, size: tuple[int, int], name: str) -> None:
    source = _noise(mode, size)
    expected = source.filter(FILTERS[name])
    assert_image_equal(evaluate(Image.from_pil(source).filter(FILTERS[name])), expected)


@pytest.mark.parametrize("mode", MODES)
def test_a_stacked_batch_matches_pillow(mode: str) -> None:
    """Same-shaped jobs share one dispatch, a lane each, and the table."""
    sources = [_noise(mode, (23, 14), seed) for seed in range(6)]
    jobs = [(i, Image.from_pil(s).filter(ImageFilter.SHARPEN)) for i, s in enumerate(sources)]
    with GpuBatchExecutor() as executor, executor.run(jobs) as results:
        found = {result.input_key: result.image for result in results}
    for i, source in enumerate(sources):
        assert_image_equal(found[i], source.filter(PILImageFilter.SHARPEN))


@pytest.mark.parametrize("suffix", [".png", ".tif"])
def test_a_16_bit_file_opened_lazily_matches_pillow(tmp_path: Path, suffix: str) -> None:
    """A 16-bit scan as users have it: a file Pillow opens as I;16, smoothed then sharpened."""
    path = tmp_path / f"scan{suffix}"
    _noise("I;16", (64, 48), seed=3).save(path)
    with PILImage.open(path) as opened:
        assert opened.mode == "I;16"
        expected = opened.filter(PILImageFilter.SMOOTH_MORE).filter(PILImageFilter.SHARPEN)
    lazy = Image.open(path).filter(ImageFilter.SMOOTH_MORE).filter(ImageFilter.SHARPEN)
    assert_image_equal(evaluate(lazy), expected)


@settings(max_examples=40, deadline=None)
@given(
    mode=st.sampled_from(MODES),
    size=st.sampled_from([3, 5]),
    weights=st.lists(st.floats(-50, 50, allow_nan=False, width=32), min_size=25, max_size=25),
    scale=st.none() | st.floats(-8, 8, allow_nan=False, width=32),
    offset=st.floats(-70000, 70000, allow_nan=False, width=32),
    seed=st.integers(0, 1000),
)
def test_any_kernel_matches_pillow(
    mode: str, size: int, weights: list[float], scale: float | None, offset: float, seed: int
) -> None:
    kernel = PILImageFilter.Kernel((size, size), weights[: size * size], scale, offset)
    source = _noise(mode, (11, 8), seed)
    assert_image_equal(evaluate(Image.from_pil(source).filter(kernel)), source.filter(kernel))


def test_the_table_holds_each_distinct_coefficient_once() -> None:
    """BLUR's 25 taps have two coefficients (1/16 on the rim, 0 inside): two runs of 65536
    products, 0's first (its bits are the smaller)."""
    _, scale, _, weights = PILImageFilter.BLUR.filterargs
    table = convolve16.table_words(weights, scale)
    assert len(table) == 25 + 2 * convolve16.VALUES
    taps = table[:25].tolist()
    assert taps[12] == 25  # the centre: 0
    assert taps[0] == 25 + convolve16.VALUES  # a corner: 1/16
    assert not table[25 : 25 + convolve16.VALUES].any()
    rim = table[taps[0] : taps[0] + convolve16.VALUES].view(np.float32)
    expected = np.arange(convolve16.VALUES, dtype=np.float32) * (np.float32(1) / np.float32(16))
    assert np.array_equal(rim, expected)


def _fused(values: np.ndarray, **kernel: object) -> np.ndarray:
    """A replay that fuses each product into its row's sum (one rounding, as an FMA does)."""
    ksize = int(kernel["ksize"])  # type: ignore[call-overload]
    weights = np.asarray(kernel["kernel"], dtype=np.float32) / np.float32(kernel["scale"])
    height, width = values.shape
    out = values.astype(np.int64)
    m = ksize // 2
    start = np.float32(np.float32(kernel["offset"]) + np.float32(0.5))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for y in range(m, height - m):
            for x in range(m, width - m):
                total = start
                for ky in range(ksize):
                    row = np.float32(0)
                    for kx in range(ksize):
                        product = float(values[y + m - ky, x - m + kx]) * float(
                            weights[ky * ksize + kx]
                        )
                        row = np.float32(float(row) + product)
                    total = np.float32(total + row)
                out[y, x] = 65535 if total >= 65535 else int(total) if total > 0 else 0
    return out


def test_the_probe_of_live_pillow_rejects_a_fused_multiply_add(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _platform.convolves_16bit_values()
    monkeypatch.setattr(convolve16, "replay", _fused)
    assert not _platform.convolves_16bit_values.__wrapped__()


def test_a_pillow_that_convolves_otherwise_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from pillow_gpu.gpu.lowering import filters

    monkeypatch.setattr(filters, "convolves_16bit_values", lambda: False)
    lazy = Image.from_pil(_noise("I;16", (9, 7))).filter(ImageFilter.SHARPEN)
    with pytest.raises(Unsupported) as refused:
        plan_graph(lazy)
    assert "float32 replay" in refused.value.why
    assert "to_pil()" in refused.value.fix


@pytest.mark.parametrize(
    "kernel",
    [PILImageFilter.BLUR, PILImageFilter.Kernel((3, 3), [1] * 9)],
    ids=["BLUR", "kernel-3x3"],
)
def test_the_32_bit_modes_stay_refused(kernel: PILImageFilter.Filter) -> None:
    """I's products of any int32 cannot come from a table; Pillow refuses F."""
    lazy = Image.from_pil(PILImage.new("I", (8, 8), 70000)).filter(kernel)
    with pytest.raises(Unsupported):
        plan_graph(lazy)
