"""GPU parity for ImageOps.contain/cover/fit/pad/scale and Image.thumbnail (resize routes)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

R = PILImage.Resampling
_Size = tuple[int, int]
# every native mode once, each with another filter, so all six resize filters are covered
MODE_METHODS = [
    ("L", R.LANCZOS),
    ("LA", R.BICUBIC),
    ("RGB", R.BILINEAR),
    ("RGBA", R.BOX),
    ("CMYK", R.HAMMING),
    ("RGBX", R.NEAREST),
]
MODE_METHOD_IDS = [f"{mode}-{method.name}" for mode, method in MODE_METHODS]
SOURCES = [(19, 17), (65, 33)]
SOURCE_IDS = [f"{w}x{h}" for w, h in SOURCES]
TARGETS = {"square-8x8": (8, 8), "wide-40x10": (40, 10), "tall-7x30": (7, 30), "up-90x50": (90, 50)}
HELPERS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "contain": (ImageOps.contain, PILImageOps.contain),
    "cover": (ImageOps.cover, PILImageOps.cover),
    "fit": (ImageOps.fit, PILImageOps.fit),
    "pad": (ImageOps.pad, PILImageOps.pad),
}


def _thumbnailed(image: Image.Image, *args: Any, **kwargs: Any) -> Image.Image:
    """``image`` after ``image.thumbnail(...)``, which changes it in place as in Pillow."""
    assert image.thumbnail(*args, **kwargs) is None
    return image


def _gpu_matches(
    source: PILImage.Image, ours: Callable[[Any], Any], pil: Callable[[Any], Any]
) -> None:
    assert_image_equal(evaluate(ours(Image.from_pil(source))), pil(source))


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("src", SOURCES, ids=SOURCE_IDS)
@pytest.mark.parametrize(("mode", "method"), MODE_METHODS, ids=MODE_METHOD_IDS)
@pytest.mark.parametrize("helper", list(HELPERS))
def test_resize_helper_matches_pillow(
    helper: str, mode: str, method: int, src: _Size, target: str
) -> None:
    ours, pil = HELPERS[helper]
    size = TARGETS[target]
    _gpu_matches(
        make_image(mode, src), lambda im: ours(im, size, method), lambda im: pil(im, size, method)
    )


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("src", SOURCES, ids=SOURCE_IDS)
@pytest.mark.parametrize(("mode", "method"), MODE_METHODS, ids=MODE_METHOD_IDS)
def test_thumbnail_matches_pillow(mode: str, method: int, src: _Size, target: str) -> None:
    source = make_image(mode, src)
    expected = source.copy()
    expected.thumbnail(TARGETS[target], method)
    assert_image_equal(
        evaluate(_thumbnailed(Image.from_pil(source), TARGETS[target], method)), expected
    )


GAPS = {"no-gap": None, "gap-1.5": 1.5, "gap-2-default": 2.0, "gap-3": 3.0}


@pytest.mark.parametrize("gap", list(GAPS))
@pytest.mark.parametrize(("mode", "method"), MODE_METHODS, ids=MODE_METHOD_IDS)
def test_thumbnail_reducing_gap_matches_pillow(mode: str, method: int, gap: str) -> None:
    source = make_image(mode, (130, 97))
    expected = source.copy()
    expected.thumbnail((20, 20), method, GAPS[gap])
    lazy = _thumbnailed(Image.from_pil(source), (20, 20), method, GAPS[gap])
    assert_image_equal(evaluate(lazy), expected)


CENTERINGS = {
    "center": (0.5, 0.5),
    "top-left": (0.0, 0.0),
    "bottom-right": (1.0, 1.0),
    "off-center": (0.2, 0.9),
    "out-of-range": (1.5, -0.2),
}
BLEEDS = {"no-bleed": 0.0, "bleed-0.1": 0.1, "bleed-0.37": 0.37, "bleed-too-large": 0.5}


@pytest.mark.parametrize("bleed", list(BLEEDS))
@pytest.mark.parametrize("centering", list(CENTERINGS))
@pytest.mark.parametrize("target", ["wide-40x10", "tall-7x30"])
@pytest.mark.parametrize(("mode", "method"), MODE_METHODS[:3], ids=MODE_METHOD_IDS[:3])
def test_fit_centering_and_bleed_match_pillow(
    mode: str, method: int, target: str, centering: str, bleed: str
) -> None:
    size, where, trim = TARGETS[target], CENTERINGS[centering], BLEEDS[bleed]
    _gpu_matches(
        make_image(mode, (65, 33)),
        lambda im: ImageOps.fit(im, size, method, trim, where),
        lambda im: PILImageOps.fit(im, size, method, trim, where),
    )


# each mode's colour forms: None, int, the mode's tuple, a colour name, #rrggbbaa
TUPLES = {
    "L": (7,),
    "LA": (7, 200),
    "RGB": (10, 20, 30),
    "RGBA": (10, 20, 30, 40),
    "CMYK": (10, 20, 30, 40),
    "RGBX": (10, 20, 30),
}
COLOURS: dict[str, Callable[[str], Any]] = {
    "none": lambda mode: None,
    "int": lambda mode: 7,
    "tuple": TUPLES.__getitem__,
    "name": lambda mode: "red",
    "hex-alpha": lambda mode: "#11223344",
}


@pytest.mark.parametrize("centering", ["center", "top-left", "bottom-right", "out-of-range"])
@pytest.mark.parametrize("colour", list(COLOURS))
@pytest.mark.parametrize("mode", list(TUPLES))
def test_pad_colour_forms_and_centering_match_pillow(
    mode: str, colour: str, centering: str
) -> None:
    color, where = COLOURS[colour](mode), CENTERINGS[centering]
    for size in ((40, 10), (7, 30)):  # padded left/right, then top/bottom
        _gpu_matches(
            make_image(mode, (19, 17)),
            lambda im, size=size: ImageOps.pad(im, size, R.BICUBIC, color, where),
            lambda im, size=size: PILImageOps.pad(im, size, R.BICUBIC, color, where),
        )


def test_pad_keeps_the_transparency_pillow_carries_over() -> None:
    source = make_image("RGB", (19, 17))
    source.info["transparency"] = (1, 2, 3)
    expected = PILImageOps.pad(source, (40, 10), color="blue")
    result = evaluate(ImageOps.pad(Image.from_pil(source), (40, 10), color="blue"))
    assert_image_equal(result, expected)
    assert result.info["transparency"] == expected.info["transparency"] == (1, 2, 3)


FACTORS = {"half": 0.5, "third": 0.3, "up-1.7": 1.7, "one": 1}


@pytest.mark.parametrize("factor", list(FACTORS))
@pytest.mark.parametrize(("mode", "method"), MODE_METHODS, ids=MODE_METHOD_IDS)
def test_scale_matches_pillow(mode: str, method: int, factor: str) -> None:
    value = FACTORS[factor]
    _gpu_matches(
        make_image(mode, (19, 17)),
        lambda im: ImageOps.scale(im, value, method),
        lambda im: PILImageOps.scale(im, value, method),
    )


def _jpeg(mode: str, size: _Size) -> bytes:
    buffer = io.BytesIO()
    make_image(mode, size, seed=4).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


# (source size, thumbnail size, reducing_gap): Pillow's draft scale is 2, 4 or 8 in each
JPEG_CASES = {
    "draft-2-default-gap": ((200, 150), (20, 20), 2.0),
    "draft-8-gap-1": ((200, 150), (25, 19), 1.0),
    "draft-only-no-resize": ((64, 64), (8, 8), 1.0),
    "draft-2-odd-size": ((33, 17), (3, 3), 2.0),
}


@pytest.mark.parametrize("case", list(JPEG_CASES))
@pytest.mark.parametrize("mode", ["L", "RGB", "CMYK"])
def test_thumbnail_of_a_jpeg_file_decodes_with_pillows_draft(
    mode: str, case: str, tmp_path: Path
) -> None:
    src, size, gap = JPEG_CASES[case]
    path = tmp_path / "source.jpg"
    path.write_bytes(_jpeg(mode, src))
    with PILImage.open(path) as expected:
        expected.thumbnail(size, reducing_gap=gap)
        expected.load()
        lazy = _thumbnailed(Image.open(path), size, reducing_gap=gap)
        assert lazy.size == expected.size
        assert_image_equal(evaluate(lazy), expected)
        on_cpu = _thumbnailed(Image.open(path), size, reducing_gap=gap)
        assert_image_equal(on_cpu.to_pil(), expected)
        with PILImage.open(path) as undrafted:  # the same call on loaded pixels: no draft
            undrafted.load()
            undrafted.thumbnail(size, reducing_gap=gap)
            assert undrafted.tobytes() != expected.tobytes(), "the draft changed nothing here"


def test_thumbnail_of_an_evaluated_jpeg_does_not_draft_as_pillow_after_load(
    tmp_path: Path,
) -> None:
    path = tmp_path / "source.jpg"
    path.write_bytes(_jpeg("RGB", (200, 150)))
    with PILImage.open(path) as expected:
        expected.load()  # Pillow's draft does nothing once the pixels are loaded
        expected.thumbnail((20, 20))
        opened = Image.open(path)
        opened.load()
        assert_image_equal(evaluate(_thumbnailed(opened, (20, 20))), expected)


@pytest.mark.parametrize("then", ["thumbnail", "draft"])
def test_a_copy_of_an_opened_jpeg_is_loaded_and_does_not_draft(tmp_path: Path, then: str) -> None:
    """Pillow's ``copy()`` loads the file, so a thumbnail (or ``draft``) of the copy works on the
    full decode; the original handle still drafts."""
    path = tmp_path / "source.jpg"
    path.write_bytes(_jpeg("RGB", (200, 150)))

    def shrink(image: Any) -> Any:
        if then == "thumbnail":
            image.thumbnail((20, 20))
        else:
            image.draft("RGB", (25, 19))
        return image

    with PILImage.open(path) as opened:
        expected = shrink(opened.copy())
        after_copy = shrink(opened)  # the copy loaded it: no draft either
        after_copy.load()
    with PILImage.open(path) as fresh:
        drafted = shrink(fresh)
        drafted.load()
    assert expected.size != drafted.size or expected.tobytes() != drafted.tobytes()
    original = Image.open(path)
    lazy = shrink(original.copy())
    assert lazy.size == expected.size
    assert_image_equal(evaluate(lazy), expected)
    assert_image_equal(lazy.to_pil(), expected)
    assert_image_equal(evaluate(shrink(original)), after_copy)
    assert_image_equal(evaluate(shrink(Image.open(path))), drafted)


def test_an_opened_jpeg_used_before_its_thumbnail_does_not_draft(tmp_path: Path) -> None:
    """Pillow's operations load the file, and a loaded image's thumbnail works on the full
    decode: an operation recorded on the handle first stands for that load."""
    path = tmp_path / "source.jpg"
    path.write_bytes(_jpeg("RGB", (200, 150)))
    with PILImage.open(path) as expected:
        expected.rotate(90)
        expected.thumbnail((20, 20))
        lazy = Image.open(path)
        lazy.rotate(90)
        lazy.thumbnail((20, 20))
        assert_image_equal(evaluate(lazy), expected)


def test_executor_runs_jpeg_and_pil_thumbnails_like_pillow(tmp_path: Path) -> None:
    path = tmp_path / "source.jpg"
    path.write_bytes(_jpeg("RGB", (200, 150)))
    with PILImage.open(path) as drafted:
        drafted.thumbnail((30, 30))
        drafted.load()
        source = make_image("RGBA", (65, 33))
        expected = {"jpeg": drafted, "fit": PILImageOps.fit(source, (16, 16), R.LANCZOS)}
        jobs = [
            ("jpeg", _thumbnailed(Image.open(path), (30, 30))),
            ("fit", ImageOps.fit(Image.from_pil(source), (16, 16), R.LANCZOS)),
        ]
        with GpuBatchExecutor() as executor:
            results = {result.input_key: result.image for result in executor.run(jobs)}
        for key, image in expected.items():
            assert_image_equal(results[key], image)
