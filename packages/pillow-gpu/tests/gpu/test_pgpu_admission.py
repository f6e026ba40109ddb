"""Every rejected context fails at admission with its kind, before decode or allocation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from pillow_gpu import Image, ImageChops, ImageEnhance, ImageFilter, ImageOps
from pillow_gpu._testing import make_image
from pillow_gpu.errors import DecodeError, GpuError, Limit, Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import DeviceLimits, SharedDevice


def _leaf(mode: str, size: tuple[int, int] = (8, 6)) -> Image.Image:
    return Image.new(mode, size)


def _edited(image: Image.Image, method: str, *args: Any) -> Image.Image:
    """``image`` after the in-place ``image.method(*args)`` (paste, putalpha), as in Pillow."""
    assert getattr(image, method)(*args) is None
    return image


REJECTED: dict[str, Callable[[], Any]] = {
    "mode-P": lambda: ImageChops.invert(_leaf("P")),
    "mode-PA": lambda: _leaf("PA").reduce(2),
    "mode-1": lambda: ImageChops.invert(_leaf("1")),
    # 16/32-bit images are admitted for copies and convert() only (gpu.lowering.wide)
    "mode-I": lambda: ImageChops.invert(_leaf("I")),
    "mode-F": lambda: _leaf("F").resize((4, 3), PILImage.Resampling.BILINEAR),
    "mode-I;16": lambda: ImageChops.invert(_leaf("I;16")),
    # YCbCr, La, RGBa, HSV, LAB: copies, convert() and what Pillow runs by band count or
    # byte by byte (gpu.lowering.limited); not putalpha, MKS2013 or ImageOps' own (Color and
    # Contrast of YCbCr and HSV are recorded as their steps, pillow_gpu.ImageEnhance)
    "mks2013-on-HSV": lambda: _leaf("HSV").resize((4, 4), PILImage.Resampling.MKS2013),
    "putalpha-on-La": lambda: _edited(_leaf("La"), "putalpha", 9),
    "convert-to-P-adaptive": lambda: _leaf("RGB").convert("P", palette=PILImage.Palette.ADAPTIVE),
    "convert-RGB-matrix-4": lambda: _leaf("RGB").convert("RGB", (1.0, 0.0, 0.0, 0.0)),
    # masked paste is proven for the 8-bit modes only (gpu.lowering.composite)
    "masked-paste-I;16": lambda: _edited(
        _leaf("I;16"), "paste", _leaf("I;16", (2, 2)), (1, 1), _leaf("L", (2, 2))
    ),
    "masked-fill-F": lambda: _edited(_leaf("F"), "paste", 1.5, (0, 0, 2, 2), _leaf("L", (2, 2))),
    "masked-paste-into-P": lambda: _edited(
        _leaf("P"), "paste", _leaf("P", (2, 2)), (1, 1), _leaf("L", (2, 2))
    ),
    "resize-mks2013": lambda: _leaf("RGB").resize((4, 4), PILImage.Resampling.MKS2013),
    # point with a mode: L, P and 1 to L or 1 only (gpu.lowering.pointwise)
    "point-with-mode-I": lambda: _leaf("L").point(list(range(256)), "I"),
    "chops-mode-mismatch": lambda: ImageChops.multiply(_leaf("RGBA"), _leaf("RGBX")),
    "color-CMYK": lambda: ImageEnhance.Color(_leaf("CMYK")).enhance(0.5),
    "rank-size-9": lambda: _leaf("L").filter(ImageFilter.MedianFilter(9)),
    "mode-filter-size-9": lambda: _leaf("L").filter(ImageFilter.ModeFilter(9)),
    "unsharp-percent-overflow": lambda: _leaf("RGB").filter(ImageFilter.UnsharpMask(2, 2**24)),
    "unsharp-radius-too-large": lambda: _leaf("L").filter(ImageFilter.UnsharpMask(400)),
    "blur-radius-too-large": lambda: _leaf("L").filter(ImageFilter.BoxBlur(300)),
    "putalpha-CMYK": lambda: _edited(_leaf("CMYK"), "putalpha", 128),
    "putalpha-mode-1-alpha": lambda: _edited(_leaf("RGB"), "putalpha", _leaf("1")),
    "mks2013-on-YCbCr": lambda: _leaf("YCbCr").resize((4, 4), PILImage.Resampling.MKS2013),
}


@pytest.mark.parametrize("name", list(REJECTED))
def test_rejected_context_raises_unsupported_before_allocation(
    name: str, device: SharedDevice
) -> None:
    graph = REJECTED[name]()
    created = device.buffers_created
    with pytest.raises(Unsupported) as caught:
        evaluate(graph)
    error = caught.value
    assert (error.kind, error.stage, error.job_id, error.input_key) == (
        "Unsupported",
        "admission",
        None,
        None,
    )
    assert "why:" in str(error)
    assert "observed" in str(error)
    assert "fix:" in str(error)
    assert isinstance(error, ValueError)
    assert device.buffers_created == created
    assert not graph.is_evaluated


def test_rejection_after_an_encoded_leaf_does_not_decode_it(
    tmp_path: Path, device: SharedDevice
) -> None:
    path = tmp_path / "source.png"
    make_image("RGB", (12, 9)).save(path)
    opened = Image.open(path)
    graph = opened.resize((3, 3), PILImage.Resampling.MKS2021)
    created = device.buffers_created
    with pytest.raises(Unsupported):
        evaluate(graph)
    assert opened.node.cache.get() is None  # a decode would have cached the pixels
    assert device.buffers_created == created


def test_a_source_that_fails_to_decode_raises_decode_error(tmp_path: Path) -> None:
    path = tmp_path / "truncated.png"
    make_image("RGB", (64, 64)).save(path)
    opened = Image.open(path)
    path.write_bytes(path.read_bytes()[:80])  # header still fine, pixels gone
    with pytest.raises(DecodeError) as caught:
        evaluate(ImageChops.invert(opened))
    assert (caught.value.kind, caught.value.stage) == ("Decode", "decode")
    assert isinstance(caught.value, OSError)


def test_a_file_removed_after_open_names_the_cause_and_load_reads_it_at_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "moved.png"
    make_image("RGB", (16, 8)).save(path)
    graph = ImageChops.invert(Image.open(path))
    kept = Image.open(path)
    kept.load()  # read now, as Pillow's load() reads it
    kept_graph = ImageChops.invert(kept)
    path.unlink()
    with pytest.raises(DecodeError) as caught:
        evaluate(graph)
    assert isinstance(caught.value, OSError)
    assert caught.value.why.startswith("the file was removed or renamed after Image.open()")
    assert "FileNotFoundError" in caught.value.observed
    assert "call load()" in caught.value.fix
    expected = PILImageChops.invert(make_image("RGB", (16, 8)))
    assert evaluate(kept_graph).tobytes() == expected.tobytes()


def test_palette_file_is_rejected_without_decoding(tmp_path: Path) -> None:
    path = tmp_path / "palette.png"
    make_image("RGB", (12, 9)).convert("P").save(path)
    opened = Image.open(path)
    with pytest.raises(Unsupported, match="'chops_invert' on a mode P image has no GPU route"):
        plan_graph(ImageChops.invert(opened))
    assert opened.node.cache.get() is None


def test_more_than_8192_squared_pixels_is_a_limit(device: SharedDevice) -> None:
    created = device.buffers_created
    with pytest.raises(Limit, match=r"pixel bound \(8192 x 8192\)") as caught:
        evaluate(ImageChops.invert(Image.new("L", (8193, 8192))))
    assert (caught.value.kind, caught.value.stage) == ("Limit", "admission")
    assert isinstance(caught.value, RuntimeError)
    assert device.buffers_created == created


def test_device_binding_limit_is_checked_at_planning() -> None:
    small = DeviceLimits(
        max_storage_buffer_binding_size=1024,
        max_buffer_size=1 << 30,
        max_compute_workgroups_per_dimension=65535,
        max_uniform_buffer_binding_size=65536,
    )
    with pytest.raises(Limit, match="buffer or workgroup limits"):
        plan_graph(ImageOps.invert(Image.new("L", (17, 16))), limits=small)
    plan_graph(ImageOps.invert(Image.new("L", (16, 16))), limits=small)


def test_workgroup_limit_is_checked_at_planning() -> None:
    few = DeviceLimits(
        max_storage_buffer_binding_size=1 << 30,
        max_buffer_size=1 << 30,
        max_compute_workgroups_per_dimension=4,
        max_uniform_buffer_binding_size=65536,
    )
    with pytest.raises(Limit):
        plan_graph(Image.new("RGB", (65, 1)), limits=few)


def test_error_can_be_bound_to_a_job() -> None:
    with pytest.raises(Unsupported) as caught:
        plan_graph(_leaf("RGBA").convert("P"))  # Pillow's quantize
    bound = caught.value.with_job(7, "key")
    assert isinstance(bound, Unsupported)
    assert isinstance(bound, GpuError)
    assert (bound.job_id, bound.input_key, bound.kind, bound.stage) == (
        7,
        "key",
        "Unsupported",
        "admission",
    )
    assert str(bound) == str(caught.value)
