"""An opened JPEG's, PNG's, BMP's, TGA's or other plain file's first draft and decode go on
from the header ``Image.open`` parsed (pillow_gpu._kept_header): no second parse of the file,
Pillow's pixels and info (a PNG's chunks after its pixels included). A file
written over, replaced or removed in between is opened afresh, as before; a decode that
failed parses again at the next use, as before."""

from __future__ import annotations

import io
import os
import pickle
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageFile, PngImagePlugin
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._kept_header import KeptHeader
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import DecodeError
from pillow_gpu.executor import GpuBatchExecutor
from pillow_gpu.gpu import evaluate

#: (format, mode, save options) of the files written. JPEG: baseline, grey, CMYK, progressive,
#: 4:4:4, oriented with an ICC profile; PNG: RGB, RGBA, grey, 16-bit grey, a palette with a
#: transparent index, oriented by an eXIf chunk with text before the pixels, and with text
#: and the eXIf chunk after them (as ImageMagick writes its dates); the plain plugins' files
#: Pillow writes (BMP, TGA raw and run-length, PPM and PGM, SGI, PCX, DDS, QOI).
_EXIF6 = PILImage.Exif()
_EXIF6[0x0112] = 6
VARIANTS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "RGB": ("JPEG", "RGB", {"quality": 90}),
    "L": ("JPEG", "L", {"quality": 85}),
    "CMYK": ("JPEG", "CMYK", {"quality": 90}),
    "progressive": ("JPEG", "RGB", {"quality": 80, "progressive": True}),
    "444": ("JPEG", "RGB", {"quality": 95, "subsampling": 0}),
    "oriented-icc": (
        "JPEG",
        "RGB",
        {"quality": 90, "exif": _EXIF6.tobytes(), "icc_profile": b"\0" * 64},
    ),
    "png-RGB": ("PNG", "RGB", {}),
    "png-RGBA": ("PNG", "RGBA", {"compress_level": 1}),
    "png-L": ("PNG", "L", {}),
    "png-I;16": ("PNG", "I;16", {}),
    "png-P-transparent": ("PNG", "P", {"transparency": 3}),
    "png-oriented-text": ("PNG", "RGB", {"exif": _EXIF6.tobytes(), "pnginfo": "text"}),
    "png-late-text-exif": ("PNG", "RGBA", {"late": "text-exif"}),
    "bmp-RGB": ("BMP", "RGB", {}),
    "bmp-P": ("BMP", "P", {}),
    "bmp-1": ("BMP", "1", {}),
    "tga-RGBA-rle": ("TGA", "RGBA", {"compression": "tga_rle"}),
    "tga-L-bottom-up": ("TGA", "L", {"orientation": -1}),
    "ppm-RGB": ("PPM", "RGB", {}),
    "pgm-I;16": ("PPM", "I;16", {}),
    "sgi-RGB": ("SGI", "RGB", {}),
    "pcx-P": ("PCX", "P", {}),
    "dds-RGBA": ("DDS", "RGBA", {}),
    "qoi-RGBA": ("QOI", "RGBA", {}),
    "gif-P": ("GIF", "P", {}),
    "gif-P-transparent": ("GIF", "P", {"transparency": 5}),
    "gif-L-colour-table": ("GIF", "L", {"include_color_table": True}),
    "gif-animated": ("GIF", "P", {"frames": 3}),
    "apng-RGBA": ("PNG", "RGBA", {"frames": 3}),
    "apng-P-default-image": ("PNG", "P", {"frames": 2, "default_image": True}),
    "tiff-RGB": ("TIFF", "RGB", {}),
    "tiff-lzw-L": ("TIFF", "L", {"compression": "tiff_lzw"}),
    "tiff-deflate-RGBA": ("TIFF", "RGBA", {"compression": "tiff_adobe_deflate"}),
    "tiff-jpeg-RGB": ("TIFF", "RGB", {"compression": "jpeg"}),
    "tiff-I;16": ("TIFF", "I;16", {}),
    "tiff-CMYK-packbits": ("TIFF", "CMYK", {"compression": "packbits"}),
    "tiff-oriented": ("TIFF", "RGB", {"tiffinfo": {0x0112: 6}}),
    "tiff-pages": ("TIFF", "RGB", {"frames": 3}),
}


def _thumbnail(image: Any) -> Any:
    image.thumbnail((24, 24))
    return image


def _draft(image: Any) -> Any:
    image.draft("L", (20, 12))
    return image


#: Each chain on a lazy handle and on Pillow's opened image: (lazy, Pillow).
CHAINS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "decode": (lambda image: image, lambda image: image),
    "thumbnail": (_thumbnail, _thumbnail),
    "draft": (_draft, _draft),
    "convert-L": (lambda image: image.convert("L"), lambda image: image.convert("L")),
    "exif_transpose": (ImageOps.exif_transpose, PILImageOps.exif_transpose),
}


def _variant(path: Path, variant: str, seed: int = 0, size: tuple[int, int] = (83, 61)) -> Path:
    """``path`` written as ``variant`` (a JPEG or PNG of :data:`VARIANTS`)."""
    fmt, mode, options = VARIANTS[variant]
    options = dict(options)
    if options.get("pnginfo") == "text":
        text = PngImagePlugin.PngInfo()
        text.add_text("Software", "a scanner")
        options = {**options, "pnginfo": text}
    late = options.pop("late", None)
    if mode == "I;16":  # every 16-bit value
        values = np.random.default_rng(seed).integers(0, 1 << 16, size[::-1], dtype=np.uint16)
        image = PILImage.fromarray(values)
    else:
        image = make_image(mode, size, seed=seed)
    if mode == "P":
        image = image.convert("L").convert("P")
    frames = options.pop("frames", 1)
    if frames > 1:  # an animation: its first frame is what the opened file shows
        others = [make_image(mode, size, seed=seed + n) for n in range(1, frames)]
        others = [other.quantize() if mode == "P" else other for other in others]
        options = {**options, "save_all": True, "append_images": others}
    image.save(path, fmt, **options)
    if late is not None:  # text and an eXIf chunk after the pixels
        _after_pixels(path, [b"tEXtdate:create\0" + b"2026-12-07", b"eXIf" + _EXIF6.tobytes()])
    return path


def _after_pixels(path: Path, chunks: list[bytes]) -> None:
    """Put ``chunks`` (type and data each) before the PNG ``path``'s IEND chunk."""
    data = path.read_bytes()
    end = data.rindex(b"IEND") - 4
    written = b"".join(
        len(chunk[4:]).to_bytes(4, "big") + chunk + zlib.crc32(chunk).to_bytes(4, "big")
        for chunk in chunks
    )
    path.write_bytes(data[:end] + written + data[end:])


@pytest.fixture
def pillow_opens(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What ``PIL.Image.open`` was called with, from the moment the fixture is used."""
    seen: list[Any] = []
    real = PILImage.open

    def counted(fp: Any, *args: Any, **kwargs: Any) -> PILImage.Image:
        seen.append(fp)
        return real(fp, *args, **kwargs)

    monkeypatch.setattr(PILImage, "open", counted)
    return seen


def _opened(path: Path, source: str) -> Image.Image:
    return Image.open(path if source == "path" else io.BytesIO(path.read_bytes()))


@pytest.mark.parametrize("source", ["path", "file-object"])
@pytest.mark.parametrize("chain", sorted(CHAINS))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_an_opened_file_is_parsed_once_and_equals_pillow(
    tmp_path: Path, pillow_opens: list[Any], variant: str, chain: str, source: str
) -> None:
    path = _variant(tmp_path / "image", variant)
    lazy_chain, pillow_chain = CHAINS[chain]
    image = _opened(path, source)
    with PILImage.open(path) as pillow:
        assert image.info == pillow.info  # the header's, before any use
    opened_at = len(pillow_opens)
    result = lazy_chain(image)
    pixels = result.to_pil()
    assert len(pillow_opens) == opened_at, "the file was parsed again after Image.open"
    with PILImage.open(path) as pillow:
        expected = pillow_chain(pillow)
        expected.load()
        assert_image_equal(pixels, expected)
        assert result.info == expected.info
        assert image.info == pillow.info  # the handle after its first use


@pytest.mark.parametrize("source", ["path", "file-object"])
@pytest.mark.parametrize("variant", sorted(name for name in VARIANTS if name.startswith("tiff")))
def test_a_tiffs_exif_is_read_from_its_kept_header_which_then_decodes(
    tmp_path: Path, pillow_opens: list[Any], variant: str, source: str
) -> None:
    # getexif() and exif_transpose read the file's EXIF directory through the header
    # Image.open kept, lent and kept again for the decode: no parse of the file after the open.
    path = _variant(tmp_path / "image", variant)
    image = _opened(path, source)
    opened_at = len(pillow_opens)
    exif = dict(image.getexif())
    result = ImageOps.exif_transpose(image)
    again = dict(image.getexif())
    pixels = result.to_pil()
    assert len(pillow_opens) == opened_at, "the file was parsed again after Image.open"
    with PILImage.open(path) as pillow:
        assert exif == dict(pillow.getexif())
        expected = PILImageOps.exif_transpose(pillow)
        expected.load()
        assert again == dict(pillow.getexif())
        assert_image_equal(pixels, expected)
        assert result.info == expected.info


def test_a_file_written_over_after_open_is_parsed_again(
    tmp_path: Path, pillow_opens: list[Any]
) -> None:
    path = _variant(tmp_path / "photo.jpg", "RGB", seed=1)
    image = Image.open(path)
    before = path.stat().st_size
    _variant(path, "444", seed=2)  # the same size in pixels, other bytes, another length
    assert path.stat().st_size != before
    opened_at = len(pillow_opens)
    pixels = image.to_pil()
    assert len(pillow_opens) == opened_at + 1
    with PILImage.open(path) as pillow:
        assert_image_equal(pixels, pillow)


def test_a_file_replaced_after_open_is_parsed_again(
    tmp_path: Path, pillow_opens: list[Any]
) -> None:
    path = _variant(tmp_path / "photo.jpg", "RGB", seed=1)
    image = Image.open(path)
    os.replace(_variant(tmp_path / "other.jpg", "RGB", seed=3), path)  # another inode
    opened_at = len(pillow_opens)
    pixels = image.to_pil()
    assert len(pillow_opens) == opened_at + 1
    with PILImage.open(path) as pillow:
        assert_image_equal(pixels, pillow)


def test_a_file_removed_after_open_fails_its_decode_as_before(tmp_path: Path, device: Any) -> None:
    path = _variant(tmp_path / "photo.jpg", "RGB")
    image = Image.open(path)
    path.unlink()
    with pytest.raises(FileNotFoundError):
        image.convert("L").to_pil()
    with pytest.raises(DecodeError, match="removed or renamed"):
        evaluate(ImageOps.invert(image))


def test_a_truncated_jpeg_fails_each_use_and_loads_cut_where_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = _variant(tmp_path / "whole.jpg", "RGB", size=(160, 120)).read_bytes()
    path = tmp_path / "cut.jpg"
    path.write_bytes(whole[: len(whole) * 2 // 3])
    image = Image.open(path)
    errors = []
    for _ in range(2):  # the kept header served the first; the second parses again
        with pytest.raises(OSError, match="truncated") as caught:
            image.convert("L").to_pil()
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    image = Image.open(path)
    with PILImage.open(path) as pillow:
        assert_image_equal(image.to_pil(), pillow)


def test_decode_threads_sharing_one_opened_jpeg_all_get_pillows_pixels(
    tmp_path: Path, device: Any
) -> None:
    path = _variant(tmp_path / "photo.jpg", "progressive")
    image = Image.open(path)
    jobs = [(index, ImageOps.invert(image.rotate(90 * index))) for index in range(8)]
    with GpuBatchExecutor(decode_threads=3) as executor:
        results = {result.input_key: result.image for result in executor.run(jobs)}
    with PILImage.open(path) as pillow:
        for index in range(8):
            assert_image_equal(results[index], PILImageOps.invert(pillow.rotate(90 * index)))


def test_a_kept_header_is_handed_out_once_across_threads(tmp_path: Path) -> None:
    path = _variant(tmp_path / "photo.jpg", "RGB")
    with PILImage.open(path) as header:
        kept = KeptHeader.of(header, header._exif)
    assert kept is not None
    got: list[Any] = []
    start = threading.Barrier(4)

    def arm() -> None:
        start.wait()
        got.append(kept.armed(str(path), None))

    threads = [threading.Thread(target=arm) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    armed = [image for image in got if image is not None]
    assert len(armed) == 1
    with armed[0] as image, PILImage.open(path) as pillow:
        image.load()
        assert_image_equal(image, pillow)
    assert kept.image is None
    assert kept.armed(str(path), None) is None


def _late_text_png(path: Path) -> None:
    """A PNG with a text chunk after its pixels (Pillow reads it while loading)."""
    make_image("RGB", (32, 24)).save(path, "PNG")
    _after_pixels(path, [b"tEXtComment\0after the pixels"])


def _written(path: Path, kind: str) -> None:
    if kind == "MPO":
        frames = [make_image("RGB", (32, 24), seed=seed) for seed in range(2)]
        frames[0].save(path, "MPO", save_all=True, append_images=frames[1:])
    elif kind == "GIF-animated":
        frames = [make_image("P", (32, 24), seed=seed) for seed in range(3)]
        frames[0].save(path, "GIF", save_all=True, append_images=frames[1:])
    elif kind == "TIFF-pages":
        frames = [make_image("RGB", (32, 24), seed=seed) for seed in range(3)]
        frames[0].save(path, "TIFF", save_all=True, append_images=frames[1:])
    elif kind == "APNG":
        frames = [make_image("RGB", (32, 24), seed=seed) for seed in range(2)]
        frames[0].save(path, "PNG", save_all=True, append_images=frames[1:])
    elif kind == "PNG-late-text":
        _late_text_png(path)
    else:
        make_image("P" if kind == "GIF" else "RGB", (32, 24)).save(path, kind)


@pytest.mark.parametrize(
    ("kind", "kept"),
    [
        ("JPEG", True),
        ("PNG", True),
        ("PNG-late-text", True),  # a copy of its header read on past the pixels at open
        ("BMP", True),
        ("TGA", True),
        ("PPM", True),
        ("GIF", True),
        ("GIF-animated", True),  # its first frame
        ("TIFF", True),
        ("TIFF-pages", True),  # its first frame
        ("APNG", True),  # its first frame
        ("MPO", False),
        ("WEBP", False),
    ],
)
def test_what_is_kept(tmp_path: Path, pillow_opens: list[Any], kind: str, kept: bool) -> None:
    path = tmp_path / "image"
    _written(path, kind)
    image = Image.open(path)
    assert ("kept_header" in image.node.params) is kept
    opened_at = len(pillow_opens)
    pixels = image.convert("RGBA").to_pil()
    assert len(pillow_opens) == opened_at + (not kept)
    with PILImage.open(path) as pillow:
        assert_image_equal(pixels, pillow.convert("RGBA"))


def test_a_kept_header_crosses_no_process_boundary(tmp_path: Path) -> None:
    path = _variant(tmp_path / "photo.jpg", "RGB")
    with PILImage.open(path) as header:
        kept = KeptHeader.of(header, None)
    assert kept is not None
    assert kept.image is not None
    assert pickle.loads(pickle.dumps(kept)).image is None


@pytest.mark.parametrize("fmt", ["PNG", "GIF", "TIFF", "WEBP", "BMP"])
def test_a_format_pillow_cannot_draft_is_not_opened_to_draft(
    tmp_path: Path, pillow_opens: list[Any], fmt: str
) -> None:
    path = tmp_path / f"image.{fmt.lower()}"
    options = {"lossless": True} if fmt == "WEBP" else {}
    make_image("P" if fmt == "GIF" else "RGB", (83, 61)).save(path, fmt, **options)
    image = Image.open(path)
    opened_at = len(pillow_opens)
    assert image.draft("L", (20, 12)) is None  # Image.draft, which this plugin keeps
    image.thumbnail((24, 24))
    assert len(pillow_opens) == opened_at  # neither the draft nor thumbnail opened the file
    with PILImage.open(path) as pillow:
        assert pillow.draft("L", (20, 12)) is None
        pillow.thumbnail((24, 24))
        assert_image_equal(image.to_pil(), pillow)


#: Icon files whose every entry Pillow writes from one image (PNG-compressed entries, as
#: Pillow saves them), by the sizes they hold.
ICON_SIZES = {
    "one-icon": [(16, 16)],
    "three-icons": [(16, 16), (32, 32), (48, 48)],
}


@pytest.mark.parametrize("mode", ["RGBA", "RGB", "P"])
@pytest.mark.parametrize("sizes", ICON_SIZES.values(), ids=ICON_SIZES.keys())
def test_an_icon_pillows_open_loads_is_never_decoded_again(
    tmp_path: Path, pillow_opens: list[Any], sizes: list[tuple[int, int]], mode: str
) -> None:
    """Pillow's ICO plugin loads the largest icon while opening, and its image holds those
    pixels from then on: so does the lazy image's leaf. Its uses parse nothing again, and the
    file may go (as Pillow's image, which has its pixels, does not need it either)."""
    source = make_image("RGBA", (48, 48), seed=9)
    path = tmp_path / "icon.ico"
    (source.quantize(16) if mode == "P" else source.convert(mode)).save(path, sizes=sizes)
    with PILImage.open(path) as expected:
        expected_pixels = expected.copy()
    handle = Image.open(path)
    opened_at = len(pillow_opens)
    path.unlink()
    for result, pillows in (
        (handle.to_pil(), expected_pixels),
        (evaluate(handle.convert("RGBA")), expected_pixels.convert("RGBA")),
    ):
        assert_image_equal(result, pillows)
        assert result.info == pillows.info
    assert handle.info == expected_pixels.info
    assert len(pillow_opens) == opened_at  # no second parse
