"""GPU parity of ``convert`` to and from YCbCr, La, RGBa, HSV and LAB.

Every pair Pillow converts with one of these modes on either side is admitted and equals live
Pillow byte for byte, stored padding included (YCbCr's fourth byte, read with raw mode
``YCbCrX``): over noise in every stored byte, every (colour, alpha) byte pair (premultiply)
and 0/1/127/128/254/255 edges, and RGB <-> YCbCr over all 2^24 inputs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import assert_image_equal, pillow_converts
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES, image_of_words, words_of_image
from pillow_gpu.gpu.lowering.limited import admitted_pairs

pytestmark = pytest.mark.usefixtures("device")

#: Raw modes that read or write all four stored bytes (the padding byte included).
WORD_RAW = {"RGB": "RGBX", "YCbCr": "YCbCrX"}
_EDGES = (0, 1, 127, 128, 254, 255)


def stored_image(mode: str, quads: npt.NDArray[np.uint8]) -> PILImage.Image:
    """A ``mode`` image whose stored bytes are ``quads`` (height x width x 4).

    L keeps byte 0 and LA/La bytes 0 and 3 (the bytes Pillow's packers see).
    """
    height, width = quads.shape[:2]
    if mode in ("HSV", "LAB"):  # no raw mode carries all four stored bytes
        return image_of_words(mode, (width, height), np.ascontiguousarray(quads).view("<u4"))
    if mode == "L":
        data = quads[..., 0]
    elif mode in ("LA", "La"):
        data = quads[..., (0, 3)]
    else:
        data = quads
    raw = np.ascontiguousarray(data).tobytes()
    return PILImage.frombytes(mode, (width, height), raw, "raw", WORD_RAW.get(mode, mode))


def contents(content: str, size: tuple[int, int] = (37, 19), seed: int = 0) -> npt.NDArray:
    """Stored bytes: ``noise``; ``pairs`` (256 x 256: byte 0 = x and byte 3 = y, so every
    (colour, alpha) pair occurs, bytes 1 and 2 shifted copies of x); ``edges`` (every
    combination of edge values)."""
    if content == "noise":
        rng = np.random.default_rng(seed + size[0] * size[1])
        return rng.integers(0, 256, (size[1], size[0], 4), dtype=np.uint8)
    if content == "pairs":
        y, x = np.mgrid[0:256, 0:256]
        return np.stack([x, (x + y) % 256, (x + 2 * y + 7) % 256, y], axis=-1).astype(np.uint8)
    quads = np.array(list(itertools.product(_EDGES, repeat=4)), dtype=np.uint8)
    return quads.reshape(36, 36, 4)


def stored_bytes(image: PILImage.Image) -> bytes:
    """Every stored byte Pillow exposes for ``image`` (RGB, YCbCr, HSV, LAB padding included)."""
    if image.mode in ("HSV", "LAB"):
        return words_of_image(image).tobytes()
    return image.tobytes("raw", WORD_RAW.get(image.mode, image.mode))


def assert_stored_equal(actual: PILImage.Image, expected: PILImage.Image) -> None:
    """Mode, size and ``tobytes()`` equal, and the stored padding byte too."""
    assert_image_equal(actual, expected)
    assert stored_bytes(actual) == stored_bytes(expected), "stored padding differs"


def run_chains_on_file(
    path: Path, chains: Mapping[str, Callable[[Any], Any]]
) -> tuple[dict[str, PILImage.Image], dict[str, PILImage.Image]]:
    """Each chain through one executor run on ``Image.open(path)``, and live Pillow's result of
    it on the opened file, both by chain name (the two key sets are checked equal)."""
    with PILImage.open(path) as opened:
        expected = {name: chain(opened) for name, chain in chains.items()}
    executor = GpuBatchExecutor()
    try:
        jobs = [(name, chain(Image.open(path))) for name, chain in chains.items()]
        results = {result.input_key: result.image for result in executor.run(jobs)}
    finally:
        executor.close()
    assert set(results) == set(expected)
    return results, expected


def test_admitted_pairs_are_every_pair_pillow_converts() -> None:
    modes = (*NATIVE_MODES, *LIMITED_MODES)
    pillow = {
        (a, b)
        for a in modes
        for b in modes
        if a != b and {a, b} & set(LIMITED_MODES) and pillow_converts(a, b)
    }
    assert set(admitted_pairs()) == pillow
    assert len(pillow) == 61  # 32 with YCbCr, La or RGBa; 29 with HSV or LAB


PAIRS = admitted_pairs()
CONTENTS = {
    "noise-1x1": ("noise", (1, 1)),
    "noise-5x3": ("noise", (5, 3)),
    "noise-37x19": ("noise", (37, 19)),
    "pairs-256x256": ("pairs", (256, 256)),
    "edges-36x36": ("edges", (36, 36)),
}


@pytest.mark.parametrize("content", list(CONTENTS))
@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_every_admitted_pair(source: str, target: str, content: str) -> None:
    kind, size = CONTENTS[content]
    image = stored_image(source, contents(kind, size))
    assert_stored_equal(evaluate(Image.from_pil(image).convert(target)), image.convert(target))


def _every_triple(seed: int) -> npt.NDArray[np.uint8]:
    # 4096 x 4096 pixels: bytes 0..2 run through all 2^24 values, byte 3 is pseudo-random.
    words = np.arange(1 << 24, dtype=np.uint32)
    padding = np.random.default_rng(seed).integers(0, 256, 1 << 24, dtype=np.uint32)
    return (words | padding << 24).astype("<u4").view(np.uint8).reshape(4096, 4096, 4)


@pytest.mark.parametrize(("source", "target"), [("RGB", "YCbCr"), ("YCbCr", "RGB")])
def test_rgb_ycbcr_exact_over_every_input(source: str, target: str) -> None:
    image = stored_image(source, _every_triple(seed=len(source)))
    assert_stored_equal(evaluate(Image.from_pil(image).convert(target)), image.convert(target))


def _transparent_source(padding: int) -> PILImage.Image:
    rng = np.random.default_rng(padding)
    quads = rng.integers(1, 4, (5, 9, 4), dtype=np.uint8)  # few colours: (1, 2, 3) occurs
    quads[..., 3] = padding
    quads[0, 0] = (1, 2, 3, 255)  # the colour with padding 255
    quads[0, 1] = (1, 2, 3, 7)  # the colour with other padding (La compares the source word)
    return stored_image("RGB", quads)


TRANSPARENCY = {"present": (1, 2, 3), "absent": (200, 0, 9)}


@pytest.mark.parametrize("padding", [255, 0], ids=["padding-255", "padding-0"])
@pytest.mark.parametrize("transparency", list(TRANSPARENCY))
@pytest.mark.parametrize("target", ["La", "RGBa"])
def test_rgb_with_transparency_to_premultiplied(
    target: str, transparency: str, padding: int
) -> None:
    source = _transparent_source(padding)
    source.info["transparency"] = TRANSPARENCY[transparency]
    expected = source.convert(target)
    lazy = Image.from_pil(source).convert(target)
    assert lazy.info == expected.info
    actual = evaluate(lazy)
    assert_stored_equal(actual, expected)
    assert actual.info == expected.info


def test_rgb_transparency_of_another_type_is_refused() -> None:
    source = _transparent_source(255)
    source.info["transparency"] = 5  # an int on an RGB image: no colour to match
    lazy = Image.from_pil(source).convert("RGBa")
    with pytest.raises(Unsupported, match="transparency"):
        plan_graph(lazy)


def _palette_image(transparency: int | None) -> PILImage.Image:
    rng = np.random.default_rng(3)
    image = PILImage.frombytes("P", (19, 17), rng.integers(0, 40, 19 * 17, np.uint8).tobytes())
    image.putpalette(rng.integers(0, 256, 40 * 3, dtype=np.uint8).tobytes())
    if transparency is not None:
        image.info["transparency"] = transparency
    return image


@pytest.mark.parametrize("transparency", [None, 3], ids=["opaque", "transparency-3"])
def test_palette_to_ycbcr(transparency: int | None) -> None:
    image = _palette_image(transparency)
    expected = image.convert("YCbCr")
    assert_stored_equal(evaluate(Image.from_pil(image).convert("YCbCr")), expected)


def test_bilevel_to_ycbcr() -> None:
    image = stored_image("L", contents("noise", (23, 9))).convert("1")
    expected = image.convert("YCbCr")
    assert_stored_equal(evaluate(Image.from_pil(image).convert("YCbCr")), expected)


def test_ycbcr_round_trip_chain() -> None:
    image = stored_image("RGB", contents("noise", (41, 23), seed=4))
    lazy = Image.from_pil(image).convert("YCbCr").convert("RGBA").convert("RGBa").convert("La")
    expected = image.convert("YCbCr").convert("RGBA").convert("RGBa").convert("La")
    assert_stored_equal(evaluate(lazy.convert("LA")), expected.convert("LA"))


@pytest.mark.parametrize(("source", "target"), [("YCbCr", "F"), ("RGBa", "F"), ("HSV", "F")])
def test_rgb2f_pairs_are_refused_naming_the_pair(source: str, target: str) -> None:
    """Through RGB these end in Pillow's rgb2f (the other wide pairs are admitted:
    test_pgpu_parity_wide_detours.py)."""
    image = PILImage.new(source, (4, 3))
    with pytest.raises(Unsupported) as info:
        plan_graph(Image.from_pil(image).convert(target))
    assert f"{source} -> {target}" in info.value.why


def test_matrix_conversion_of_ycbcr_is_refused() -> None:
    image = stored_image("YCbCr", contents("noise", (5, 3)))
    lazy = Image.from_pil(image).convert("L", (0.3, 0.5, 0.2, 0.0))
    with pytest.raises(Unsupported, match="RGB sources"):
        plan_graph(lazy)


def test_batch_executor_runs_jobs_through_ycbcr_la_and_rgba(tmp_path: Path) -> None:
    path = tmp_path / "photo.png"
    stored_image("RGBA", contents("noise", (33, 21), seed=6)).save(path)
    chains = {
        "ycbcr": lambda im: im.convert("YCbCr").transpose(PILImage.Transpose.FLIP_LEFT_RIGHT),
        "rgba-premultiplied": lambda im: im.convert("RGBa").crop((1, 2, 30, 19)),
        "la-round-trip": lambda im: im.convert("LA").convert("La").convert("LA"),
    }
    results, expected = run_chains_on_file(path, chains)
    for name, image in expected.items():
        assert_stored_equal(results[name], image)
