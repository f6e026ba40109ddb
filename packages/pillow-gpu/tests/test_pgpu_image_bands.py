"""Band operations, Sharpness and colorize on the CPU path: argument errors and wide modes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageEnhance, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image


def _pil(mode: str = "RGB", size: tuple[int, int] = (8, 6)) -> PILImage.Image:
    return PILImage.new(mode, size)


def _ours(mode: str = "RGB", size: tuple[int, int] = (8, 6)) -> Image.Image:
    return Image.new(mode, size)


def _merge_ours(mode: str, *bands: tuple[str, tuple[int, int]] | int) -> Any:
    return Image.merge(mode, [b if isinstance(b, int) else _ours(*b) for b in bands])  # type: ignore[list-item]


def _merge_pil(mode: str, *bands: tuple[str, tuple[int, int]] | int) -> Any:
    return PILImage.merge(mode, [b if isinstance(b, int) else _pil(*b) for b in bands])  # type: ignore[list-item]


L86, L33 = ("L", (8, 6)), ("L", (3, 3))

# name -> (our call, the same call on live Pillow)
ARGUMENT_ERRORS: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
    "merge-unknown-mode": (lambda: _merge_ours("XYZ", L86), lambda: _merge_pil("XYZ", L86)),
    "merge-too-few-bands": (
        lambda: _merge_ours("RGB", L86, L86),
        lambda: _merge_pil("RGB", L86, L86),
    ),
    "merge-no-bands": (lambda: _merge_ours("L"), lambda: _merge_pil("L")),
    "merge-size-mismatch": (
        lambda: _merge_ours("RGB", L86, L86, L33),
        lambda: _merge_pil("RGB", L86, L86, L33),
    ),
    "merge-rgb-second-band": (
        lambda: _merge_ours("RGB", L86, ("RGB", (8, 6)), L86),
        lambda: _merge_pil("RGB", L86, ("RGB", (8, 6)), L86),
    ),
    "merge-rgb-first-band": (
        lambda: _merge_ours("RGB", ("RGB", (8, 6)), L86, L86),
        lambda: _merge_pil("RGB", ("RGB", (8, 6)), L86, L86),
    ),
    "merge-int-band": (lambda: _merge_ours("LA", L86, 5), lambda: _merge_pil("LA", L86, 5)),
    "merge-into-mode-I": (lambda: _merge_ours("I", L86), lambda: _merge_pil("I", L86)),
    "putalpha-rgb-alpha": (
        lambda: _ours().putalpha(_ours("RGB")),
        lambda: _pil().putalpha(_pil("RGB")),
    ),
    "putalpha-size-mismatch": (
        lambda: _ours().putalpha(_ours("L", (3, 3))),
        lambda: _pil().putalpha(_pil("L", (3, 3))),
    ),
    "putalpha-mode-I": (lambda: _ours("I").putalpha(9), lambda: _pil("I").putalpha(9)),
    "putalpha-mode-YCbCr": (lambda: _ours("YCbCr").putalpha(9), lambda: _pil("YCbCr").putalpha(9)),
    "putalpha-float": (lambda: _ours().putalpha(1.5), lambda: _pil().putalpha(1.5)),  # type: ignore[arg-type]
    "putalpha-huge-int": (lambda: _ours().putalpha(2**40), lambda: _pil().putalpha(2**40)),
    "sharpness-palette": (
        lambda: ImageEnhance.Sharpness(_ours("P")),
        lambda: PILImageEnhance.Sharpness(_pil("P")),
    ),
    "sharpness-mode-I": (
        lambda: ImageEnhance.Sharpness(_ours("I")).enhance(0.5),
        lambda: PILImageEnhance.Sharpness(_pil("I")).enhance(0.5),
    ),
    "sharpness-string-factor": (
        lambda: ImageEnhance.Sharpness(_ours()).enhance("x"),  # type: ignore[arg-type]
        lambda: PILImageEnhance.Sharpness(_pil()).enhance("x"),  # type: ignore[arg-type]
    ),
    "colorize-rgb": (
        lambda: ImageOps.colorize(_ours(), "black", "white"),
        lambda: PILImageOps.colorize(_pil(), "black", "white"),
    ),
    "colorize-blackpoint-above-whitepoint": (
        lambda: ImageOps.colorize(_ours("L"), "black", "white", None, 10, 5),
        lambda: PILImageOps.colorize(_pil("L"), "black", "white", None, 10, 5),
    ),
    "colorize-midpoint-outside": (
        lambda: ImageOps.colorize(_ours("L"), "black", "white", "red", 10, 50, 60),
        lambda: PILImageOps.colorize(_pil("L"), "black", "white", "red", 10, 50, 60),
    ),
    "colorize-unknown-colour": (
        lambda: ImageOps.colorize(_ours("L"), "nocolor", "white"),
        lambda: PILImageOps.colorize(_pil("L"), "nocolor", "white"),
    ),
    "colorize-int-mid": (
        lambda: ImageOps.colorize(_ours("L"), "black", "white", 5),
        lambda: PILImageOps.colorize(_pil("L"), "black", "white", 5),
    ),
    "colorize-short-tuple": (
        lambda: ImageOps.colorize(_ours("L"), (1, 2), (3, 4, 5)),
        lambda: PILImageOps.colorize(_pil("L"), (1, 2), (3, 4, 5)),
    ),
}


@pytest.mark.parametrize("name", list(ARGUMENT_ERRORS))
def test_argument_errors_match_pillow(name: str) -> None:
    ours, theirs = ARGUMENT_ERRORS[name]
    with pytest.raises(Exception) as expected:  # noqa: PT011 - the type is what is compared
        theirs()
    with pytest.raises(type(expected.value)) as observed:
        ours()
    assert str(observed.value) == str(expected.value)


WIDE_MODES = ["1", "P", "PA", "I", "F", "I;16", "YCbCr", "HSV", "La", "RGBa"]


def _wide_image(mode: str, size: tuple[int, int] = (7, 5)) -> PILImage.Image:
    """A random image in ``mode``: raw bytes where no conversion reaches the mode."""
    if mode in ("La", "PA"):
        return PILImage.frombytes(mode, size, make_image("LA", size).tobytes())
    if mode == "RGBa":
        return PILImage.frombytes(mode, size, make_image("RGBA", size).tobytes())
    return make_image("RGBA", size).convert(mode)


@pytest.mark.parametrize("mode", WIDE_MODES)
def test_split_and_merge_on_the_cpu_match_pillow(mode: str) -> None:
    source = _wide_image(mode)
    lazy = Image.from_pil(source)
    assert lazy.getbands() == source.getbands()
    bands = lazy.split()
    expected = source.split()
    assert [band.mode for band in bands] == [band.mode for band in expected]
    for band, pil_band in zip(bands, expected, strict=True):
        assert_image_equal(band.to_pil(), pil_band)
    if len(expected) > 1:
        assert_image_equal(Image.merge(mode, bands).to_pil(), PILImage.merge(mode, expected))


@pytest.mark.parametrize("mode", ["1", "P", "PA", "La", "RGBa", "CMYK", "RGBX", "LA"])
def test_putalpha_on_the_cpu_matches_pillow(mode: str) -> None:
    source = _wide_image(mode)
    alpha = make_image("L", (7, 5), seed=2)
    for value in (alpha, 99):
        expected = source.copy()
        expected.putalpha(value)
        lazy = Image.from_pil(source)
        assert lazy.putalpha(value) is None  # in place, as Pillow; a PIL alpha is wrapped
        assert lazy.mode == expected.mode
        assert_image_equal(lazy.to_pil(), expected)


def test_merge_takes_pil_bands_and_the_first_band_info() -> None:
    first = make_image("L", (5, 4), seed=1)
    first.info["dpi"] = (72, 72)
    second = make_image("L", (5, 4), seed=2)
    lazy = Image.merge("LA", [first, Image.from_pil(second)])
    expected = PILImage.merge("LA", [first, second])
    assert lazy.info == expected.info == {"dpi": (72, 72)}
    assert_image_equal(lazy.to_pil(), expected)


def test_sharpness_on_a_wide_mode_runs_on_the_cpu() -> None:
    source = make_image("RGB", (9, 7)).convert("YCbCr")
    lazy = ImageEnhance.Sharpness(Image.from_pil(source)).enhance(1.7)
    assert_image_equal(lazy.to_pil(), PILImageEnhance.Sharpness(source).enhance(1.7))


@pytest.mark.parametrize("mode", ["YCbCr", "HSV"])
def test_contrast_on_a_wide_mode_runs_on_the_cpu(mode: str) -> None:
    source = make_image("RGB", (9, 7)).convert(mode)
    lazy = ImageEnhance.Contrast(Image.from_pil(source)).enhance(1.7)
    assert "Contrast" in ImageEnhance.__all__
    assert_image_equal(lazy.to_pil(), PILImageEnhance.Contrast(source).enhance(1.7))


def test_contrast_rejects_what_pillow_rejects_when_recorded() -> None:
    source = Image.from_pil(PILImage.new("LAB", (3, 2)))
    with pytest.raises(ValueError, match="conversion from LAB to RGB not supported"):
        ImageEnhance.Contrast(source)
    contrast = ImageEnhance.Contrast(Image.from_pil(PILImage.new("I", (3, 2))))
    with pytest.raises(ValueError, match="image has wrong mode"):  # Pillow's blend refuses I
        contrast.enhance(0.5)
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        ImageEnhance.Nope  # type: ignore[attr-defined]  # noqa: B018


@pytest.mark.parametrize("channel", [0, "own-name"], ids=["index", "name"])
@pytest.mark.parametrize("mode", ["1", "L", "P"])
def test_a_one_band_image_s_channel_is_a_copy_in_its_own_mode(mode: str, channel: Any) -> None:
    source = make_image("RGB", (9, 7), seed=4).convert(mode)
    source.info["comment"] = b"kept"
    name = source.getbands()[0] if channel == "own-name" else channel
    expected = source.getchannel(name)
    lazy = Image.from_pil(source).getchannel(name)
    assert (lazy.mode, lazy.getbands(), lazy.getpalette()) == (
        expected.mode,
        expected.getbands(),
        expected.getpalette(),
    )
    assert lazy.info == expected.info
    assert_image_equal(lazy.to_pil(), expected)
    # What follows starts from Pillow's mode: a P band converts through its palette.
    assert_image_equal(lazy.convert("RGB").to_pil(), expected.convert("RGB"))
