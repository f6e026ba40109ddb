"""GPU parity for 16/32-bit images (I;16, I;16B, I;16L, I, F): convert and the copy routes.

Every case runs the real kernels and compares mode, size and ``tobytes()`` with live Pillow.
Contents hold the values each converter treats specially: 16-bit 0, 255, 256, 65535; int32
negatives, > 255, CLIP16 edges and float32 rounding ties; floats NaN, infinities, -0.0,
denormals, the truncation edges around 0 and 255 and values beyond int32.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

WIDE = ("I;16", "I;16B", "I;16L", "I", "F")
SIZES = ((1, 1), (3, 5), (37, 19), (300, 7))
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]

_U16_EDGES = [0, 1, 254, 255, 256, 257, 4095, 32768, 65534, 65535]
_I32_EDGES = [
    0, 1, -1, 254, 255, 256, -255, 65535, 65536, -65536, 2**24, 2**24 + 1, 2**24 + 3,
    2**25 + 2, 2**25 + 6, 2**31 - 1, -(2**31), -(2**31) + 1, 2**30 + 64, 123456789, -987654321,
]  # fmt: skip
_F32_EDGES = [
    np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 0.4999, 0.5, 0.99999994,
    1.0, -0.5, -0.99, 2.5, -2.5, 127.5, 254.5, 254.99998, 255.0, 255.5, 256.0, 65535.5,
    70000.25, 2.0**31, -(2.0**31), 3e9, -3e9, 2.0**31 - 128, 1e38, -1e38, 16777217.0,
]  # fmt: skip


def wide_image(mode: str, size: tuple[int, int], seed: int = 0) -> PILImage.Image:
    """A random ``mode`` image whose first pixels are the mode's edge values."""
    rng = np.random.default_rng(seed)
    pixels = size[0] * size[1]
    if mode in ("I;16", "I;16L", "I;16B"):
        values = rng.integers(0, 65536, pixels)
        edges: list[float] = list(_U16_EDGES)
        dtype = ">u2" if mode == "I;16B" else "<u2"
    elif mode == "I":
        values = rng.integers(-(2**31), 2**31, pixels)
        values[: pixels // 2] = rng.integers(-300, 70000, pixels // 2)
        edges, dtype = list(_I32_EDGES), "<i4"
    else:
        values = rng.standard_normal(pixels) * 200 + 100
        edges, dtype = list(_F32_EDGES), "<f4"
    data = np.asarray(values, dtype=np.float64 if mode == "F" else np.int64)
    count = min(len(edges), pixels)
    data[:count] = edges[:count]
    return PILImage.frombytes(mode, size, data.astype(dtype).tobytes())


def _gpu(lazy: Image.Image) -> PILImage.Image:
    return evaluate(lazy)


# -- convert ---------------------------------------------------------------------------------
TARGETS = ("L", "RGB", "RGBA", "LA", "CMYK", "RGBX", "I", "F", "I;16", "I;16B", "I;16L")
PAIRS = [(s, t) for s in WIDE for t in TARGETS if s != t]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{s}->{t}" for s, t in PAIRS])
def test_convert_from_wide(source: str, target: str, size: tuple[int, int]) -> None:
    image = wide_image(source, size)
    expected = image.convert(target)
    assert_image_equal(_gpu(Image.from_pil(image).convert(target)), expected)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("source", WIDE)
def test_convert_to_l_over_many_values(source: str, seed: int) -> None:
    image = wide_image(source, (257, 31), seed)
    assert_image_equal(_gpu(Image.from_pil(image).convert("L")), image.convert("L"))


def test_every_16_bit_value_converts_like_pillow() -> None:
    values = np.arange(65536, dtype=np.uint32)
    for mode, dtype in (("I;16", "<u2"), ("I;16B", ">u2")):
        image = PILImage.frombytes(mode, (256, 256), values.astype(dtype).tobytes())
        for target in ("L", "I", "F", "RGB"):
            assert_image_equal(_gpu(Image.from_pil(image).convert(target)), image.convert(target))


def test_int_to_float_rounds_like_pillow_around_every_exponent() -> None:
    # ties and neighbours at each power of two above 2^24, where float32 must round
    bases = [2**e for e in range(24, 31)]
    values = sorted({b + d for b in bases for d in range(-9, 10)} | {-(b + 5) for b in bases})
    values += [2**31 - 1, -(2**31), 2**31 - 65, 2**31 - 64, 2**31 - 63]
    image = PILImage.frombytes("I", (len(values), 1), np.array(values, "<i4").tobytes())
    assert_image_equal(_gpu(Image.from_pil(image).convert("F")), image.convert("F"))


L_TARGETS = ("I", "F", "I;16", "I;16B", "I;16L")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("target", L_TARGETS)
def test_convert_l_to_wide(target: str, size: tuple[int, int]) -> None:
    data = np.random.default_rng(1).integers(0, 256, size[0] * size[1], dtype=np.uint8)
    image = PILImage.frombytes("L", size, data.tobytes())
    assert_image_equal(_gpu(Image.from_pil(image).convert(target)), image.convert(target))


def test_convert_of_an_rgb_result_to_l_to_wide_chains() -> None:
    rgb = PILImage.frombytes("RGB", (37, 19), bytes(range(256)) * 8 + bytes(37 * 19 * 3 - 2048))
    lazy = Image.from_pil(rgb).convert("L").convert("I;16B").transpose(PILImage.Transpose.ROTATE_90)
    expected = rgb.convert("L").convert("I;16B").transpose(PILImage.Transpose.ROTATE_90)
    assert_image_equal(_gpu(lazy), expected)


@pytest.mark.parametrize("target", ["I", "F", "I;16"])
@pytest.mark.parametrize("source", ["RGB", "RGBA", "CMYK"])
def test_other_sources_to_wide(source: str, target: str) -> None:
    """I and I;16 are Pillow's luma widened (admitted); F is rgb2f's float32 division, refused
    naming the pair."""
    image = make_image("RGBA", (37, 19)).convert(source)
    lazy = Image.from_pil(image).convert(target)
    if target != "F":
        assert_image_equal(_gpu(lazy), image.convert(target))
        return
    with pytest.raises(Unsupported) as info:
        _gpu(lazy)
    assert f"{source} -> {target}" in info.value.why
    assert 'convert("L")' in info.value.fix


KEYS = [0, 1, 44, 255, 256, 300, 65535, -1]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("target", ["LA", "RGBA"])
@pytest.mark.parametrize("source", ["I;16", "I"])
def test_transparency_to_alpha_matches_pillow(source: str, target: str, key: int) -> None:
    """Pillow's convert_transparent keys the clipped gray on the key's low byte (300 keys
    44, -1 keys 255); the pixels below hold every such value."""
    image = wide_image(source, (37, 19))
    values = np.frombuffer(image.tobytes(), "<u2" if source == "I;16" else "<i4").copy()
    special = [0, 1, 44, 255, 256, 300, 65535]
    special += [] if source == "I;16" else [-1, -300, 2**31 - 1]
    values[: len(special)] = special
    values[len(special) :: 5] = key if source == "I" or 0 <= key <= 65535 else 0
    image = PILImage.frombytes(source, image.size, values.tobytes())
    image.info["transparency"] = key
    expected = image.convert(target)
    got = _gpu(Image.from_pil(image).convert(target))
    assert_image_equal(got, expected)
    assert got.info == expected.info


@pytest.mark.parametrize("target", ["LA", "RGBA"])
@pytest.mark.parametrize("source", ["I;16B", "I;16L", "F"])
def test_transparency_to_alpha_of_other_wide_modes_is_refused(source: str, target: str) -> None:
    image = wide_image(source, (5, 3))
    image.info["transparency"] = 256
    with pytest.raises(Unsupported, match="transparency"):
        _gpu(Image.from_pil(image).convert(target))


@pytest.mark.parametrize("source", ["I;16", "I"])
def test_transparency_to_a_mode_without_alpha_converts(source: str) -> None:
    image = wide_image(source, (5, 3))
    image.info["transparency"] = 256
    assert_image_equal(_gpu(Image.from_pil(image).convert("RGB")), image.convert("RGB"))


# -- copies: transpose, crop, expand, paste, putpixel, resize NEAREST ----------------------------
METHODS = list(PILImage.Transpose)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
@pytest.mark.parametrize("mode", WIDE)
def test_transpose(mode: str, method: PILImage.Transpose, size: tuple[int, int]) -> None:
    image = wide_image(mode, size)
    assert_image_equal(_gpu(Image.from_pil(image).transpose(method)), image.transpose(method))


BOXES = {"inside": (2, 3, 10, 9), "overhanging": (-3, -2, 40, 22), "outside": (50, 40, 55, 44)}


@pytest.mark.parametrize("box", list(BOXES.values()), ids=list(BOXES))
@pytest.mark.parametrize("mode", WIDE)
def test_crop(mode: str, box: tuple[int, int, int, int]) -> None:
    image = wide_image(mode, (37, 19))
    assert_image_equal(_gpu(Image.from_pil(image).crop(box)), image.crop(box))


FILLS = {"zero": 0, "byte": 200, "over-byte": 300, "over-16-bit": 70000, "negative": -5}


@pytest.mark.parametrize("fill", list(FILLS.values()), ids=list(FILLS))
@pytest.mark.parametrize("mode", WIDE)
def test_expand_fills_with_pillows_converted_colour(mode: str, fill: int) -> None:
    image = wide_image(mode, (37, 19))
    expected = PILImageOps.expand(image, (1, 2, 3, 4), fill)
    assert_image_equal(_gpu(ImageOps.expand(Image.from_pil(image), (1, 2, 3, 4), fill)), expected)


def test_expand_with_a_float_fill() -> None:
    image = wide_image("F", (9, 7))
    expected = PILImageOps.expand(image, 2, 1.5)
    assert_image_equal(_gpu(ImageOps.expand(Image.from_pil(image), 2, 1.5)), expected)


OFFSETS = {"origin": (0, 0), "inside": (4, 5), "negative": (-3, -4), "overhang": (30, 15)}


@pytest.mark.parametrize("offset", list(OFFSETS.values()), ids=list(OFFSETS))
@pytest.mark.parametrize("mode", WIDE)
def test_paste_same_mode(mode: str, offset: tuple[int, int]) -> None:
    base, patch = wide_image(mode, (37, 19), 0), wide_image(mode, (11, 9), 1)
    expected = base.copy()
    expected.paste(patch, offset)
    lazy = Image.from_pil(base)
    lazy.paste(Image.from_pil(patch), offset)
    assert_image_equal(_gpu(lazy), expected)


@pytest.mark.parametrize("mode", WIDE)
def test_paste_of_a_colour(mode: str) -> None:
    base = wide_image(mode, (37, 19))
    expected = base.copy()
    expected.paste(300, (2, 3, 20, 10))  # 16-bit: Pillow stores 0x2C2C, the low byte twice
    lazy = Image.from_pil(base)
    lazy.paste(300, (2, 3, 20, 10))
    assert_image_equal(_gpu(lazy), expected)


VALUES = {"zero": 0, "byte": 255, "over-byte": 4660, "max-16": 65535, "negative": -7}
PUTPIXELS = [(m, v) for m in WIDE for v in VALUES.values()] + [("F", 2.75), ("F", -1e30)]


@pytest.mark.parametrize(("mode", "value"), PUTPIXELS, ids=[f"{m}-{v}" for m, v in PUTPIXELS])
def test_putpixel(mode: str, value: float) -> None:
    base = wide_image(mode, (7, 5))
    expected = base.copy()
    expected.putpixel((3, 2), value)
    lazy = Image.from_pil(base)
    lazy.putpixel((3, 2), value)
    assert_image_equal(_gpu(lazy), expected)


RESIZES = {
    "down": ((13, 7), None),
    "up": ((80, 45), None),
    "box": ((20, 10), (2.5, 1.25, 30.0, 17.5)),
}


@pytest.mark.parametrize("case", list(RESIZES.values()), ids=list(RESIZES))
@pytest.mark.parametrize("mode", WIDE)
def test_resize_nearest(mode: str, case: tuple) -> None:
    size, box = case
    image = wide_image(mode, (37, 19))
    nearest = PILImage.Resampling.NEAREST
    expected = image.resize(size, nearest, box)
    assert_image_equal(_gpu(Image.from_pil(image).resize(size, nearest, box)), expected)


@pytest.mark.parametrize("mode", WIDE)
def test_same_size_resize_is_a_copy_for_any_filter(mode: str) -> None:
    image = wide_image(mode, (37, 19))
    assert_image_equal(_gpu(Image.from_pil(image).resize((37, 19))), image.resize((37, 19)))


@pytest.mark.parametrize("mode", WIDE)
def test_new_and_round_trip_keep_pillows_stored_bytes(mode: str) -> None:
    assert_image_equal(_gpu(Image.new(mode, (37, 19), 300)), PILImage.new(mode, (37, 19), 300))
    image = wide_image(mode, (300, 7))
    assert_image_equal(_gpu(Image.from_pil(image).crop((0, 0, 300, 7))), image)
