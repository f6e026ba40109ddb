"""GPU parity of ``convert`` with ``info["transparency"]``: pixels, result info and saving."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageEnhance, ImageOps
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._layout import NATIVE_MODES
from pillow_gpu.gpu.kernels.convert import CONVERSIONS

_SIZE = (9, 5)

# source mode -> {transparency id: info["transparency"] or None}
_TRANSPARENCY: dict[str, dict[str, Any]] = {
    "L": {"none": None, "present": 7, "absent": 200},
    "RGB": {"none": None, "present": (1, 2, 3), "absent": (200, 0, 9)},
    "1": {"none": None, "present": 255, "present-0": 0},
    "P": {"none": None, "present": 3, "absent": 250, "bytes": bytes([0, 255, 128, 0, 9])},
}


def _targets(mode: str) -> list[str]:
    if mode in ("1", "P"):
        return list(NATIVE_MODES)
    return [target for source, target in CONVERSIONS if source == mode]


CASES = [
    pytest.param(mode, target, value, id=f"{mode}-{target}-{name}")
    for mode, values in _TRANSPARENCY.items()
    for target in _targets(mode)
    for name, value in values.items()
]


def _source(mode: str, transparency: Any) -> PILImage.Image:
    rng = np.random.default_rng(len(mode))
    width, height = _SIZE
    if mode == "RGB":  # few colours, so the transparent one occurs; pixel (0, 0) holds it
        image = PILImage.fromarray(rng.integers(1, 4, (height, width, 3), dtype=np.uint8))
        image.putpixel((0, 0), (1, 2, 3))
    elif mode == "1":  # both stored values (0 and 255) occur
        image = PILImage.fromarray(rng.integers(0, 2, (height, width), dtype=np.uint8) * 255)
        image = image.convert("1")
    else:
        image = PILImage.fromarray(rng.integers(0, 10, (height, width), dtype=np.uint8))
        if mode == "P":
            image = image.convert("P")
            image.putpalette(rng.integers(0, 256, 30, dtype=np.uint8).tobytes())
    if transparency is not None:
        image.info["transparency"] = transparency
    return image


def _quiet(call: Any, *args: Any) -> Any:
    with warnings.catch_warnings():  # bytes transparency: Pillow's own warning, tested elsewhere
        warnings.simplefilter("ignore")
        return call(*args)


def _saved(image: PILImage.Image, path: Path) -> bytes | type[Exception]:
    try:
        _quiet(image.save, path)
    except Exception as error:  # the same failure as Pillow's counts as parity
        return type(error)
    return path.read_bytes()


def _assert_parity(actual: PILImage.Image, expected: PILImage.Image, tmp_path: Path) -> None:
    assert_image_equal(actual, expected)
    assert actual.info == expected.info
    assert _saved(actual, tmp_path / "gpu.png") == _saved(expected, tmp_path / "pillow.png")


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize(("mode", "target", "transparency"), CASES)
def test_from_pil(mode: str, target: str, transparency: Any, tmp_path: Path) -> None:
    source = _source(mode, transparency)
    lazy = Image.from_pil(source).convert(target)
    expected = _quiet(source.copy().convert, target)  # a copy: P convert edits the C palette
    assert lazy.info == expected.info  # recorded without evaluating
    _assert_parity(_quiet(evaluate, lazy), expected, tmp_path)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize(("mode", "target", "transparency"), CASES)
def test_png_file(mode: str, target: str, transparency: Any, tmp_path: Path) -> None:
    path = tmp_path / "source.png"
    source = _source(mode, transparency)
    source.save(path, **({} if transparency is None else {"transparency": transparency}))
    with PILImage.open(path) as opened:
        expected = _quiet(opened.convert, target)
    _assert_parity(_quiet(evaluate, Image.open(path).convert(target)), expected, tmp_path)


# Operations recording a convert (or a blend with a converted degenerate image): Pillow's
# result info is the degenerate image's (Brightness, Contrast: none; Color: converted twice).
DERIVED = {
    "color": lambda m, im: m.Color(im).enhance(0.4),
    "contrast": lambda m, im: m.Contrast(im).enhance(0.4),
    "brightness": lambda m, im: m.Brightness(im).enhance(0.4),
    "sharpness": lambda m, im: m.Sharpness(im).enhance(0.4),
    "grayscale": lambda m, im: m.grayscale(im),
    "colorize": lambda m, im: m.colorize(im, "red", "blue"),
}


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize(
    ("name", "mode"),
    [
        pytest.param(name, mode, id=f"{name}-{mode}")
        for name in DERIVED
        for mode in ("L", "RGB")
        if (name, mode) != ("colorize", "RGB")  # colorize takes L images only
    ],
)
def test_derived_operation(name: str, mode: str, tmp_path: Path) -> None:
    source = _source(mode, _TRANSPARENCY[mode]["present"])
    module = PILImageOps if name in ("grayscale", "colorize") else PILImageEnhance
    lazy_module: Any = ImageOps if module is PILImageOps else ImageEnhance
    expected = DERIVED[name](module, source)
    lazy = DERIVED[name](lazy_module, Image.from_pil(source))
    assert lazy.info == expected.info
    _assert_parity(evaluate(lazy), expected, tmp_path)


# name -> (source mode, info["transparency"]) Pillow accepts but the GPU does not prove
REJECTED = {
    "L-tuple": ("L", (7, 7, 7)),
    "L-over-255": ("L", 263),
    "RGB-int": ("RGB", 2),
    "RGB-over-255": ("RGB", (1, 2, 259)),
}


@pytest.mark.parametrize("name", list(REJECTED))
def test_unproven_transparency_is_rejected(name: str) -> None:
    mode, transparency = REJECTED[name]
    lazy = Image.from_pil(_source(mode, transparency)).convert("RGBA")
    with pytest.raises(Unsupported, match="is proven only for") as caught:
        plan_graph(lazy)
    assert (caught.value.stage, "fix: set info['transparency']" in str(caught.value)) == (
        "admission",
        True,
    )


def test_batch_executor(tmp_path: Path, executor: GpuBatchExecutor) -> None:
    jobs, expected = [], {}
    for mode, target in (("L", "RGBA"), ("RGB", "RGBA"), ("L", "RGB"), ("RGB", "L"), ("P", "L")):
        path = tmp_path / f"{mode}.png"
        transparency = _TRANSPARENCY[mode]["present"]
        _source(mode, transparency).save(path, transparency=transparency)
        with PILImage.open(path) as opened:
            expected[f"{mode}-{target}"] = opened.convert(target)
        jobs.append((f"{mode}-{target}", Image.open(path).convert(target)))
    results = {result.input_key: result.image for result in executor.run(jobs)}
    assert set(results) == set(expected)
    for key, image in expected.items():
        _assert_parity(results[key], image, tmp_path)


#: Sources whose info gets a transparency Pillow's convert may refuse: a P leaf, P images made
#: by operations (their palette known to the recording only through replay, or not at all),
#: and images of other modes.
_REFUSAL_SOURCES: dict[str, Any] = {
    "P-leaf": lambda lib, im: im,
    "P-chop": lambda lib, im: lib[0].add(im, im, 1.5, 3),
    "P-solarize": lambda lib, im: lib[1].solarize(im, 39),
    "L": lambda lib, im: im.convert("L"),
    "1": lambda lib, im: im.convert("1"),
    "RGB": lambda lib, im: im.convert("RGB"),
}
_REFUSAL_VALUES = {
    "rgb-tuple": (101, 50, 154),
    "pair": (1, 2),
    "text": "x",
    "float": 3.5,
    "int-over": 300,
    "int-negative": -1,
    "int": 7,
    "bytes": b"\x01\x02",
}


def _convert_outcome(ours: bool, source: str, value: Any, target: str) -> str:
    palette_image = PILImage.new("P", (5, 4))
    palette_image.putpalette(list(range(256)) * 3)
    lib = (ImageChops, ImageOps) if ours else (PILImageChops, PILImageOps)
    image = _REFUSAL_SOURCES[source](lib, Image.from_pil(palette_image) if ours else palette_image)
    image.info["transparency"] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            image.convert(target)
        except Exception as error:  # the answer: what Pillow raises
            return type(error).__name__
    return "converts"


@pytest.mark.parametrize("target", ["RGBA", "LA", "PA", "LAB", "RGB", "L"])
@pytest.mark.parametrize("value", list(_REFUSAL_VALUES))
@pytest.mark.parametrize("source", list(_REFUSAL_SOURCES))
def test_convert_refuses_a_transparency_as_pillow(source: str, value: str, target: str) -> None:
    """Pillow's convert checks ``info["transparency"]`` where it applies it (a P image's into
    the palette's alpha: bytes or an int of the palette; LAB through RGBA first): the recording
    raises what Pillow raises, whether the P image's palette is known before the graph runs or
    not, and records what Pillow converts."""
    transparency = _REFUSAL_VALUES[value]
    expected = _convert_outcome(False, source, transparency, target)
    assert _convert_outcome(True, source, transparency, target) == expected
