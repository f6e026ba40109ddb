"""Parity past 4096 x 4096: camera-sized photos and sums that pass 2**32.

The planner's bound is 8192 x 8192 pixels (``gpu._planner.MAX_PIXELS``): a 24, 48 or 61 MP
photo is planned, where the adapter binds its buffers (lavapipe binds 128 MiB, 2**25 words, so
here the largest image of one word a pixel is 8192 x 4096). These tests run the operations a
photo pipeline uses on a 24 MP photo (6000 x 4000), and the size-dependent arithmetic (the
two-word sum of ``sum_l`` behind Contrast's mean, the histogram bins behind equalize and
autocontrast) at the largest image the device binds.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageEnhance, ImageFilter, ImageOps
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Limit, Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._planner import MAX_PIXELS

pytestmark = pytest.mark.usefixtures("device")

#: A 24 MP camera photo's size (6000 x 4000), past the 4096 x 4096 bound of earlier releases.
PHOTO = (6000, 4000)
#: The largest image of one word a pixel that a 128 MiB binding (lavapipe's) holds: 2**25.
WIDE = (8192, 4096)


@cache
def _photo() -> PILImage.Image:
    """A photo-like RGB image: smooth gradients in each band, every seventh row noise."""
    width, height = PHOTO
    ramp = np.add.outer(np.arange(height) % 256, np.arange(width) % 256).astype(np.uint8)
    pixels = np.stack([ramp, ramp[::-1], (ramp * 3) % 251], axis=-1)
    rng = np.random.default_rng(24)
    pixels[::7] = rng.integers(0, 256, size=pixels[::7].shape, dtype=np.uint8)
    return PILImage.fromarray(pixels, "RGB")


def _chain(pil: bool) -> tuple[Any, Any, Any]:
    if pil:
        return PILImageOps, PILImageFilter, PILImageEnhance
    return ImageOps, ImageFilter, ImageEnhance


#: Operations of photo pipelines, as (ops, filters, enhance, image) -> image.
OPERATIONS: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
    "invert": lambda ops, f, e, im: ops.invert(im),
    "convert-L": lambda ops, f, e, im: im.convert("L"),
    "grayscale": lambda ops, f, e, im: ops.grayscale(im),
    "rotate-90": lambda ops, f, e, im: im.transpose(PILImage.Transpose.ROTATE_90),
    "transverse": lambda ops, f, e, im: im.transpose(PILImage.Transpose.TRANSVERSE),
    "rotate-30": lambda ops, f, e, im: im.rotate(30),
    "resize-lanczos-down": lambda ops, f, e, im: im.resize((1500, 1000), PILImage.LANCZOS),
    "resize-bicubic-up": lambda ops, f, e, im: im.crop((0, 0, 3000, 2000)).resize(PHOTO, 3),
    "reduce-4": lambda ops, f, e, im: im.reduce(4),
    "gaussian-blur-2": lambda ops, f, e, im: im.filter(f.GaussianBlur(2)),
    "median-3": lambda ops, f, e, im: im.filter(f.MedianFilter(3)),
    "sharpen": lambda ops, f, e, im: im.filter(f.SHARPEN),
    "contrast-0.5": lambda ops, f, e, im: e.Contrast(im).enhance(0.5),
    "equalize": lambda ops, f, e, im: ops.equalize(im),
    "autocontrast-cutoff-2": lambda ops, f, e, im: ops.autocontrast(im, cutoff=2),
}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_photo_operations_equal_pillow(name: str) -> None:
    operation = OPERATIONS[name]
    expected = operation(*_chain(pil=True), _photo())
    assert_image_equal(evaluate(operation(*_chain(pil=False), Image.from_pil(_photo()))), expected)


def test_heavier_graphs_run_under_a_raised_work_bound(device: SharedDevice) -> None:
    # A bilinear rotation of 24 MP is past the default per-submission work bound (sized for
    # 2-core lavapipe under a GPU watchdog); the bound is the executor's to raise.
    lazy = Image.from_pil(_photo()).rotate(30, PILImage.Resampling.BILINEAR)
    with pytest.raises(Unsupported, match="shader work exceeds the per-submission bound"):
        evaluate(lazy)
    expected = _photo().rotate(30, PILImage.Resampling.BILINEAR)
    with GpuBatchExecutor(max_submission_work=4_000_000_000) as executor:
        (result,) = executor.run([(0, lazy)])
    assert_image_equal(result.image, expected)


def _two_values(low: int, high: int, size: tuple[int, int] = WIDE) -> PILImage.Image:
    """An L image whose first half of rows is ``low`` and the rest ``high``."""
    image = PILImage.new("L", size, high)
    image.paste(low, (0, 0, size[0], size[1] // 2))
    return image


#: L images of 2**25 pixels whose sums pass 2**32 (a one-word sum wraps and its mean with it):
#: all 255, an exact half-way mean (200.5 rounds up to 201), and just below and above a
#: half-way mean; Contrast at 0.5 writes the mean into every byte it blends.
SUMS = {
    "all-255": lambda: PILImage.new("L", WIDE, 255),
    "half-way": lambda: _two_values(200, 201),
    "below-half-way": lambda: _off_half(-1),
    "above-half-way": lambda: _off_half(1),
}


def _off_half(delta: int) -> PILImage.Image:
    """The half-way image with one pixel changed by ``delta``: a sum one below the half-way
    sum (its mean rounds down, to 200) or one above it (201)."""
    image = _two_values(200, 201)
    image.putpixel((0, WIDE[1] - 1), 201 + delta)
    return image


@pytest.mark.parametrize("name", list(SUMS))
def test_contrast_mean_of_sums_past_two_to_the_32(name: str) -> None:
    source = SUMS[name]()
    total = int(np.asarray(source, dtype=np.int64).sum())
    assert total >= 2**32  # the case the two-word sum exists for
    expected = PILImageEnhance.Contrast(source).enhance(0.5)
    lazy = ImageEnhance.Contrast(Image.from_pil(source)).enhance(0.5)
    assert_image_equal(evaluate(lazy), expected)


def test_contrast_of_a_photo_whose_sum_passes_two_to_the_32() -> None:
    # RGB -> L -> sum on the device; the photo's L sum is about 3e9, so brighten it first.
    source = PILImage.eval(_photo(), lambda v: 128 + v // 2)
    assert int(np.asarray(source.convert("L"), dtype=np.int64).sum()) >= 2**32
    expected = PILImageEnhance.Contrast(source).enhance(0.25)
    assert_image_equal(
        evaluate(ImageEnhance.Contrast(Image.from_pil(source)).enhance(0.25)), expected
    )


@pytest.mark.parametrize("operation", ["equalize", "autocontrast"])
def test_histograms_of_two_to_the_25_pixels(operation: str) -> None:
    # Two bins of 2**24 pixels each: bins, totals and equalize's n past the old bound.
    source = _two_values(3, 250)
    pil = getattr(PILImageOps, operation)
    ours = getattr(ImageOps, operation)
    assert_image_equal(evaluate(ours(Image.from_pil(source))), pil(source))


def test_the_pixel_bound_is_8192_squared() -> None:
    # Planned without a device's limits: the planner's own bound, one row either side.
    plan_graph(ImageChops.invert(Image.new("L", (8192, 8192))))
    with pytest.raises(Limit, match=r"per-graph pixel bound \(8192 x 8192\)") as caught:
        plan_graph(ImageChops.invert(Image.new("L", (8192, 8193))))
    assert caught.value.stage == "admission"
    assert MAX_PIXELS == 8192 * 8192


def test_an_image_past_the_device_binding_is_a_limit_before_any_buffer(
    device: SharedDevice,
) -> None:
    # The smallest RGB image past this adapter's binding, inside the planner's bound.
    binding = min(device.limits.max_storage_buffer_binding_size, device.limits.max_buffer_size)
    width = 8192
    height = binding // (4 * width) + 1
    if width * height > MAX_PIXELS:
        pytest.skip(f"this adapter binds {binding} bytes: every planned image fits")
    created = device.buffers_created
    with pytest.raises(Limit, match="buffer or workgroup limits"):
        evaluate(ImageChops.invert(Image.new("RGB", (width, height))))
    assert device.buffers_created == created


def test_a_24_megapixel_jpeg_through_the_executor(executor: GpuBatchExecutor) -> None:
    # The camera case: EXIF orientation 6, turned upright and resized, default credits.
    buffer = io.BytesIO()
    exif = PILImage.Exif()
    exif[0x0112] = 6
    _photo().save(buffer, "JPEG", quality=90, exif=exif)
    data = buffer.getvalue()

    def chain(ops: Any, image: Any) -> Any:
        return ops.exif_transpose(image).resize((1000, 1500), PILImage.Resampling.LANCZOS)

    with PILImage.open(io.BytesIO(data)) as opened:
        expected = chain(PILImageOps, opened)
    jobs = [(index, chain(ImageOps, Image.open(io.BytesIO(data)))) for index in range(2)]
    with executor.run(jobs) as results:
        for result in results:
            assert_image_equal(result.image, expected)
