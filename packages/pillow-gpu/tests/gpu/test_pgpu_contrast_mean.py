"""Host proofs for the Contrast kernel: integer mean rounding and the degenerate word.

The ``contrast`` kernel rounds the device-side sum as ``q + (2r >= count)``; Pillow computes
``int(sum / count + 0.5)`` in double precision (``ImageStat.mean``). These tests check the two
agree (see the proof in ``pillow_gpu.gpu.kernels.contrast``) and that the kernel's degenerate
word is Pillow's ``Image.new("L", size, mean).convert(mode)`` with the source alpha put back.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageStat
from pillow_gpu._testing import MODES, make_image
from pillow_gpu.gpu._layout import to_words
from pillow_gpu.gpu._planner import MAX_PIXELS
from pillow_gpu.gpu.kernels.contrast import degenerate_word, mean_of_sum
from pillow_gpu.gpu.kernels.sum_l import MAX_SUM_PIXELS


def _pillow_mean(total: int, count: int) -> int:
    """ImageStat's mean (int / int true division) rounded as ImageEnhance.Contrast does."""
    return int(total / count + 0.5)


def test_the_two_word_sum_and_its_division_cover_the_pixel_bound() -> None:
    assert MAX_PIXELS <= MAX_SUM_PIXELS
    assert 255 * MAX_SUM_PIXELS < 2**64  # total[0] + total[1] * 2**32, no wrap of total[1]
    assert MAX_SUM_PIXELS < 2**31  # divide_small: count << 7 fits two words, 2r fits one


def _divide_small(hi: int, lo: int, count: int) -> tuple[int, int]:
    """contrast.wgsl's divide_small, step for step in u32 arithmetic."""
    q = 0
    for step in range(8):
        s = 7 - step
        d_lo = (count << s) & 0xFFFFFFFF
        d_hi = count >> (32 - s) if s > 0 else 0
        if hi > d_hi or (hi == d_hi and lo >= d_lo):
            hi = (hi - d_hi - (1 if lo < d_lo else 0)) & 0xFFFFFFFF
            lo = (lo - d_lo) & 0xFFFFFFFF
            q |= 1 << s
    return q, lo


@pytest.mark.parametrize("count", [1, 2, 255, 4096 * 4096, 6000 * 4000, MAX_SUM_PIXELS])
def test_restoring_division_is_divmod_for_every_reachable_sum(count: int) -> None:
    rng = np.random.default_rng(count)
    edges = [q * count + r for q in range(256) for r in (0, count // 2, count - 1)]
    for drawn in [*edges, *rng.integers(0, 255 * count + 1, 2000).tolist()]:
        total = min(int(drawn), 255 * count)
        assert _divide_small(total >> 32, total & 0xFFFFFFFF, count) == divmod(total, count)


def test_numpy_division_is_pythons_correctly_rounded_division() -> None:
    # The exhaustive test below uses float64 arrays; IEEE division of exact operands is
    # correctly rounded, as Python's int / int is. Spot-check that on random pairs.
    rng = np.random.default_rng(0)
    counts = rng.integers(1, MAX_SUM_PIXELS + 1, 2000)
    totals = (rng.random(2000) * 255 * counts).astype(np.int64)
    ours = np.floor(totals.astype(np.float64) / counts.astype(np.float64) + 0.5)
    pairs = zip(totals.tolist(), counts.tolist(), strict=True)
    assert ours.tolist() == [float(_pillow_mean(s, c)) for s, c in pairs]


def test_integer_rounding_equals_pillow_for_every_sum_of_small_counts() -> None:
    for count in range(1, 301):  # every reachable sum 0..255 * count
        totals = np.arange(255 * count + 1, dtype=np.int64)
        pillow = np.floor(totals.astype(np.float64) / count + 0.5).astype(np.int64)
        q, r = np.divmod(totals, count)
        ours = q + (2 * r >= count)
        bad = np.flatnonzero(pillow != ours)
        assert bad.size == 0, (count, totals[bad[:5]].tolist())


LARGE_COUNTS = [301, 640 * 480, 1_000_001, 4095 * 4096, MAX_SUM_PIXELS - 1, MAX_SUM_PIXELS]


@pytest.mark.parametrize("count", LARGE_COUNTS, ids=[f"count{c}" for c in LARGE_COUNTS])
def test_integer_rounding_equals_pillow_at_the_half_way_boundaries(count: int) -> None:
    # Only sums next to q + 1/2 (and the ends of each q) can round differently; check them
    # for every q, including the exact half q + 0.5 for even counts.
    half = count // 2
    for q in range(256):
        for r in {0, 1, half - 1, half, half + 1, (count + 1) // 2, count - 1}:
            total = q * count + r
            if 0 <= r < count and total <= 255 * count:
                assert mean_of_sum(total, count) == _pillow_mean(total, count), (total, count)


def test_the_boundary_cases_include_exact_halves_and_near_misses() -> None:
    # The cases that tell a wrong rule (floor, or 2r > count) from the right one.
    assert mean_of_sum(21, 2) == _pillow_mean(21, 2) == 11  # exactly 10.5 rounds up
    count = MAX_SUM_PIXELS
    assert mean_of_sum(10 * count + count // 2, count) == 11
    assert mean_of_sum(10 * count + count // 2 - 1, count) == 10


@pytest.mark.parametrize("mode", MODES)
def test_integer_rounding_equals_imagestat_on_images(mode: str) -> None:
    for seed in range(12):
        size = (1 + seed * 7 % 40, 1 + seed * 11 % 30)
        source = make_image(mode, size, seed=seed)
        if seed % 3 == 0:  # skewed histograms too, not only uniform noise
            source = source.point(lambda v, s=seed: v * v // (255 + s * 40))
        gray = source.convert("L")
        total = int(np.asarray(gray, dtype=np.int64).sum())
        expected = int(ImageStat.Stat(gray).mean[0] + 0.5)  # Pillow's own expression
        assert mean_of_sum(total, size[0] * size[1]) == expected, (mode, seed)


@pytest.mark.parametrize("mode", MODES)
def test_degenerate_word_is_pillows_for_every_mean(mode: str) -> None:
    source = make_image(mode, (16, 16), seed=4)
    source_words = to_words(source)
    for mean in range(256):
        degenerate = PILImage.new("L", source.size, mean).convert(mode)
        if "A" in mode:
            degenerate.putalpha(source.getchannel("A"))
        expected = to_words(degenerate)
        ours = [degenerate_word(mode, mean, int(word)) for word in source_words]
        assert ours == expected.tolist(), (mode, mean)


@pytest.mark.parametrize("mode", MODES)
def test_pillow_contrast_uses_the_modeled_degenerate(mode: str) -> None:
    # Guards the model against a Pillow change: its degenerate for an image of mean m.
    source = make_image(mode, (7, 5), seed=8)
    gray = source.convert("L")
    mean = mean_of_sum(int(np.asarray(gray, dtype=np.int64).sum()), 35)
    words = to_words(PILImageEnhance.Contrast(source).degenerate)
    assert words.tolist() == [degenerate_word(mode, mean, int(w)) for w in to_words(source)]
