"""GPU parity for P and 1 images converted to native modes (palette and bilevel tables)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageOps
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


# Index copies before the convert: each step as Pillow records it on a P or 1 image.
INDEX_COPIES: dict[str, Callable[[Any], Any]] = {
    "transpose-rot90": lambda im: im.transpose(PILImage.Transpose.ROTATE_90),
    "transpose-transverse": lambda im: im.transpose(PILImage.Transpose.TRANSVERSE),
    "crop-inside": lambda im: im.crop((3, 2, 14, 9)),
    "crop-outside": lambda im: im.crop((-5, 4, 21, 30)),
    "crop-then-flip": lambda im: im.crop((1, 1, 12, 15)).transpose(
        PILImage.Transpose.FLIP_TOP_BOTTOM
    ),
}


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "LA"])
@pytest.mark.parametrize("steps", list(INDEX_COPIES))
@pytest.mark.parametrize("name", ["rgb256", "rgb256-trns-int", "rgba40-trns-bytes", "bilevel"])
def test_index_copies_then_convert(name: str, steps: str, mode: str) -> None:
    """transpose and crop move stored indices; the palette (and transparency) carry over."""
    if name == "bilevel":
        rng = np.random.default_rng(5)
        source = PILImage.fromarray(rng.integers(0, 2, (16, 16), dtype=np.uint8) * 255).convert("1")
    else:
        source = _source(name)
    step = INDEX_COPIES[steps]
    expected = _expected(step(source.copy()), mode)
    assert_image_equal(_gpu(step(Image.from_pil(source)).convert(mode)), expected)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("mode", ["P", "1"])
def test_exif_transpose_of_palette_and_bilevel_files(
    mode: str, orientation: int, tmp_path: Path
) -> None:
    """A P or 1 PNG with an EXIF orientation: exif_transpose -> convert("RGB") runs exactly."""
    rng = np.random.default_rng(orientation)
    if mode == "P":
        source = _palette_image(256, seed=orientation).resize((13, 7))
    else:
        source = PILImage.fromarray(rng.integers(0, 2, (7, 13), dtype=np.uint8) * 255)
        source = source.convert("1")
    exif = PILImage.Exif()
    exif[0x0112] = orientation
    path = tmp_path / f"oriented-{mode}.png"
    source.save(path, exif=exif.tobytes())
    with PILImage.open(path) as opened:
        expected = _expected(PILImageOps.exif_transpose(opened), "RGB")
    lazy = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
    assert_image_equal(_gpu(lazy), expected)


def _put(image: Image.Image, value: Any) -> Image.Image:
    image.putpixel((0, 0), value)
    return image


def _masked_paste(image: Image.Image) -> Image.Image:
    image.paste(image.copy(), (0, 0), Image.new("L", image.size, 128))
    return image


# name -> (graph, the words its error must contain); each is an operation Pillow runs
REJECTED: dict[str, tuple[Callable[[], Image.Image], str]] = {
    "chops-invert-of-P": (
        lambda: ImageChops.invert(Image.from_pil(_source("rgb256"))),
        "operation 'chops_invert' on a mode P image has no GPU route",
    ),
    "masked-paste-of-P": (
        lambda: _masked_paste(Image.from_pil(_source("rgb256"))),
        "operation 'paste_masked' on a mode P image has no GPU route",
    ),
    "point-to-F-of-P": (
        lambda: Image.from_pil(_source("rgb256")).point([v / 2 for v in range(256)], "F"),
        "operation 'point_mode' on a mode F image has no GPU route",
    ),
    "difference-of-P": (
        lambda: ImageChops.difference(
            Image.from_pil(_source("rgb256")), Image.from_pil(_source("rgb256"))
        ),
        "operation 'chop' on a mode P image has no GPU route",
    ),
    "mesh-of-P": (
        lambda: Image.from_pil(_source("rgb256")).transform(
            (4, 4), PILImage.Transform.MESH, [((0, 0, 4, 4), (0, 0, 0, 8, 8, 8, 8, 0))]
        ),
        "only for AFFINE, EXTENT, QUAD and PERSPECTIVE with NEAREST .pure copies., not MESH",
    ),
    # A palette with room for the colour: into a full one, whose pixels use every index,
    # Pillow's call itself raises ValueError (test_pgpu_palettes.py).
    "putpixel-colour-of-P": (
        lambda: _put(Image.from_pil(_source("rgb16-short")), (1, 2, 3)),
        "Pillow looks the colour up in the image's own palette",
    ),
    "expand-colour-of-P": (
        lambda: ImageOps.expand(Image.from_pil(_source("rgb16-short")), 1, fill="red"),
        "Pillow looks the colour up in the image's own palette",
    ),
    "convert-to-P-adaptive": (
        lambda: Image.new("RGB", (4, 4)).convert("P", palette=Image.Palette.ADAPTIVE),
        "quantizer",
    ),
}


@pytest.mark.parametrize("name", list(REJECTED))
def test_other_uses_are_unsupported(name: str) -> None:
    graph, words = REJECTED[name]
    with pytest.raises(Unsupported, match=words) as caught:
        plan_graph(graph())
    assert (caught.value.kind, caught.value.stage) == ("Unsupported", "admission")
    assert "fix: " in str(caught.value)


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
