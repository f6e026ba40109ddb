"""GPU parity for ImageFilter.Kernel and the built-in kernel filters of I;16, I;16L, I;16B and I.

Pillow filters these images' values in float32 (Filter.c's ``kernel_i16`` and INT32 branch):
each value converted and each product rounded, added row by row in its order, the sum clamped
(to 0..65535, or by clip32: 0 below 0, 2^31 - 1 from 2^31) and truncated, the border copied.
The GPU routes add host tables of every 16-bit value's product with each distinct coefficient
(``kernels.convolve_wide``), or form each int32's product exactly in integer arithmetic (its
INT32 variant), in that order. Cases cover every built-in kernel filter, kernels
with awkward coefficients, offsets and scales (a zero scale's infinities and NaN on 16-bit,
sums past both clamps), int32 values that round when converted and the extremes, sizes from
one pixel to larger than the kernel in both directions, a stacked batch through the executor,
a 16-bit file opened lazily, and hypothesis kernels; the live-Pillow probes are shown to reject
a fused multiply-add, and I's coefficient bounds are refused with the reason.
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
from pillow_gpu.gpu.kernels import convolve_wide
from pillow_gpu.gpu.lowering import _platform

pytestmark = pytest.mark.usefixtures("device")

WIDE16 = ("I;16", "I;16L", "I;16B")
MODES = (*WIDE16, "I")
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


#: A row of each mode's extremes (I: values that round when converted to float32, too).
_EXTREMES = {
    "16": (0, 1, 255, 256, 65534, 65535),
    "I": (0, -1, 2**24 + 1, 2**24 + 3, -(2**31), 2**31 - 1, 2**31 - 65, 1),
}


def _noise(mode: str, size: tuple[int, int], seed: int = 0) -> PILImage.Image:
    """Noise over the mode's whole range (I: the odd rows small, so sums stay inside the
    clamps too), with a row of its extremes where there is room."""
    rng = np.random.default_rng(seed * 1000 + size[0] * 37 + size[1])
    if mode == "I":
        values = rng.integers(-(2**31), 2**31, (size[1], size[0]))
        values[1::2] = rng.integers(-3000, 70000, values[1::2].shape)
        extremes = _EXTREMES["I"]
    else:
        values = rng.integers(0, 65536, (size[1], size[0]))
        extremes = _EXTREMES["16"]
    values[0, : min(len(extremes), size[0])] = extremes[: min(len(extremes), size[0])]
    order = {"I;16B": ">u2", "I": "<i4"}.get(mode, "<u2")
    return PILImage.frombytes(mode, size, values.astype(order).tobytes())


#: (mode, filter) cases: I's route refuses a zero scale's infinite coefficients (see
#: test_i_coefficient_bounds_are_refused).
CASES = [(m, n) for m in MODES for n in FILTERS if not (m == "I" and n == "zero-sum-scale")]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize(("mode", "name"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_kernel_filters_match_pillow(mode: str, name: str, size: tuple[int, int]) -> None:
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
    lazy = Image.from_pil(source).filter(kernel)
    _, scale_used, _, _ = kernel.filterargs
    if mode == "I" and not convolve_wide.admits(weights[: size * size], scale_used, offset):
        with pytest.raises(Unsupported, match="2\\^-100"):
            plan_graph(lazy)
        return
    assert_image_equal(evaluate(lazy), source.filter(kernel))


def test_the_table_holds_each_distinct_coefficient_once() -> None:
    """BLUR's 25 taps have two coefficients (1/16 on the rim, 0 inside): two runs of 65536
    products, 0's first (its bits are the smaller)."""
    _, scale, _, weights = PILImageFilter.BLUR.filterargs
    table = convolve_wide.table_words(weights, scale)
    assert len(table) == 25 + 2 * convolve_wide.VALUES
    taps = table[:25].tolist()
    assert taps[12] == 25  # the centre: 0
    assert taps[0] == 25 + convolve_wide.VALUES  # a corner: 1/16
    assert not table[25 : 25 + convolve_wide.VALUES].any()
    rim = table[taps[0] : taps[0] + convolve_wide.VALUES].view(np.float32)
    expected = np.arange(convolve_wide.VALUES, dtype=np.float32) * (np.float32(1) / np.float32(16))
    assert np.array_equal(rim, expected)


def _fused(values: np.ndarray, high: int = 65535, **kernel: object) -> np.ndarray:
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
                        value = float(np.float32(values[y + m - ky, x - m + kx]))
                        product = value * float(weights[ky * ksize + kx])
                        row = np.float32(float(row) + product)
                    total = np.float32(total + row)
                saturated = total >= np.float32(high)
                out[y, x] = high if saturated else int(total) if total > 0 else 0
    return out


@pytest.mark.parametrize("probe", ["convolves_16bit_values", "convolves_int32_values"])
def test_the_probes_of_live_pillow_reject_a_fused_multiply_add(
    probe: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert getattr(_platform, probe)()
    monkeypatch.setattr(convolve_wide, "replay", _fused)
    assert not getattr(_platform, probe).__wrapped__()


@pytest.mark.parametrize(
    ("mode", "probe"), [("I;16", "convolves_16bit_values"), ("I", "convolves_int32_values")]
)
def test_a_pillow_that_convolves_otherwise_is_refused(
    mode: str, probe: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pillow_gpu.gpu.lowering import filters

    monkeypatch.setattr(filters, probe, lambda: False)
    lazy = Image.from_pil(_noise(mode, (9, 7))).filter(ImageFilter.SHARPEN)
    with pytest.raises(Unsupported) as refused:
        plan_graph(lazy)
    assert "float32 replay" in refused.value.why
    assert "to_pil()" in refused.value.fix


@pytest.mark.parametrize(
    ("weights", "scale", "offset"),
    [
        ([1, 1, 1, 1, -8, 1, 1, 1, 1], None, 0.0),  # a zero sum: infinities and NaN
        ([1e-35] * 9, 1, 0.0),  # below 2^-100
        ([2.0**95] + [0] * 8, 1, 0.0),  # from 2^90
        ([1] * 9, None, math.nan),
    ],
    ids=["zero-scale", "tiny", "huge", "nan-offset"],
)
def test_i_coefficient_bounds_are_refused(
    weights: list[float], scale: float | None, offset: float
) -> None:
    """Products outside float32's normal range, or a NaN sum, which clip32 casts per platform."""
    kernel = PILImageFilter.Kernel((3, 3), weights, scale, offset)
    lazy = Image.from_pil(_noise("I", (9, 7))).filter(kernel)
    with pytest.raises(Unsupported) as refused:
        plan_graph(lazy)
    assert "2^-100 .. 2^90" in refused.value.why
    assert "to_pil()" in refused.value.fix


def test_float_images_raise_as_pillow_raises() -> None:
    """Pillow has no kernel filter for F; the recording raises its ValueError."""
    source = PILImage.new("F", (8, 8), 1.5)
    with pytest.raises(ValueError, match="wrong mode"):
        source.filter(PILImageFilter.BLUR)
    with pytest.raises(ValueError, match="wrong mode"):
        Image.from_pil(source).filter(ImageFilter.BLUR)
