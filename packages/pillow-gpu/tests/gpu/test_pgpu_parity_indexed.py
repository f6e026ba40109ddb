"""GPU parity for P and 1 images converted to native modes (palette and bilevel tables)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice

TARGETS = ("RGB", "RGBA", "L", "LA", "RGBX", "CMYK")
_BYTES_WARNING = "Palette images with Transparency expressed in bytes"


def _palette_image(entries: int, rawmode: str = "RGB", seed: int = 0) -> PILImage.Image:
    """A 16 x 16 P image holding every index 0..255 once, with a random palette."""
    rng = np.random.default_rng(seed)
    image = PILImage.frombytes("P", (16, 16), rng.permutation(256).astype(np.uint8).tobytes())
    data = rng.integers(0, 256, entries * len(rawmode), dtype=np.uint8).tobytes()
    image.putpalette(data, rawmode)
    return image


# name -> (palette entries, palette rawmode, info["transparency"] or None)
PALETTES: dict[str, tuple[int, str, Any]] = {
    "rgb256": (256, "RGB", None),
    "rgb256-trns-int": (256, "RGB", 77),
    "rgb256-trns-bytes": (256, "RGB", bytes(range(0, 250, 7))),
    "rgb16-short": (16, "RGB", None),
    "rgb3-short-trns-int": (3, "RGB", 1),
    "rgba256": (256, "RGBA", None),
    "rgba40-trns-bytes": (40, "RGBA", bytes([9, 0, 255, 128])),
}


def _source(name: str) -> PILImage.Image:
    entries, rawmode, transparency = PALETTES[name]
    image = _palette_image(entries, rawmode, seed=len(name))
    if transparency is not None:
        image.info["transparency"] = transparency
    return image


def _expected(image: PILImage.Image, mode: str) -> PILImage.Image:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return image.copy().convert(mode)  # a copy: Pillow's convert edits the C palette


def _gpu(lazy: Image.Image) -> PILImage.Image:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(lazy)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("mode", TARGETS)
@pytest.mark.parametrize("name", list(PALETTES))
def test_pil_palette_image_every_index(name: str, mode: str) -> None:
    source = _source(name)
    assert_image_equal(_gpu(Image.from_pil(source).convert(mode)), _expected(source, mode))


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "LA"])
@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("rgb256", "PNG"),
        ("rgb256-trns-int", "PNG"),
        ("rgb256-trns-bytes", "PNG"),
        ("rgb16-short", "PNG"),
        ("rgb3-short-trns-int", "PNG"),
        ("rgb256", "GIF"),
        ("rgb256-trns-int", "GIF"),
        ("rgb16-short", "GIF"),
    ],
    ids=lambda value: str(value).lower(),
)
def test_opened_palette_file(tmp_path: Path, name: str, fmt: str, mode: str) -> None:
    source = _source(name)
    path = tmp_path / f"{name}.{fmt.lower()}"
    source.save(
        path,
        fmt,
        **(
            {}
            if "transparency" not in source.info
            else {"transparency": source.info["transparency"]}
        ),
    )
    with PILImage.open(path) as opened:
        assert opened.mode == "P"
        expected = _expected(opened, mode)
    lazy = Image.open(path)
    assert_image_equal(_gpu(lazy.convert(mode)), expected)
    assert lazy.node.cache.get() is None or lazy.node.cache.get().mode == "P"


@pytest.mark.usefixtures("device")
def test_opened_rgba_palette_png(tmp_path: Path) -> None:
    source = _source("rgba256")
    path = tmp_path / "rgba-palette.png"
    source.save(path)
    with PILImage.open(path) as opened:
        expected = {mode: _expected(opened, mode) for mode in ("RGB", "RGBA", "L", "LA")}
    for mode, image in expected.items():
        assert_image_equal(_gpu(Image.open(path).convert(mode)), image)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "LA"])
@pytest.mark.parametrize("color", [0, 200, (10, 20, 30)], ids=["index0", "index200", "rgb"])
def test_new_palette_image(color: Any, mode: str) -> None:
    expected = PILImage.new("P", (5, 3), color).convert(mode)
    assert_image_equal(_gpu(Image.new("P", (5, 3), color).convert(mode)), expected)


def _bilevel(seed: int = 3) -> PILImage.Image:
    rng = np.random.default_rng(seed)
    return PILImage.frombytes("1", (19, 17), rng.integers(0, 256, 3 * 17, dtype=np.uint8).tobytes())


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("mode", TARGETS)
@pytest.mark.parametrize("transparency", [None, 0, 255], ids=["opaque", "trns-0", "trns-255"])
def test_bilevel_image(mode: str, transparency: int | None) -> None:
    source = _bilevel()
    if transparency is not None:
        source.info["transparency"] = transparency
    assert_image_equal(_gpu(Image.from_pil(source).convert(mode)), _expected(source, mode))


@pytest.mark.usefixtures("device")
def test_bilevel_file_and_new(tmp_path: Path) -> None:
    path = tmp_path / "bilevel.png"
    _bilevel(seed=4).save(path)
    with PILImage.open(path) as opened:
        assert opened.mode == "1"
        expected = opened.convert("RGB")
    assert_image_equal(_gpu(Image.open(path).convert("RGB")), expected)
    assert_image_equal(
        _gpu(ImageOps.grayscale(Image.new("1", (4, 4), 1))), PILImage.new("L", (4, 4), 255)
    )


@pytest.mark.usefixtures("device")
def test_completed_palette_result_is_uploaded() -> None:
    source = _source("rgb3-short-trns-int")
    cropped = Image.from_pil(source).crop((2, 3, 14, 9))
    cropped.to_pil()  # completed on the CPU: the GPU uploads the cached P pixels
    expected = _expected(source.crop((2, 3, 14, 9)), "RGBA")
    assert_image_equal(_gpu(cropped.convert("RGBA")), expected)


def test_warning_is_pillows(device: SharedDevice) -> None:
    source = _source("rgb256-trns-bytes")
    with pytest.warns(UserWarning, match=_BYTES_WARNING):
        evaluate(Image.from_pil(source).convert("RGB"))


def test_table_is_charged_in_gpu_bytes() -> None:
    source = _source("rgb256")
    plan = plan_graph(Image.from_pil(source).convert("RGB"))
    assert plan.program.bytes_of("table") == 4 * 4 * 256
    image_bytes = 2 * (-(-16 * 16 * 4 // 256) * 256)
    assert plan.gpu_bytes >= image_bytes + 4 * 4 * 256 + plan.staging_nbytes


# name -> (graph, the words its error must contain)
REJECTED: dict[str, tuple[Callable[[], Image.Image], str]] = {
    "crop-of-P": (
        lambda: Image.from_pil(_source("rgb256")).crop((0, 0, 4, 4)).convert("RGB"),
        "operation 'crop' on a mode P image has no GPU route",
    ),
    "resize-of-1": (
        lambda: Image.new("1", (4, 4)).resize((2, 2)).convert("L"),
        "operation 'resize' on a mode 1 image has no GPU route",
    ),
    "invert-of-1": (
        lambda: ImageOps.invert(Image.new("1", (4, 4))),
        "operation 'invert' on a mode 1 image has no GPU route",
    ),
    "P-root": (lambda: Image.from_pil(_source("rgb256")), "a mode P image is not returned"),
    "convert-to-P": (lambda: Image.new("RGB", (4, 4)).convert("P"), "a mode P result"),
    "convert-P-to-I": (lambda: Image.new("P", (4, 4)).convert("I"), "mode I is not a native"),
}


@pytest.mark.parametrize("name", list(REJECTED))
def test_other_uses_are_unsupported(name: str) -> None:
    graph, words = REJECTED[name]
    with pytest.raises(Unsupported, match=words) as caught:
        plan_graph(graph())
    assert (caught.value.kind, caught.value.stage) == ("Unsupported", "admission")
    assert "fix: convert to" in str(caught.value)


@pytest.fixture
def executor(device: SharedDevice) -> Iterator[GpuBatchExecutor]:
    executor = GpuBatchExecutor()
    yield executor
    executor.close()
    assert executor.stats["gpu_bytes"] == 0


def test_batch_executor_runs_palette_files(tmp_path: Path, executor: GpuBatchExecutor) -> None:
    jobs = []
    expected = {}
    for name in ("rgb256-trns-int", "rgb16-short"):
        for fmt in ("png", "gif"):
            path = tmp_path / f"{name}.{fmt}"
            source = _source(name)
            source.save(path, transparency=source.info.get("transparency"))
            with PILImage.open(path) as opened:
                for mode in ("RGB", "RGBA", "L"):
                    expected[f"{name}-{fmt}-{mode}"] = _expected(opened, mode)
            jobs += [
                (f"{name}-{fmt}-{m}", Image.open(path).convert(m)) for m in ("RGB", "RGBA", "L")
            ]
    results = {result.input_key: result.image for result in executor.run(jobs)}
    assert set(results) == set(expected)
    for key, image in expected.items():
        assert_image_equal(results[key], image)
