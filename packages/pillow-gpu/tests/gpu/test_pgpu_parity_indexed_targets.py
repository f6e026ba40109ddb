"""GPU parity of ``convert`` to P and 1.

Admitted (``gpu.lowering.indexed``): L, LA, 1 -> P (any dither); RGB, RGBX, RGBa, CMYK,
YCbCr -> P with the WEB palette; L, LA, RGB, RGBA, RGBX, RGBa, CMYK, YCbCr -> 1; P -> 1.
Each equals live Pillow with ``dither=NONE`` (a fixed per-pixel table), Pillow's default
Floyd-Steinberg and ``ORDERED`` (which Pillow's C code dithers as Floyd-Steinberg): mode,
stored bytes, palette (its Python state before and after loading) and ``info``, over noise
in every stored byte and every parity size; RGB -> P and RGB -> 1 without dither over all
2^24 inputs (the dithering kernel's own cases: ``test_pgpu_parity_dither``). ADAPTIVE and
RGBA -> P conversions are refused with the reason, and the CPU path replays every combination
of ``dither``, ``palette`` and ``colors`` as Pillow does.
"""

from __future__ import annotations

import functools
import io
import itertools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import SIZES
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

NONE = PILImage.Dither.NONE
FS = PILImage.Dither.FLOYDSTEINBERG
WEB = PILImage.Palette.WEB
ADAPTIVE = PILImage.Palette.ADAPTIVE

SOURCES = ("L", "LA", "1", "P", "RGB", "RGBA", "RGBX", "RGBa", "CMYK", "YCbCr")
CASES = [
    (source, target)
    for source, target in itertools.product(SOURCES, ("P", "1"))
    if source != target and (source, target) != ("RGBA", "P")
]
_WORD_RAW = {"RGB": "RGBX", "YCbCr": "YCbCrX"}  # every stored byte, padding included


def stored(mode: str, size: tuple[int, int], seed: int = 0) -> PILImage.Image:
    """A ``mode`` image of noise in every stored byte (P: a random 256-colour palette)."""
    width, height = size
    rng = np.random.default_rng(seed + 7 * width + height)
    quads = rng.integers(0, 256, (height, width, 4), dtype=np.uint8)
    if mode in ("L", "P"):
        image = PILImage.frombytes(mode, size, quads[..., 0].tobytes())
        if mode == "P":
            image.putpalette(rng.integers(0, 256, 768, dtype=np.uint8).tobytes())
        return image
    if mode == "1":  # any stored byte, as point() and the chops leave in a 1 image
        return PILImage.frombytes("L", size, quads[..., 0].tobytes()).point(list(range(256)), "1")
    if mode == "LA":
        return PILImage.frombytes(mode, size, np.ascontiguousarray(quads[..., (0, 3)]).tobytes())
    return PILImage.frombytes(mode, size, quads.tobytes(), "raw", _WORD_RAW.get(mode, mode))


def palette_state(image: PILImage.Image) -> tuple[object, ...]:
    """A P image's palette as Python holds it (unloaded), then what loading realises."""
    palette = image.palette
    if palette is None or image.mode != "P":  # (saving a 1 image as GIF attaches one)
        return (palette is None,)
    before = (palette.mode, palette.rawmode, bytes(palette.palette), palette.dirty)
    return (*before, tuple(image.getpalette() or ()), image.im.getpalettemode())


def assert_same(actual: PILImage.Image, expected: PILImage.Image) -> None:
    """Mode, size, stored bytes, palette and info equal."""
    assert (actual.mode, actual.size) == (expected.mode, expected.size)
    assert actual.tobytes() == expected.tobytes()
    if expected.mode == "1":
        assert actual.tobytes("raw", "L") == expected.tobytes("raw", "L")
    assert palette_state(actual) == palette_state(expected)
    assert actual.info == expected.info


def _convert(image: PILImage.Image, target: str, dither: Any) -> PILImage.Image:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return image.convert(target, dither=dither)


def _dither_id(dither: Any) -> str:
    return "default" if dither is None else dither.name


@pytest.mark.parametrize("dither", [NONE, None, PILImage.Dither.ORDERED], ids=_dither_id)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize(("source", "target"), CASES, ids=[f"{a}->{b}" for a, b in CASES])
def test_admitted_exact(source: str, target: str, size: tuple[int, int], dither: Any) -> None:
    image = stored(source, size)
    lazy = Image.from_pil(image).convert(target, dither=dither)
    expected = _convert(image, target, dither)
    assert lazy.info == expected.info
    assert_same(evaluate(lazy), expected)


TRANSPARENT = {
    "RGB-tuple-present": ("RGB", (1, 2, 3)),
    "RGB-tuple-web-colour": ("RGB", (51, 0, 0)),
    "L-int": ("L", 7),
    "P-int": ("P", 3),
}
TRANSPARENT_CASES = [
    (case, target)
    for case, target in itertools.product(TRANSPARENT, ("P", "1"))
    if TRANSPARENT[case][0] != target  # P -> P is a copy
]


@pytest.mark.parametrize(
    ("case", "target"), TRANSPARENT_CASES, ids=[f"{c}->{t}" for c, t in TRANSPARENT_CASES]
)
def test_transparency_gives_pillows_palette_and_info(case: str, target: str) -> None:
    mode, transparency = TRANSPARENT[case]
    image = stored(mode, (19, 17), seed=3)
    image.info["transparency"] = transparency
    image.info["dpi"] = (72, 72)
    expected = _convert(image, target, NONE)
    lazy = Image.from_pil(image).convert(target, dither=NONE)
    assert lazy.info == expected.info
    assert_same(evaluate(lazy), expected)


def _every_triple() -> PILImage.Image:
    # 4096 x 4096 pixels: bytes 0..2 run through all 2^24 values, the padding byte is noise.
    words = np.arange(1 << 24, dtype=np.uint32)
    padding = np.random.default_rng(5).integers(0, 256, 1 << 24, dtype=np.uint32)
    quads = (words | padding << 24).astype("<u4").view(np.uint8).reshape(4096, 4096, 4)
    return PILImage.frombytes("RGB", (4096, 4096), quads.tobytes(), "raw", "RGBX")


@pytest.mark.parametrize("target", ["P", "1"])
def test_rgb_exact_over_every_input(target: str) -> None:
    image = _every_triple()
    actual = evaluate(Image.from_pil(image).convert(target, dither=NONE))
    assert_same(actual, image.convert(target, dither=NONE))


def test_gray_sources_exact_over_every_value() -> None:
    ramp = PILImage.frombytes("L", (256, 1), bytes(range(256)))
    for target in ("P", "1"):
        actual = evaluate(Image.from_pil(ramp).convert(target, dither=NONE))
        assert_same(actual, ramp.convert(target, dither=NONE))


CHAINS = {
    "P-rotated": lambda im: im.convert("P", dither=NONE).transpose(PILImage.Transpose.ROTATE_90),
    "P-cropped-to-RGB": lambda im: im.convert("P", dither=NONE).crop((2, 1, 15, 9)).convert("RGB"),
    "P-to-RGBA": lambda im: im.convert("P", dither=NONE).convert("RGBA"),
    "1-to-L": lambda im: im.convert("1", dither=NONE).convert("L"),
    "1-flipped": lambda im: im.convert("1", dither=NONE).transpose(
        PILImage.Transpose.FLIP_LEFT_RIGHT
    ),
    "P-to-1": lambda im: im.convert("P", dither=NONE).convert("1"),
    "1-to-P": lambda im: im.convert("1", dither=NONE).convert("P"),
    "L-to-P-to-RGB": lambda im: im.convert("L").convert("P").convert("RGB"),
}


@pytest.mark.parametrize("chain", list(CHAINS))
def test_p_and_1_results_feed_further_gpu_work(chain: str) -> None:
    image = stored("RGB", (19, 17), seed=1)
    image.info["transparency"] = (1, 2, 3)
    expected = CHAINS[chain](image)
    assert_same(evaluate(CHAINS[chain](Image.from_pil(image))), expected)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_bilevel_upload_comes_back_as_pillows_bytes(size: tuple[int, int]) -> None:
    image = stored("1", size, seed=4)
    flipped = Image.from_pil(image).transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)
    assert_same(evaluate(flipped), image.transpose(PILImage.Transpose.FLIP_TOP_BOTTOM))
    assert_same(evaluate(Image.from_pil(image).crop((0, 0, 1, 1))), image.crop((0, 0, 1, 1)))


def _saved(image: PILImage.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


EXECUTOR_CHAINS = {
    "web": lambda im: im.convert("P", dither=NONE),
    "bilevel": lambda im: im.convert("1", dither=NONE),
    "gray-palette": lambda im: im.convert("L").convert("P"),
    "web-rotated": lambda im: im.convert("P", dither=NONE).transpose(PILImage.Transpose.ROTATE_270),
    "web-dithered": lambda im: im.convert("P"),
    "bilevel-dithered": lambda im: im.convert("1"),
}


@pytest.mark.parametrize("output", ["cpu", "gpu"])
def test_batch_executor_returns_pillows_p_and_1_images(tmp_path: Path, output: str) -> None:
    path = tmp_path / "photo.png"
    stored("RGB", (33, 21), seed=6).save(path)
    with PILImage.open(path) as opened:
        expected = {name: chain(opened) for name, chain in EXECUTOR_CHAINS.items()}
    executor = GpuBatchExecutor()
    try:
        jobs = [(name, chain(Image.open(path))) for name, chain in EXECUTOR_CHAINS.items()]
        results = {result.input_key: result.image for result in executor.run(jobs, output)}
        if output == "gpu":
            results = {name: image.download() for name, image in results.items()}
    finally:
        executor.close()
    assert set(results) == set(expected)
    for name, image in expected.items():
        for fmt in ("PNG", "GIF", "BMP"):
            assert _saved(results[name], fmt) == _saved(image, fmt), (name, fmt)
        assert_same(results[name], image)


REFUSALS = {
    "RGB->P ADAPTIVE": (
        "RGB",
        lambda im: im.convert("P", dither=NONE, palette=ADAPTIVE, colors=16),
        "quantizer",
    ),
    "L->P ADAPTIVE": ("L", lambda im: im.convert("P", palette=ADAPTIVE), "quantizer"),
    "RGBA->P": ("RGBA", lambda im: im.convert("P", dither=NONE), r"quantize\(\)"),
    "P upload, mesh transform": (
        "P",
        lambda im: im.transform(
            (5, 5), PILImage.Transform.MESH, [((0, 0, 4, 4), (0, 0, 0, 8, 8, 8, 8, 0))]
        ),
        "only for AFFINE, EXTENT, QUAD and PERSPECTIVE",
    ),
    "point to I of a P result": (
        "RGB",
        lambda im: im.convert("P", dither=NONE).point(list(range(256)), "I"),
        "operation 'point_mode' on a mode I image",
    ),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_say_why_and_how_to_fix(case: str) -> None:
    mode, chain, pattern = REFUSALS[case]
    image = stored(mode, (9, 7))
    with pytest.raises(Unsupported, match=pattern) as refused:
        plan_graph(chain(Image.from_pil(image)))
    text = str(refused.value)
    assert "observed" in text
    assert "fix" in text
    # the CPU path still gives Pillow's result
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(chain(Image.from_pil(image)).to_pil(), chain(image))


OPTIONS = [
    {"dither": dither, "palette": palette, "colors": colors}
    for dither, palette, colors in itertools.product(
        (None, NONE, FS, PILImage.Dither.ORDERED), (WEB, ADAPTIVE), (256, 5)
    )
]
REPLAY_SOURCES = (*SOURCES, "La", "PA", "HSV")
REPLAY = list(itertools.product(REPLAY_SOURCES, ("P", "PA", "1", "RGB")))


def _lazy_convert(image: PILImage.Image, target: str, options: dict[str, Any]) -> PILImage.Image:
    return Image.from_pil(image).convert(target, **options).to_pil()


def _outcome(call: Any) -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "image", call()
        except (ValueError, OSError) as error:
            return "error", type(error)


@pytest.mark.parametrize(("source", "target"), REPLAY, ids=[f"{a}->{b}" for a, b in REPLAY])
def test_cpu_path_replays_every_option_as_pillow(source: str, target: str) -> None:
    image = stored(source, (17, 9), seed=2) if source not in ("La", "PA", "HSV") else None
    if image is None:
        image = stored("RGBA" if source != "HSV" else "RGB", (17, 9), seed=2).convert(source)
    for options in OPTIONS:
        kind, expected = _outcome(functools.partial(image.convert, target, **options))
        lazy = functools.partial(_lazy_convert, image, target, options)
        got_kind, actual = _outcome(lazy)
        assert got_kind == kind, options
        if kind == "image":
            assert_same(actual, expected)
        else:
            assert actual is expected
