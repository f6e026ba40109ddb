"""The lazy Image API: metadata without evaluation, caching, sharing, Pillow's exceptions."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageEnhance, ImageFilter, ImageOps
from pillow_gpu._pillow_memory import SNAPSHOT_RAWMODES
from pillow_gpu._testing import assert_image_equal, make_image


def _saved(tmp_path: Path, mode: str = "RGB", size: tuple[int, int] = (12, 9)) -> Path:
    path = tmp_path / f"source-{mode}.png"
    image = make_image(mode, size)
    image.info["note"] = "kept"
    image.save(path)
    return path


def test_metadata_never_evaluates(tmp_path: Path) -> None:
    opened = Image.open(_saved(tmp_path))
    lazy = ImageOps.expand(opened.transpose(Image.ROTATE_90), (1, 2, 3, 4)).convert("L")
    assert (lazy.mode, lazy.size, lazy.width, lazy.height) == ("L", (13, 18), 13, 18)
    assert isinstance(lazy.info, dict)
    assert not lazy.is_evaluated
    assert opened.node.cache.get() is None  # header only, nothing decoded


def test_info_is_the_handles_own_dict() -> None:
    source = make_image("L", (2, 2))
    source.info["dpi"] = (72, 72)
    lazy = Image.from_pil(source)
    lazy.info["dpi"] = (1, 1)
    assert lazy.info == {"dpi": (1, 1)}  # kept, as Pillow's image keeps it
    assert source.info == {"dpi": (72, 72)}  # from_pil copied it


def test_open_save_roundtrip_and_cache_is_not_replayed(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    reference = PILImage.open(path)
    lazy = ImageChops.invert(Image.open(path))
    out = tmp_path / "out.png"
    lazy.save(out)
    assert lazy.is_evaluated
    path.unlink()  # a replay would have to decode the file again
    assert lazy.tobytes() == PILImageChops.invert(reference).tobytes()
    follow_up = lazy.transpose(Image.FLIP_TOP_BOTTOM)
    assert_image_equal(
        follow_up.to_pil(),
        PILImageChops.invert(reference).transpose(PILImage.Transpose.FLIP_TOP_BOTTOM),
    )
    # PNG does not store RGB padding: compare the bands only.
    assert PILImage.open(out).tobytes() == PILImageChops.invert(reference).tobytes()


def test_open_from_a_file_object() -> None:
    buffer = io.BytesIO()
    make_image("RGBA", (5, 4)).save(buffer, "PNG")
    buffer.seek(0)
    lazy = Image.open(buffer)
    assert (lazy.mode, lazy.size) == ("RGBA", (5, 4))
    assert_image_equal(lazy.to_pil(), make_image("RGBA", (5, 4)))


@pytest.mark.parametrize(
    "source",
    [
        lambda path: path,  # a directory
        lambda path: path / "missing.png",
        lambda path: str(path / "a\x00b.png"),
        lambda path: io.BytesIO(b""),
        lambda path: io.BytesIO(b"not an image at all"),
        lambda path: (path / "text.txt").open(encoding="utf-8"),  # a text-mode file
        lambda path: None,
    ],
    ids=["directory", "missing", "nul-byte", "empty", "not-an-image", "text-mode", "none"],
)
def test_open_raises_what_pillow_raises(source: Callable[[Path], Any], tmp_path: Path) -> None:
    (tmp_path / "text.txt").write_text("not an image\n", encoding="utf-8")
    argument = source(tmp_path)  # one object for both: a file object's repr is in the message
    errors = []
    for module in (PILImage, Image):
        with pytest.raises(Exception) as raised:  # noqa: PT011 - the type is the comparison
            module.open(argument)
        errors.append(raised.value)
    if isinstance(argument, io.IOBase):
        argument.close()
    assert type(errors[1]) is type(errors[0])
    assert str(errors[1]) == str(errors[0])


class _Unseekable(io.RawIOBase):
    """A stream that reads forward only, as a pipe or a socket does."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def _rewound(buffer: io.BytesIO) -> io.BytesIO:
    buffer.seek(0)
    return buffer


def _sniffed(buffer: io.BytesIO) -> io.BytesIO:
    buffer.seek(0)
    buffer.read(8)  # a caller that checked the signature first
    return buffer


@pytest.mark.parametrize(
    "position",
    [_rewound, _sniffed, lambda buffer: buffer, lambda buffer: _Unseekable(buffer.getvalue())],
    ids=["rewound", "after-reading-the-signature", "written-not-rewound", "unseekable-stream"],
)
@pytest.mark.parametrize("file_format", ["PNG", "JPEG", "TIFF"])
def test_open_reads_a_file_object_from_where_pillow_does(
    position: Callable[[io.BytesIO], Any], file_format: str
) -> None:
    # Pillow reads a seekable file object from its start, wherever its position stands (a
    # caller that saved into a buffer and did not rewind it gets the image); a forward-only
    # stream from where it stands.
    expected = make_image("RGB", (7, 5))
    written = io.BytesIO()
    expected.save(written, file_format)
    opened = [module.open(position(written)) for module in (PILImage, Image)]
    assert (opened[1].format, opened[1].mode, opened[1].size) == (
        opened[0].format,
        opened[0].mode,
        opened[0].size,
    )
    assert_image_equal(opened[1].rotate(30).to_pil(), opened[0].rotate(30))


def test_open_of_a_stream_past_its_image_raises_what_pillow_raises() -> None:
    written = io.BytesIO()
    make_image("L", (4, 4)).save(written, "PNG")
    errors = []
    for module in (PILImage, Image):
        stream = _Unseekable(written.getvalue())
        stream.read(8)  # forward-only: the signature is gone
        with pytest.raises(PILImage.UnidentifiedImageError) as raised:
            module.open(stream)
        errors.append(str(raised.value).rsplit(" at 0x", 1)[0])  # a copy of its bytes is named
    assert errors[1] == errors[0]


def test_to_pil_returns_independent_copies() -> None:
    lazy = Image.new("L", (3, 3), 5)
    first = lazy.to_pil()
    first.putpixel((0, 0), 200)
    assert lazy.to_pil().getpixel((0, 0)) == 5


def test_from_pil_snapshots_the_source() -> None:
    source = make_image("RGB", (3, 3))
    expected = source.copy()
    lazy = Image.from_pil(source)
    source.putpixel((0, 0), (1, 2, 3))
    assert_image_equal(lazy.to_pil(), expected)


def _other(image: PILImage.Image, xy: tuple[int, int]) -> Any:
    """A value unlike the pixel at ``xy`` (each band moved by one; a bilevel pixel flipped)."""
    value = image.getpixel(xy)
    if image.mode == "1":
        return 0 if value else 255
    if isinstance(value, tuple):
        return tuple((band + 1) % 256 for band in value)
    return value + 1 if image.mode in ("I", "F", "I;16") and value < 60000 else (value + 1) % 256


#: Changes a user may make to a PIL image after recording from it.
SOURCE_CHANGES = {
    "putpixel": lambda im: im.putpixel((0, 0), _other(im, (0, 0))),
    "paste": lambda im: im.paste(_other(im, (0, 0)), (0, 0, 3, 2)),
    "pixel-access": lambda im: im.load().__setitem__((2, 1), _other(im, (2, 1))),
    "frombytes": lambda im: im.frombytes(bytes(255 - b for b in im.tobytes())),
}
SNAPSHOT_MODES = ["L", "RGB", "RGBA", "I;16", "I", "F", "CMYK", "P", "1", "LA"]


def _source(mode: str, size: tuple[int, int]) -> PILImage.Image:
    rng = np.random.default_rng(7)
    pixels = size[0] * size[1]
    if mode == "I;16":
        return PILImage.frombytes(mode, size, rng.integers(0, 2**16, pixels, np.uint16).tobytes())
    if mode == "I":
        data = rng.integers(-(2**31), 2**31, pixels, np.int32).astype("<i4").tobytes()
        return PILImage.frombytes(mode, size, data, "raw", "I;32")
    if mode == "F":
        data = rng.standard_normal(pixels).astype("<f4").tobytes()
        return PILImage.frombytes(mode, size, data, "raw", "F;32F")
    return make_image(mode, size)


@pytest.mark.parametrize("change", list(SOURCE_CHANGES))
@pytest.mark.parametrize("mode", SNAPSHOT_MODES)
def test_from_pil_keeps_the_pixels_of_the_call(mode: str, change: str) -> None:
    source = _source(mode, (7, 5))
    expected = source.copy()
    lazy = Image.from_pil(source)
    SOURCE_CHANGES[change](source)
    assert source.tobytes() != expected.tobytes(), "the change must change the source"
    assert ("stored" in lazy.node.params) == (mode in SNAPSHOT_RAWMODES)
    assert_image_equal(lazy.to_pil(), expected)
    assert_image_equal(
        lazy.transpose(Image.FLIP_LEFT_RIGHT).to_pil(),
        expected.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT),
    )


@pytest.mark.parametrize("mode", ["L", "RGBA"])  # fromarray shares the array's memory
def test_from_pil_of_shared_numpy_memory_keeps_the_pixels_of_the_call(mode: str) -> None:
    bands = PILImage.getmodebands(mode)
    pixels = np.arange(6 * 9 * bands, dtype=np.uint8).reshape((6, 9, bands)).squeeze()
    shared = PILImage.fromarray(pixels, mode)
    expected = shared.copy()
    lazy = Image.from_pil(shared).transpose(Image.FLIP_LEFT_RIGHT)
    pixels[:] = 255 - pixels
    assert shared.tobytes() != expected.tobytes(), "the source must follow its array"
    executor = GpuBatchExecutor()
    try:
        (result,) = list(executor.run([(0, lazy)]))
    finally:
        executor.close()
    assert_image_equal(result.image, expected.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT))


def test_load_caches_and_frombytes_matches_pillow() -> None:
    data = bytes(range(24))
    lazy = Image.frombytes("RGB", (4, 2), data)
    assert_image_equal(lazy.to_pil(), PILImage.frombytes("RGB", (4, 2), data))
    chained = ImageOps.invert(lazy)
    chained.load()
    assert chained.is_evaluated


def test_shared_sources_are_shared_not_copied() -> None:
    base = Image.from_pil(make_image("RGB", (5, 5)))
    left = ImageOps.invert(base)
    right = base.transpose(Image.ROTATE_90)
    combined = ImageChops.multiply(left, right)
    assert combined.node.inputs[0].inputs[0] is combined.node.inputs[1].inputs[0] is base.node
    assert combined.node.inputs == (left.node, right.node)


def test_in_place_edits_leave_copies_and_earlier_results_alone() -> None:
    base = Image.new("RGB", (4, 4), (1, 2, 3))
    inverted = ImageOps.invert(base)  # recorded on base's node before the edits
    pasted = base.copy()
    assert pasted is not base
    assert pasted.node is base.node
    assert pasted.paste(Image.new("RGB", (2, 2), (9, 9, 9)), (1, 1)) is None
    pixel = base.copy()
    assert pixel.putpixel((0, 0), (7, 7, 7)) is None
    assert base.to_pil().getpixel((1, 1)) == (1, 2, 3)
    assert inverted.to_pil().getpixel((1, 1)) == (254, 253, 252)
    assert pasted.to_pil().getpixel((1, 1)) == (9, 9, 9)
    assert pixel.to_pil().getpixel((0, 0)) == (7, 7, 7)


def test_cpu_evaluation_matches_pillow_for_a_chain() -> None:
    source = make_image("RGBA", (19, 17))
    lazy = (
        ImageEnhance.Color(Image.from_pil(source))
        .enhance(0.4)
        .filter(ImageFilter.GaussianBlur(1.5))
        .resize((7, 9), Image.NEAREST)
    )
    expected = (
        PILImageEnhance.Color(source)
        .enhance(0.4)
        .filter(PILImageFilter.GaussianBlur(1.5))
        .resize((7, 9), PILImage.Resampling.NEAREST)
    )
    assert_image_equal(lazy.to_pil(), expected)


@pytest.mark.parametrize("mode", ["I", "F"])
def test_point_callable_on_wide_modes_is_pillows_linear_transform(mode: str) -> None:
    source = make_image("L", (5, 4)).convert(mode)
    lazy = Image.from_pil(source).point(lambda v: v * 2 + 3)
    assert_image_equal(lazy.to_pil(), source.point(lambda v: v * 2 + 3))


def test_masked_paste_evaluates_on_the_cpu() -> None:
    base, patch = make_image("RGB", (6, 6), 1), make_image("RGB", (3, 3), 2)
    mask = make_image("L", (3, 3), 3)
    expected = base.copy()
    expected.paste(patch, (2, 1), mask)
    lazy = Image.from_pil(base)
    lazy.paste(Image.from_pil(patch), (2, 1), Image.from_pil(mask))
    assert_image_equal(lazy.to_pil(), expected)


def _pil(mode: str = "RGB", size: tuple[int, int] = (8, 6)) -> PILImage.Image:
    return PILImage.new(mode, size)


def _ours(mode: str = "RGB", size: tuple[int, int] = (8, 6)) -> Image.Image:
    return Image.new(mode, size)


# name -> (our call, the same call on live Pillow)
ARGUMENT_ERRORS: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
    "bad-mode-new": (lambda: Image.new("XYZ", (2, 2)), lambda: PILImage.new("XYZ", (2, 2))),
    "negative-size-new": (lambda: Image.new("L", (-1, 2)), lambda: PILImage.new("L", (-1, 2))),
    "bad-convert-mode": (lambda: _ours().convert("XYZ"), lambda: _pil().convert("XYZ")),
    "invert-rgba": (
        lambda: ImageOps.invert(_ours("RGBA")),
        lambda: PILImageOps.invert(_pil("RGBA")),
    ),
    "solarize-la": (
        lambda: ImageOps.solarize(_ours("LA")),
        lambda: PILImageOps.solarize(_pil("LA")),
    ),
    "posterize-bits-0": (
        lambda: ImageOps.posterize(_ours(), 0),
        lambda: PILImageOps.posterize(_pil(), 0),
    ),
    "even-median": (
        lambda: _ours("L").filter(ImageFilter.MedianFilter(4)),
        lambda: _pil("L").filter(PILImageFilter.MedianFilter(4)),
    ),
    "filter-palette": (
        lambda: _ours("P").filter(ImageFilter.BoxBlur(1)),
        lambda: _pil("P").filter(PILImageFilter.BoxBlur(1)),
    ),
    "point-short-lut": (
        lambda: _ours("RGB").point([0] * 256),
        lambda: _pil("RGB").point([0] * 256),
    ),
    "chops-band-mismatch": (
        lambda: ImageChops.multiply(_ours("RGB"), _ours("L")),
        lambda: PILImageChops.multiply(_pil("RGB"), _pil("L")),
    ),
    "blend-size-mismatch": (
        lambda: ImageChops.blend(_ours(), _ours("RGB", (3, 3)), 0.5),
        lambda: PILImage.blend(_pil(), _pil("RGB", (3, 3)), 0.5),
    ),
    "blend-mode-mismatch": (
        lambda: ImageChops.blend(_ours(), _ours("RGBA"), 0.5),
        lambda: PILImage.blend(_pil(), _pil("RGBA"), 0.5),
    ),
    "getchannel-bad-band": (lambda: _ours().getchannel("A"), lambda: _pil().getchannel("A")),
    "getchannel-bad-index": (lambda: _ours().getchannel(5), lambda: _pil().getchannel(5)),
    "putpixel-out-of-range": (
        lambda: _ours().putpixel((8, 0), (1, 2, 3)),
        lambda: _pil().putpixel((8, 0), (1, 2, 3)),
    ),
    "crop-right-before-left": (
        lambda: _ours().crop((5, 0, 2, 2)),
        lambda: _pil().crop((5, 0, 2, 2)),
    ),
    "resize-zero": (lambda: _ours().resize((0, 3)), lambda: _pil().resize((0, 3))),
    "resize-box-outside": (
        lambda: _ours().resize((2, 2), Image.NEAREST, (0, 0, 9, 6)),
        lambda: _pil().resize((2, 2), PILImage.Resampling.NEAREST, (0, 0, 9, 6)),
    ),
    "resize-bad-filter": (lambda: _ours().resize((2, 2), 99), lambda: _pil().resize((2, 2), 99)),
    "transpose-bad-method": (lambda: _ours().transpose(9), lambda: _pil().transpose(9)),  # type: ignore[arg-type]
    "paste-box-size": (
        lambda: _ours().paste(_ours("RGB", (2, 2)), (0, 0, 3, 3)),
        lambda: _pil().paste(_pil("RGB", (2, 2)), (0, 0, 3, 3)),
    ),
    "brightness-palette-ok-but-color-bad": (
        lambda: ImageEnhance.Color(_ours("I;16")).enhance(0.5),
        lambda: PILImageEnhance.Color(_pil("I;16")).enhance(0.5),
    ),
    "kernel-wrong-length": (
        lambda: ImageFilter.Kernel((3, 3), [1] * 8),
        lambda: PILImageFilter.Kernel((3, 3), [1] * 8),
    ),
    "kernel-4x4": (
        lambda: _ours().filter(ImageFilter.Kernel((4, 4), [1] * 16)),
        lambda: _pil().filter(PILImageFilter.Kernel((4, 4), [1] * 16)),
    ),
}


@pytest.mark.parametrize("name", list(ARGUMENT_ERRORS))
def test_argument_errors_raise_pillows_exception_type(name: str) -> None:
    ours, theirs = ARGUMENT_ERRORS[name]
    with pytest.raises(Exception) as expected:  # noqa: PT011 - the type is what is compared
        theirs()
    with pytest.raises(type(expected.value)):
        ours()
