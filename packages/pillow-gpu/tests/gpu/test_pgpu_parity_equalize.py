"""GPU parity for ImageOps.equalize: histograms and the table are built on the device."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._graph import Node
from pillow_gpu._testing import SIZES, assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu.kernels.equalize_lut import equalize_table

pytestmark = pytest.mark.usefixtures("device")

EQ_MODES = ("L", "RGB")
KINDS = ("random", "constant", "two-values", "narrow-range")


def equalize_source(mode: str, size: tuple[int, int], kind: str, seed: int) -> PILImage.Image:
    """A ``mode`` image of ``kind`` content; RGB gets random padding bytes."""
    rng = np.random.default_rng(seed)
    shape = (size[1], size[0])
    bands = []
    for band in range(3 if mode == "RGB" else 1):
        if kind == "random":
            plane = rng.integers(0, 256, shape)
        elif kind == "constant":
            plane = np.full(shape, 37 + 80 * band)
        elif kind == "two-values":
            plane = np.where(rng.random(shape) < 0.3, 12 + band, 200 - band)
        else:  # a low-contrast image: five adjacent values
            plane = rng.integers(100 + band, 105 + band, shape)
        bands.append(plane.astype(np.uint8))
    if mode == "L":
        return PILImage.fromarray(bands[0])
    bands.append(rng.integers(0, 256, shape, dtype=np.uint8))  # padding
    data = np.stack(bands, axis=-1).tobytes()
    return PILImage.frombytes("RGB", size, data, "raw", "RGBX")


def _gpu(source: PILImage.Image, mask: PILImage.Image | None = None) -> PILImage.Image:
    lazy_mask = None if mask is None else Image.from_pil(mask)
    return evaluate(ImageOps.equalize(Image.from_pil(source), lazy_mask))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", EQ_MODES)
def test_equalize(mode: str, size: tuple[int, int], kind: str) -> None:
    source = equalize_source(mode, size, kind, seed=size[0])
    assert_image_equal(_gpu(source), PILImageOps.equalize(source))


@pytest.mark.parametrize("mode", EQ_MODES)
def test_equalize_640x480(mode: str) -> None:
    source = make_image(mode, (640, 480), seed=7)
    assert_image_equal(_gpu(source), PILImageOps.equalize(source))


@pytest.mark.parametrize("kind", ["two-values", "narrow-range"])
def test_equalize_640x480_low_contrast(kind: str) -> None:
    source = equalize_source("RGB", (640, 480), kind, seed=8)
    assert_image_equal(_gpu(source), PILImageOps.equalize(source))


def _table_probe(histogram: list[int]) -> tuple[PILImage.Image, PILImage.Image]:
    """An L image holding every value once outside the mask, and ``histogram`` inside it.

    Its equalized first row is Pillow's whole (clipped) table for ``histogram``.
    """
    values = [v for v, count in enumerate(histogram) for _ in range(count)]
    width = 256
    height = 1 + -(-len(values) // width)
    pixels = np.zeros((height, width), dtype=np.uint8)
    mask = np.zeros((height, width), dtype=np.uint8)
    pixels[0] = np.arange(256)
    flat, flat_mask = pixels[1:].reshape(-1), mask[1:].reshape(-1)
    flat[: len(values)] = values
    flat_mask[: len(values)] = 255
    return PILImage.fromarray(pixels), PILImage.fromarray(mask)


HISTOGRAMS = {
    # step 1 and a large last bin: n // step passes 255 from the last bin on (clipped)
    "step-1-clipped": {0: 255, 10: 300},
    "step-0-identity": {3: 100, 200: 1},  # (101 - 1) // 255 == 0
    "step-0-just-below-1": {0: 254, 5: 1},  # (255 - 1) // 255 == 0: still the identity
    "step-1-just-reached": {0: 255, 5: 1},  # (256 - 1) // 255 == 1
    "one-bin-identity": {77: 999},
    "empty-identity": {},
    "step-2-odd-half": {5: 300, 6: 211, 250: 7},  # step 2, n starts at 1
    "step-exact-255": {0: 255, 1: 1},  # step 1, lut[1] == 255
    "many-bins": {v: (v * 7919) % 13 for v in range(0, 256, 3)},
}


@pytest.mark.parametrize("name", list(HISTOGRAMS))
def test_whole_table_matches_pillow_and_the_host_mirror(name: str) -> None:
    histogram = [HISTOGRAMS[name].get(v, 0) for v in range(256)]
    source, mask = _table_probe(histogram)
    expected = PILImageOps.equalize(source, mask)
    table = list(expected.tobytes()[:256])
    assert table == equalize_table(histogram)
    assert_image_equal(_gpu(source, mask), expected)


def test_clipping_is_observable_in_the_table() -> None:
    histogram = [HISTOGRAMS["step-1-clipped"].get(v, 0) for v in range(256)]
    table = equalize_table(histogram)
    assert table[1:11] == [255] * 10  # n // step == 255 exactly
    assert table[11:] == [255] * 245  # unclipped: (255 + 300) // 1 == 555


@pytest.mark.parametrize("mode", EQ_MODES)
@pytest.mark.parametrize("mask_kind", ["L-binary", "L-graded", "all-zero"])
def test_equalize_with_an_l_mask(mode: str, mask_kind: str) -> None:
    source = make_image(mode, (65, 33), seed=4)
    noise = np.asarray(make_image("L", (65, 33), seed=5))
    values = {"L-binary": (noise > 128) * 255, "L-graded": noise // 2, "all-zero": noise * 0}
    mask = PILImage.fromarray(values[mask_kind].astype(np.uint8))
    assert_image_equal(_gpu(source, mask), PILImageOps.equalize(source, mask))


def test_a_mode_1_mask_is_rejected_on_the_gpu_and_exact_on_the_cpu() -> None:
    source = make_image("RGB", (19, 17), seed=6)
    mask = make_image("L", (19, 17), seed=7).convert("1")
    lazy = ImageOps.equalize(Image.from_pil(source), mask)
    with pytest.raises(Unsupported, match="on a mode 1 image has no GPU route") as caught:
        plan_graph(lazy)
    assert caught.value.stage == "admission"
    assert_image_equal(lazy.to_pil(), PILImageOps.equalize(source, mask))
    converted = ImageOps.equalize(Image.from_pil(source), mask.convert("L"))  # 0 or 255
    assert_image_equal(evaluate(converted), PILImageOps.equalize(source, mask))


@pytest.mark.parametrize("mode", ["LA", "RGBA", "CMYK", "RGBX", "I", "F", "1"])
def test_modes_pillow_rejects_raise_pillows_error(mode: str) -> None:
    with pytest.raises(OSError, match=f"not supported for mode {mode}"):
        PILImageOps.equalize(PILImage.new(mode, (2, 2)))
    with pytest.raises(OSError, match=f"not supported for mode {mode}"):
        ImageOps.equalize(Image.new(mode, (2, 2)))


@pytest.mark.parametrize(
    ("mask", "error", "message"),
    [
        (PILImage.new("L", (3, 2)), ValueError, "images do not match"),
        (PILImage.new("RGB", (2, 2)), ValueError, "bad transparency mask"),
        (5, AttributeError, "has no attribute"),
    ],
    ids=["wrong-size", "rgb-mask", "not-an-image"],
)
def test_bad_masks_raise_pillows_error(mask: object, error: type, message: str) -> None:
    source = PILImage.new("RGB", (2, 2))
    with pytest.raises(error, match=message):
        PILImageOps.equalize(source, mask)  # type: ignore[arg-type]
    with pytest.raises(error, match=message):
        ImageOps.equalize(Image.from_pil(source), mask)  # type: ignore[arg-type]


def test_a_p_image_is_converted_to_rgb_first() -> None:
    source = make_image("RGB", (19, 17), seed=8).convert("P")
    lazy = ImageOps.equalize(Image.from_pil(source))
    assert lazy.mode == "RGB"
    assert lazy.node.inputs[0].op == "convert"
    assert_image_equal(lazy.to_pil(), PILImageOps.equalize(source))


def test_equalize_of_a_lazy_graph_and_chained_equalizes() -> None:
    source = make_image("RGB", (33, 20), seed=9)
    lazy = ImageOps.equalize(ImageOps.equalize(Image.from_pil(source).crop((2, 3, 30, 17))))
    expected = PILImageOps.equalize(PILImageOps.equalize(source.crop((2, 3, 30, 17))))
    assert_image_equal(evaluate(lazy), expected)


def test_a_reused_allocation_starts_its_histogram_from_zero(device: SharedDevice) -> None:
    # Same shape and constants: the second graph takes the first one's pooled buffers, whose
    # bins would otherwise start from the first histogram.
    first, second = (equalize_source("RGB", (23, 9), "random", seed) for seed in (11, 12))
    assert_image_equal(_gpu(first), PILImageOps.equalize(first))
    created = device.buffers_created
    assert_image_equal(_gpu(second), PILImageOps.equalize(second))
    assert device.buffers_created == created, "the second graph should reuse the pooled slot"


@pytest.mark.parametrize(
    ("mode", "bins"), [("L", 256), ("RGB", 768)], ids=["L-one-band", "RGB-three-bands"]
)
def test_plan_keeps_the_histogram_on_the_device(mode: str, bins: int) -> None:
    plan = plan_graph(ImageOps.equalize(Image.new(mode, (40, 30), 9)))
    shaders = [d.shader for d in plan.program.dispatches]
    assert shaders[:4] == ["fill", "histogram", "equalize_lut", "lut"]
    histogram, table, apply = plan.program.dispatches[1:4]
    assert plan.program.buffers[histogram.bindings[2]].nbytes == 4 * bins
    assert table.bindings[0] == histogram.bindings[2]
    assert apply.bindings[2] == table.bindings[1]  # the lut reads the device-built table


def test_recording_reads_no_pixels(tmp_path: Path, device: SharedDevice) -> None:
    path = tmp_path / "a.png"
    make_image("RGB", (9, 7)).save(path)
    opened = Image.open(path)
    created = device.buffers_created
    plan = plan_graph(ImageOps.equalize(opened))
    assert opened.node.cache.get() is None
    assert plan.sources == (opened.node,)
    assert device.buffers_created == created


def test_equalize_of_two_to_the_24_pixels_filled_on_the_device() -> None:
    # 4096 x 4096 = 2**24 pixels in two bins, filled on the device (no upload): bin counts
    # of 2**23, step = 2**23 // 255 and n = step // 2 + 2**23 (test_pgpu_parity_large.py
    # counts 2**25 pixels, uploaded).
    size, half = (4096, 4096), (4096, 2048)
    lazy = Image.new("RGB", size, (255, 0, 7))
    lazy.paste((254, 1, 9), (0, 0, *half))  # a colour fill: Image.new pasted, in place
    source = PILImage.new("RGB", size, (255, 0, 7))
    source.paste((254, 1, 9), (0, 0, *half))
    assert_image_equal(evaluate(ImageOps.equalize(lazy)), PILImageOps.equalize(source))


@pytest.mark.parametrize(
    ("mode", "mask_mode", "why"),
    [("LA", None, "proven only for modes L, RGB"), ("RGB", "RGB", "mask of mode RGB")],
    ids=["LA-node", "RGB-mask-node"],
)
def test_hand_built_nodes_pillow_would_refuse_are_rejected_at_admission(
    mode: str, mask_mode: str | None, why: str
) -> None:
    # The public API raises Pillow's error first; the planner still refuses such graphs.
    inputs = [Image.new(mode, (5, 4)).node]
    if mask_mode is not None:
        inputs.append(Image.new(mask_mode, (5, 4)).node)
    params = {"masked": mask_mode is not None}
    node = Node(op="equalize", params=params, inputs=tuple(inputs), mode=mode, size=(5, 4))
    with pytest.raises(Unsupported, match=why) as caught:
        plan_graph(node)
    assert caught.value.stage == "admission"
