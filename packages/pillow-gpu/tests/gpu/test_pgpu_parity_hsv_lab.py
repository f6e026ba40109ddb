"""GPU parity of ``convert`` with HSV or LAB on a side, through tables of live Pillow's results.

Every pair Pillow accepts among 1, P, L, LA, RGB, RGBA, RGBX, CMYK, YCbCr, RGBa, La, I, F,
I;16, HSV and LAB with HSV or LAB on a side is either admitted and equal to live Pillow (every
stored byte, the HSV/LAB/RGB padding byte included) or refused with ``Unsupported`` naming the
pair; only the 16/32-bit pairs are refused. Each of the four tables (rgb2hsv, hsv2rgb, rgb2lab,
lab2rgb) is checked over all 2^24 inputs in an order other than the one it was built in, with
random padding bytes. Also: the padding byte traced through a following conversion, the batch
executor, the resident table built once, and the device-limit refusal.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import pillow_converts, undated_info
from pillow_gpu.errors import Limit, Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._layout import WIDE_MODES, image_of_words, to_words, words_of_image
from pillow_gpu.gpu.kernels import convert_table

from .test_pgpu_parity_limited_convert import run_chains_on_file

pytestmark = pytest.mark.usefixtures("device")

MODES = (
    "1", "P", "L", "LA", "RGB", "RGBA", "RGBX", "CMYK", "YCbCr", "RGBa", "La",
    "I", "F", "I;16", "HSV", "LAB",
)  # fmt: skip
SIZES = {"1x1": (1, 1), "5x3": (5, 3), "37x19": (37, 19)}


def _words(size: tuple[int, int], seed: int) -> npt.NDArray[np.uint32]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 1 << 32, size[0] * size[1], dtype=np.uint64).astype(np.uint32)


def source_image(mode: str, size: tuple[int, int], seed: int = 0) -> PILImage.Image:
    """A ``mode`` image of random stored content (every stored byte, padding included)."""
    words = _words(size, seed)
    rng = np.random.default_rng(seed + 1)
    if mode in ("L", "1"):
        gray = PILImage.frombytes("L", size, (words & 255).astype(np.uint8).tobytes())
        return gray if mode == "L" else gray.convert("1", dither=PILImage.Dither.NONE)
    if mode == "P":
        image = PILImage.frombytes("P", size, (words & 255).astype(np.uint8).tobytes())
        image.putpalette(rng.integers(0, 256, 768, dtype=np.uint8).tobytes())
        return image
    if mode in ("LA", "La"):
        pairs = words.view(np.uint8).reshape(-1, 4)[:, (0, 3)]
        return PILImage.frombytes(mode, size, np.ascontiguousarray(pairs).tobytes())
    if mode == "I":
        values = rng.integers(-300, 600, size[0] * size[1], dtype=np.int32)
        return PILImage.frombytes("I", size, values.astype("<i4").tobytes(), "raw", "I;32")
    if mode == "F":
        values = rng.uniform(-50, 300, size[0] * size[1]).astype("<f4")
        return PILImage.frombytes("F", size, values.tobytes(), "raw", "F;32F")
    if mode == "I;16":
        return PILImage.frombytes(mode, size, (words & 0xFFFF).astype("<u2").tobytes())
    return image_of_words(mode, size, words)  # the four-byte modes, byte 3 random


PAIRS = [
    (a, b)
    for a in MODES
    for b in MODES
    if a != b and {a, b} & {"HSV", "LAB"} and pillow_converts(source_image(a, (2, 2)), b)
]


def assert_words_equal(actual: PILImage.Image, expected: PILImage.Image) -> None:
    """Mode, size, ``tobytes()`` and every stored word (the padding byte included) equal."""
    assert (actual.mode, actual.size) == (expected.mode, expected.size)
    assert actual.tobytes() == expected.tobytes()
    if expected.mode not in ("1", "P", *WIDE_MODES):
        equal = to_words(actual) == to_words(expected)
        assert equal.all(), f"{int((~equal).sum())} stored words differ"


#: The pairs refused at admission, with the words of the reason: HSV -> F ends in Pillow's
#: rgb2f (through RGB), and HSV -> P/1 with the default Floyd-Steinberg dither (through RGB,
#: admitted with dither=NONE in test_pgpu_convert_coverage.py). Wide <-> HSV/LAB go through
#: L or RGBA as Pillow goes (test_pgpu_parity_wide_detours.py).
REFUSED = {("HSV", "F"): "rgb2f"}  # HSV -> P and 1 (dithered) admitted since Floyd-Steinberg


def test_pillow_accepts_the_pairs_listed() -> None:
    sources = {"1", "P", "L", "LA", "RGB", "RGBA", "RGBX", "CMYK", "YCbCr", "RGBa", "I", "F"}
    sources |= {"I;16"}
    assert {a for a, b in PAIRS if b == "HSV"} == sources
    assert {a for a, b in PAIRS if b == "LAB"} == sources | {"HSV"}
    assert {b for a, b in PAIRS if a == "HSV"} == set(MODES) - {"HSV"}
    assert {b for a, b in PAIRS if a == "LAB"} == {"RGB", "RGBA", "RGBX"}
    assert len(PAIRS) == 44
    assert set(PAIRS) >= set(REFUSED)


@pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_every_accepted_pair_is_exact_or_refused(
    source: str, target: str, size: tuple[int, int]
) -> None:
    image = source_image(source, size, seed=size[0] + len(source))
    lazy = Image.from_pil(image).convert(target)
    if (source, target) in REFUSED:
        with pytest.raises(Unsupported) as info:
            plan_graph(lazy)
        assert REFUSED[source, target] in info.value.why
        assert info.value.fix
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = image.convert(target)
    assert_words_equal(evaluate(lazy), expected)


def _every_triple(order_seed: int, padding_seed: int) -> npt.NDArray[np.uint32]:
    # All 2^24 (b0, b1, b2) in a shuffled order (not the table's), byte 3 pseudo-random.
    triples = np.random.default_rng(order_seed).permutation(1 << 24).astype(np.uint32)
    padding = np.random.default_rng(padding_seed).integers(0, 256, 1 << 24, dtype=np.uint32)
    return triples | padding << 24


@pytest.mark.parametrize("converter", list(convert_table.CONVERTERS))
def test_table_exact_over_every_input(converter: str) -> None:
    source, target = convert_table.CONVERTERS[converter]
    words = _every_triple(order_seed=len(converter), padding_seed=ord(converter[0]))
    image = image_of_words(source, (4096, 4096), words)
    actual = evaluate(Image.from_pil(image).convert(target))
    expected = image.convert(target)
    equal = words_of_image(actual) == words_of_image(expected)
    assert equal.all(), f"{int((~equal).sum())} of 2^24 words differ"


PADDINGS = {"padding-0": 0, "padding-77": 77, "padding-255": 255}


@pytest.mark.parametrize("padding", list(PADDINGS.values()), ids=list(PADDINGS))
@pytest.mark.parametrize("mode", ["HSV", "LAB"])
def test_padding_byte_traced_through_a_following_conversion(mode: str, padding: int) -> None:
    words = (_words((23, 11), seed=padding) & 0xFFFFFF) | np.uint32(padding << 24)
    rgb = image_of_words("RGB", (23, 11), words)
    lazy = Image.from_pil(rgb).convert(mode)
    expected = rgb.convert(mode)
    # on the device: RGB (pad p) -> mode -> RGB, read with the RGBX packer
    back = evaluate(lazy.convert("RGB"))
    assert back.tobytes("raw", "RGBX") == expected.convert("RGB").tobytes("raw", "RGBX")
    # an HSV/LAB result carries its padding byte back: Pillow's own conversion of it agrees
    result = evaluate(lazy)
    converted = result.convert("RGB").tobytes("raw", "RGBX")
    assert converted == expected.convert("RGB").tobytes("raw", "RGBX")


@pytest.mark.parametrize("mode", ["HSV", "LAB"])
def test_decoded_and_frombytes_images_keep_pillow_s_stored_bytes(mode: str) -> None:
    image = PILImage.frombytes(mode, (9, 4), bytes(range(108)))  # Pillow stores byte 3 as 255
    assert (to_words(image) >> 24 == 255).all()
    assert_words_equal(evaluate(Image.from_pil(image)), image)
    assert_words_equal(evaluate(Image.from_pil(image).convert("RGBA")), image.convert("RGBA"))


@pytest.mark.parametrize("mode", ["HSV", "LAB"])
def test_chain_of_copies_and_conversions(mode: str) -> None:
    image = source_image("RGBA", (41, 23), seed=5)
    lazy = Image.from_pil(image).convert(mode).crop((2, 1, 39, 20))
    lazy = lazy.transpose(PILImage.Transpose.ROTATE_90).convert("RGB")
    expected = image.convert(mode).crop((2, 1, 39, 20))
    expected = expected.transpose(PILImage.Transpose.ROTATE_90).convert("RGB")
    assert_words_equal(evaluate(lazy), expected)


def test_batch_executor_runs_hsv_and_lab_jobs(tmp_path: Path) -> None:
    path = tmp_path / "photo.png"
    source_image("RGB", (33, 21), seed=6).save(path)
    chains = {
        "hsv": lambda im: im.convert("HSV"),
        "hsv-round-trip": lambda im: im.convert("HSV").convert("RGB"),
        "lab-rgba": lambda im: im.convert("LAB").convert("RGBA"),
        "hsv-to-lab": lambda im: im.convert("HSV").convert("LAB"),
    }
    results, expected = run_chains_on_file(path, chains)
    for name, image in expected.items():
        assert_words_equal(results[name], image)


@pytest.mark.parametrize(
    ("source", "chain"),
    [
        ("RGB", ("LAB",)),
        ("RGBA", ("LAB",)),
        ("L", ("LAB",)),
        ("RGB", ("LAB", "RGB")),
        ("RGB", ("LAB", "RGBA")),
        ("RGB", ("HSV",)),
        ("RGB", ("HSV", "LAB")),
    ],
    ids=lambda value: "-".join(value) if isinstance(value, tuple) else value,
)
def test_result_info_is_pillow_s(tmp_path: Path, source: str, chain: tuple[str, ...]) -> None:
    """LAB conversions run through LittleCMS in Pillow: the result's info is the output
    profile alone (the source's dpi and text are gone); HSV keeps the source's info. The lazy
    image, the executor's result and the saved file carry the same."""
    image = source_image(source, (9, 7), seed=8)
    image.info.update({"dpi": (72, 72), "comment": b"kept?"})
    expected, lazy = image, Image.from_pil(image)
    for mode in chain:
        expected, lazy = expected.convert(mode), lazy.convert(mode)
    assert undated_info(lazy.info) == undated_info(expected.info)
    executor = GpuBatchExecutor()
    try:
        (result,) = list(executor.run([("job", lazy)]))
    finally:
        executor.close()
    assert undated_info(result.image.info) == undated_info(expected.info)
    assert_words_equal(result.image, expected)
    if expected.mode in ("RGB", "RGBA"):  # a PNG embeds the profile Pillow's result carries
        ours, theirs = tmp_path / "ours.png", tmp_path / "theirs.png"
        result.image.save(ours)
        expected.save(theirs)
        with PILImage.open(ours) as a, PILImage.open(theirs) as b:
            assert undated_info(a.info) == undated_info(b.info)


@pytest.mark.parametrize("converter", list(convert_table.CONVERTERS))
def test_resident_table_built_once_and_not_charged(
    device: SharedDevice, converter: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, target = convert_table.CONVERTERS[converter]
    first = Image.from_pil(source_image(source, (6, 5))).convert(target)
    evaluate(first)
    built = device.resident_bytes
    assert built >= convert_table.TABLE_NBYTES

    def refuse(name: str) -> bytes:
        raise AssertionError(f"table {name} built a second time")

    monkeypatch.setattr(convert_table, "table_bytes", refuse)
    image = source_image(source, (11, 7), seed=3)  # another shape: a plan of its own
    second = Image.from_pil(image).convert(target)
    plan = plan_graph(second)
    assert plan.gpu_bytes < convert_table.TABLE_NBYTES  # the resident is not charged
    assert_words_equal(evaluate(second), image.convert(target))
    assert device.resident_bytes == built


@pytest.mark.parametrize(("source", "target"), [("RGB", "HSV"), ("LAB", "RGB"), ("L", "LAB")])
def test_device_without_room_for_the_table_refuses_with_limit(
    device: SharedDevice, source: str, target: str
) -> None:
    lazy = Image.from_pil(source_image(source, (4, 4))).convert(target)
    plan_graph(lazy, limits=device.limits)  # this device has room
    small = dataclasses.replace(device.limits, max_storage_buffer_binding_size=32 << 20)
    with pytest.raises(Limit) as info:
        plan_graph(lazy, limits=small)
    assert f"{source} -> {target}" in info.value.why
    assert "64 MiB" in info.value.why
    assert str(32 << 20) in info.value.observed


def test_l_to_lab_with_transparency_is_refused_saying_why() -> None:
    image = source_image("L", (5, 3))
    image.info["transparency"] = 7
    with pytest.raises(Unsupported) as info:
        plan_graph(Image.from_pil(image).convert("LAB"))
    assert "transparency" in info.value.why
    assert "L -> LAB" in info.value.why


@pytest.mark.parametrize("mode", ["HSV", "LAB"])
def test_matrix_conversion_of_hsv_and_lab_is_refused(mode: str) -> None:
    lazy = Image.from_pil(source_image(mode, (5, 3))).convert("L", (0.3, 0.5, 0.2, 0.0))
    with pytest.raises(Unsupported, match="RGB sources"):
        plan_graph(lazy)
