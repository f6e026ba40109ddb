"""GPU parity for ImageOps.autocontrast: lo/hi and the table row are chosen on the device."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu.kernels.autocontrast_lut import (
    PAIR_COUNT,
    PAIR_TABLE,
    pair_bytes,
    pair_row,
    pair_table,
)

pytestmark = pytest.mark.usefixtures("device")

# (id, size, content): content is "narrow" (values in a small band), "constant",
# "two-values", "pair-0-25" (only 0 and 25: Pillow maps 25 to 254) or "random".
SOURCES = [
    ("1x1", (1, 1), "narrow"),
    ("3x2", (3, 2), "narrow"),
    ("19x17", (19, 17), "narrow"),
    ("65x33", (65, 33), "narrow"),
    ("19x17-constant", (19, 17), "constant"),
    ("19x17-two-values", (19, 17), "two-values"),
    ("65x33-pair-0-25", (65, 33), "pair-0-25"),
    ("65x33-random", (65, 33), "random"),
]
CUTOFFS = {"cut-0": 0, "cut-2": 2, "cut-1-10": (1, 10), "cut-49.5": 49.5}
IGNORES = {"ignore-none": None, "ignore-0": 0, "ignore-0-255": [0, 255]}


def autocontrast_source(mode: str, size: tuple[int, int], content: str) -> PILImage.Image:
    """A ``mode`` image of ``content``; RGB gets random padding bytes."""
    rng = np.random.default_rng(size[0] * 7 + size[1])
    shape = (size[1], size[0])
    bands = []
    for band in range(3 if mode == "RGB" else 1):
        if content == "narrow":
            plane = rng.integers(90 + band, 130 + 3 * band, shape)
            plane.flat[0] = 0  # an outlier ignore=0 removes
        elif content == "constant":
            plane = np.full(shape, 37 + 80 * band)
        elif content == "two-values":
            plane = np.where(rng.random(shape) < 0.3, 12 + band, 200 - band)
        elif content == "pair-0-25":
            plane = np.where(rng.random(shape) < 0.5, 0, 25)
        else:
            plane = rng.integers(0, 256, shape)
        bands.append(plane.astype(np.uint8))
    if mode == "L":
        return PILImage.fromarray(bands[0])
    bands.append(rng.integers(0, 256, shape, dtype=np.uint8))  # padding
    return PILImage.frombytes("RGB", size, np.stack(bands, axis=-1).tobytes(), "raw", "RGBX")


def _mask(size: tuple[int, int]) -> PILImage.Image:
    rng = np.random.default_rng(size[0])
    return PILImage.fromarray(np.where(rng.random((size[1], size[0])) < 0.6, 200, 0).astype("u1"))


def _check(source: PILImage.Image, mask: PILImage.Image | None, **options: Any) -> None:
    lazy_mask = None if mask is None else Image.from_pil(mask)
    got = evaluate(ImageOps.autocontrast(Image.from_pil(source), mask=lazy_mask, **options))
    assert_image_equal(got, PILImageOps.autocontrast(source, mask=mask, **options))


@pytest.mark.parametrize("ignore", list(IGNORES.values()), ids=list(IGNORES))
@pytest.mark.parametrize("cutoff", list(CUTOFFS.values()), ids=list(CUTOFFS))
@pytest.mark.parametrize(("size", "content"), [s[1:] for s in SOURCES], ids=[s[0] for s in SOURCES])
@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_autocontrast_matches_pillow(
    mode: str, size: tuple[int, int], content: str, cutoff: Any, ignore: Any
) -> None:
    source = autocontrast_source(mode, size, content)
    for mask in (None, _mask(size)):
        for preserve_tone in (False, True):
            _check(source, mask, cutoff=cutoff, ignore=ignore, preserve_tone=preserve_tone)


@pytest.mark.parametrize(
    "options",
    [{}, {"cutoff": 2, "ignore": 0}, {"cutoff": (1, 10), "preserve_tone": True}],
    ids=["plain", "cut-2-ignore-0", "cut-1-10-preserve-tone"],
)
@pytest.mark.parametrize("masked", [False, True], ids=["no-mask", "L-mask"])
def test_autocontrast_640x480(options: dict[str, Any], masked: bool) -> None:
    source = autocontrast_source("RGB", (640, 480), "narrow")
    _check(source, _mask((640, 480)) if masked else None, **options)


def _python_lut(lo: int, hi: int) -> list[int]:
    """Pillow 13.0.0's LUT for (lo, hi), in its own Python arithmetic."""
    scale = 255.0 / (hi - lo)
    offset = -lo * scale
    lut = []
    for ix in range(256):
        value = int(ix * scale + offset)
        lut.append(0 if value < 0 else min(value, 255))
    return lut


def test_pair_table_matches_pillow_arithmetic_for_every_pair_and_entry() -> None:
    table = pair_table()
    assert table.shape == (PAIR_COUNT, 256)
    for hi in range(1, 256):  # one block of rows per hi; the message names the first pair off
        rows = table[pair_row(0, hi) : pair_row(0, hi) + hi].tolist()
        expected = [_python_lut(lo, hi) for lo in range(hi)]
        if rows != expected:
            lo = next(lo for lo in range(hi) if rows[lo] != expected[lo])
            pytest.fail(f"pair ({lo}, {hi}): table {rows[lo]} != Pillow {expected[lo]}")


def test_pair_table_keeps_pillows_rounding_below_255() -> None:
    assert _python_lut(0, 25)[25] == 254  # 25 * (255 / 25) == 254.99999999999997
    assert pair_table()[pair_row(0, 25)][25] == 254
    assert len(pair_bytes()) == PAIR_COUNT * 256 == 8_355_840


def _table_probe(values: list[int]) -> tuple[PILImage.Image, PILImage.Image]:
    """An L image: every value once outside the mask (row 0), ``values`` inside it."""
    pixels = np.zeros((2, 256), dtype=np.uint8)
    mask = np.zeros((2, 256), dtype=np.uint8)
    pixels[0] = np.arange(256)
    pixels[1, : len(values)] = values
    mask[1, : len(values)] = 255
    return PILImage.fromarray(pixels), PILImage.fromarray(mask)


@pytest.mark.parametrize(("lo", "hi"), [(0, 25), (0, 255), (1, 2), (37, 200), (254, 255), (3, 251)])
def test_whole_device_row_matches_pillow_and_the_table(lo: int, hi: int) -> None:
    source, mask = _table_probe([lo, hi, lo])
    expected = PILImageOps.autocontrast(source, mask=mask)
    assert list(expected.tobytes()[:256]) == pair_table()[pair_row(lo, hi)].tolist()
    _check(source, mask)


@pytest.mark.parametrize(
    ("values", "options"),
    [
        ([5, 5, 5], {}),  # hi == lo: the identity
        ([], {}),  # an empty histogram: lo 255, hi 0, the identity
        ([0, 0, 9, 250, 255, 255], {"cutoff": 30, "ignore": [0, 255]}),
        ([1, 2, 3, 4, 5, 6], {"cutoff": 200}),  # cuts above n empty the histogram
        ([1, 2, 2, 3], {"cutoff": (25, 0)}),  # a cut equal to a bin's count empties it
        ([1, 2, 2, 3], {"cutoff": (24.5, 50)}),
        ([7, 9], {"ignore": -1}),  # a negative index, as Python's list
    ],
    ids=[
        "one-value",
        "empty",
        "ignore-ends-then-cut",
        "cut-everything",
        "cut-exact-bin",
        "cut-float-and-half",
        "ignore-negative-index",
    ],
)
def test_trimming_edge_cases_through_a_mask(values: list[int], options: dict[str, Any]) -> None:
    _check(*_table_probe(values), **options)


@pytest.mark.parametrize(
    "options",
    [{"cutoff": 0.1, "ignore": 0}, {"cutoff": -2}, {"cutoff": (2, 1e-30), "ignore": 0}],
    ids=["inexact-float-with-ignore", "negative", "tiny-float-with-ignore"],
)
def test_cutoffs_not_proven_exact_are_rejected_at_admission(options: dict[str, Any]) -> None:
    source = autocontrast_source("RGB", (19, 17), "narrow")
    lazy = ImageOps.autocontrast(Image.from_pil(source), **options)
    if options["cutoff"] == (2, 1e-30):  # 1e-30 = p / 2**k with a 53-bit p: rejected
        with pytest.raises(Unsupported, match="not exact in 32 bits"):
            plan_graph(lazy)
    else:
        with pytest.raises(Unsupported) as caught:
            plan_graph(lazy)
        assert caught.value.stage == "admission"
    assert_image_equal(lazy.to_pil(), PILImageOps.autocontrast(source, **options))


def test_an_inexact_cutoff_without_mask_or_ignore_is_exact_on_the_gpu() -> None:
    for cutoff in (0.1, 1e-30, 33.3):
        _check(autocontrast_source("L", (65, 33), "random"), None, cutoff=cutoff)


@pytest.mark.parametrize("mode", ["LA", "RGBA", "CMYK", "I", "F", "1"])
def test_modes_pillow_rejects_raise_pillows_error(mode: str) -> None:
    with pytest.raises(OSError, match=f"not supported for mode {mode}"):
        PILImageOps.autocontrast(PILImage.new(mode, (2, 2)))
    with pytest.raises(OSError, match=f"not supported for mode {mode}"):
        ImageOps.autocontrast(Image.new(mode, (2, 2)))


@pytest.mark.parametrize(
    ("options", "error"),
    [({"ignore": 256}, IndexError), ({"ignore": [1.5]}, TypeError), ({"cutoff": "x"}, TypeError)],
    ids=["ignore-out-of-range", "ignore-float", "cutoff-str"],
)
def test_bad_arguments_raise_pillows_error(options: dict[str, Any], error: type) -> None:
    with pytest.raises(error):
        PILImageOps.autocontrast(PILImage.new("L", (2, 2)), **options)
    with pytest.raises(error):
        ImageOps.autocontrast(Image.new("L", (2, 2)), **options)


def test_a_mode_1_mask_is_rejected_on_the_gpu_and_exact_on_the_cpu() -> None:
    source = autocontrast_source("RGB", (19, 17), "narrow")
    mask = _mask((19, 17)).convert("1")
    lazy = ImageOps.autocontrast(Image.from_pil(source), 2, mask=mask)
    with pytest.raises(Unsupported, match="on a mode 1 image has no GPU route"):
        plan_graph(lazy)
    assert_image_equal(lazy.to_pil(), PILImageOps.autocontrast(source, 2, mask=mask))


def test_the_pair_table_is_resident_once_per_device_outside_plan_reservations(
    device: SharedDevice,
) -> None:
    source = Image.from_pil(autocontrast_source("L", (19, 17), "narrow"))
    plan = plan_graph(ImageOps.autocontrast(source))
    plain = plan_graph(ImageOps.equalize(source))
    assert plan.gpu_bytes - plain.gpu_bytes < 4096  # the 8 MB table is not charged
    assert device.limits.max_storage_buffer_binding_size >= len(pair_bytes())
    evaluate(ImageOps.autocontrast(source, 2))
    first = device.resident(PAIR_TABLE, pair_bytes)
    evaluate(ImageOps.autocontrast(source, 3))
    assert device.resident(PAIR_TABLE, pair_bytes) is first
    assert device.resident_bytes >= len(pair_bytes())
