"""What a lazy image keeps of the file it was opened from, as Pillow's ``ImageFile``
(pillow_gpu._opened_file): ``filename``, and the JPEG tables ``save(quality="keep")`` reuses."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import PngImagePlugin
from pillow_gpu import Image


def _jpeg(tmp_path: Path, mode: str, subsampling: int, quality: int) -> Path:
    """A JPEG written by libjpeg with the given chroma subsampling and quality."""
    source = PILImage.linear_gradient("L").resize((48, 40)).convert(mode)
    path = tmp_path / f"{mode}-{subsampling}-{quality}.jpg"
    source.save(path, "JPEG", subsampling=subsampling, quality=quality)
    return path


def _opened(module: Any, path: Path) -> Any:
    return module.open(path)


def _thumbnailed(module: Any, path: Path) -> Any:
    image = module.open(path)
    image.thumbnail((20, 20))  # in place: still the opened JPEG, so "keep" still applies
    return image


SOURCES: dict[str, Callable[[Any, Path], Any]] = {
    "opened": _opened,
    "thumbnailed": _thumbnailed,
}
KEEPS: dict[str, dict[str, Any]] = {
    "quality-keep": {"quality": "keep"},
    "subsampling-keep": {"subsampling": "keep"},
    "qtables-keep": {"qtables": "keep", "quality": 50},
    "quality-keep-over-subsampling": {"quality": "keep", "subsampling": 0},
}


@pytest.mark.parametrize("keep", list(KEEPS))
@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize(
    ("mode", "subsampling", "quality"),
    [("RGB", 0, 90), ("RGB", 1, 75), ("RGB", 2, 40), ("L", 2, 60), ("CMYK", 0, 85)],
    ids=["RGB-444-q90", "RGB-422-q75", "RGB-420-q40", "L-q60", "CMYK-q85"],
)
def test_saving_an_opened_jpeg_with_keep_matches_pillow(
    tmp_path: Path, mode: str, subsampling: int, quality: int, source: str, keep: str
) -> None:
    # Pillow's JPEG encoder reuses the opened file's quantization tables and subsampling.
    path = _jpeg(tmp_path, mode, subsampling, quality)
    written = []
    for module in (PILImage, Image):
        saved = io.BytesIO()
        SOURCES[source](module, path).save(saved, "JPEG", **KEEPS[keep])
        written.append(hashlib.sha256(saved.getvalue()).hexdigest())
    assert written[1] == written[0]


def test_keep_by_extension_and_for_other_formats_is_pillow_s(tmp_path: Path) -> None:
    path = _jpeg(tmp_path, "RGB", 1, 70)
    for target in ("out.jpg", "out.png"):  # PNG ignores the JPEG options, as in Pillow
        written = []
        for index, module in enumerate((PILImage, Image)):
            out = tmp_path / f"{index}-{target}"
            module.open(path).save(out, quality="keep")
            written.append(out.read_bytes())
        assert written[1] == written[0]
    png = tmp_path / "image.png"
    PILImage.new("RGB", (4, 4)).save(png)
    for module in (PILImage, Image):  # not an opened JPEG: Pillow's own refusal
        with pytest.raises(ValueError, match="Cannot use 'keep'"):
            module.open(png).save(io.BytesIO(), "JPEG", quality="keep")


def test_filename_is_pillow_s(tmp_path: Path) -> None:
    path = _jpeg(tmp_path, "RGB", 2, 80)
    with PILImage.open(path) as reference:
        assert Image.open(path).filename == reference.filename == str(path)
    assert Image.open(str(path)).filename == str(path)
    with path.open("rb") as first, path.open("rb") as second, PILImage.open(first) as reference:
        assert Image.open(second).filename == reference.filename == ""  # a file object
    lazy = Image.open(path)
    lazy.thumbnail((8, 8))
    assert lazy.filename == str(path)  # in place: still the opened file, as in Pillow


@pytest.mark.parametrize("made", ["copy", "operation", "new"])
def test_an_image_that_is_no_file_has_no_filename(tmp_path: Path, made: str) -> None:
    path = _jpeg(tmp_path, "RGB", 2, 80)
    makers: dict[str, Callable[[Any], Any]] = {
        "copy": lambda module: module.open(path).copy(),
        "operation": lambda module: module.open(path).rotate(90),
        "new": lambda module: module.new("RGB", (2, 2)),
    }
    assert not hasattr(makers[made](PILImage), "filename")
    with pytest.raises(AttributeError) as missing:
        makers[made](Image).filename  # noqa: B018
    text = str(missing.value)
    assert text.startswith("why: only an image Image.open returned has a filename")
    assert "fix: keep the path you passed to Image.open" in text


@pytest.mark.parametrize("name", ["fp", "tile"])
def test_file_attributes_a_lazy_image_does_not_keep_say_why(tmp_path: Path, name: str) -> None:
    path = tmp_path / "image.png"
    PILImage.new("RGB", (4, 4)).save(path)
    with PILImage.open(path) as reference:
        assert hasattr(reference, name)
    with pytest.raises(AttributeError) as missing:
        getattr(Image.open(path), name)
    assert str(missing.value).startswith("why: ")
    assert "; fix: " in str(missing.value)


def _exif_file(tmp_path: Path, file_format: str) -> Path:
    source = PILImage.new("RGB", (6, 4), (1, 2, 3))
    exif = PILImage.Exif()
    exif[0x0112] = 3
    exif[0x010F] = "Maker"
    exif.get_ifd(0x8769)[0x9003] = "2026:12:05 00:00:00"
    path = tmp_path / f"image.{file_format.lower()}"
    source.save(path, file_format, exif=exif.tobytes())
    return path


@pytest.mark.parametrize("file_format", ["JPEG", "PNG", "WEBP", "TIFF", "GIF"])
def test_legacy_getexif_and_mimetype_are_pillow_s(tmp_path: Path, file_format: str) -> None:
    # Much code reads EXIF with the JPEG plugin's legacy _getexif() (PNG's and WebP's too):
    # present where Pillow's image has it, the merged IFDs (the Exif IFD's date included).
    if file_format == "GIF":
        path = tmp_path / "image.gif"
        PILImage.new("P", (4, 4)).save(path)
    elif file_format == "TIFF":
        path = tmp_path / "image.tiff"
        PILImage.new("RGB", (4, 4)).save(path)
    else:
        path = _exif_file(tmp_path, file_format)
    found = []
    for module in (PILImage, Image):
        image: Any = module.open(path)
        answers: list[Any] = [hasattr(image, "_getexif"), image.get_format_mimetype()]
        if answers[0]:
            answers.append(image._getexif())
        copy = image.copy()
        answers.append((hasattr(copy, "_getexif"), hasattr(copy, "get_format_mimetype")))
        found.append(answers)
        image.close()  # Pillow keeps a GIF's file open for seeking
    assert found[1] == found[0]
    if file_format in ("JPEG", "PNG", "WEBP"):
        assert found[1][2][0x9003] == "2026:12:05 00:00:00"


def test_a_copy_s_missing_file_answers_say_why(tmp_path: Path) -> None:
    lazy = Image.open(_exif_file(tmp_path, "JPEG")).copy()
    for name in ("_getexif", "get_format_mimetype"):
        with pytest.raises(AttributeError) as missing:
            getattr(lazy, name)
        assert str(missing.value).startswith("why: ")
        assert "; fix: " in str(missing.value)


def test_quantization_is_pillow_s(tmp_path: Path) -> None:
    # Code that preserves a JPEG's quality passes save(..., qtables=im.quantization).
    path = _jpeg(tmp_path, "RGB", 1, 65)
    with PILImage.open(path) as reference:
        expected = {key: list(table) for key, table in reference.quantization.items()}
        assert not hasattr(reference.copy(), "quantization")
    lazy = Image.open(path)
    assert {key: list(table) for key, table in lazy.quantization.items()} == expected
    written = []
    for module in (PILImage, Image):
        saved = io.BytesIO()
        source: Any = module.open(path)
        source.rotate(90).save(saved, "JPEG", qtables=source.quantization)
        written.append(saved.getvalue())
    assert written[1] == written[0]
    with pytest.raises(AttributeError, match=r"^why: only an opened JPEG"):
        lazy.copy().quantization  # noqa: B018


def _text_png(tmp_path: Path) -> Path:
    """A PNG with a tEXt chunk before its pixels and an iTXt one after them."""
    chunks = PngImagePlugin.PngInfo()
    chunks.add_text("parameters", "steps: 20")
    path = tmp_path / "text.png"
    PILImage.new("RGB", (4, 4)).save(path, pnginfo=chunks)
    data = path.read_bytes()
    late = PngImagePlugin.PngInfo()
    late.add_itxt("Comment", "after the pixels", lang="en")
    tail = io.BytesIO()
    PILImage.new("RGB", (1, 1)).save(tail, "PNG", pnginfo=late)
    itxt = tail.getvalue()
    start = itxt.index(b"iTXt") - 4
    end = start + 12 + int.from_bytes(itxt[start : start + 4], "big")
    iend = data.rindex(b"IEND") - 4
    path.write_bytes(data[:iend] + itxt[start:end] + data[iend:])
    return path


@pytest.mark.parametrize("opened", ["path", "file-object"])
@pytest.mark.parametrize("edited", ["as-opened", "thumbnailed"])
def test_a_png_s_text_is_pillow_s(tmp_path: Path, opened: str, edited: str) -> None:
    # Pillow's PngImageFile.text loads the file, so it has the chunks after the pixels too;
    # the image keeps it through in-place edits, a copy has none.
    path = _text_png(tmp_path)
    found = []
    for module in (PILImage, Image):
        image: Any = module.open(path if opened == "path" else io.BytesIO(path.read_bytes()))
        if edited == "thumbnailed":
            image.thumbnail((2, 2))
        found.append({key: str(value) for key, value in image.text.items()})
        assert not hasattr(image.copy(), "text")
    assert found[1] == found[0] == {"parameters": "steps: 20", "Comment": "after the pixels"}


@pytest.mark.parametrize(
    ("file_format", "name"),
    [
        ("TIFF", "use_load_libtiff"),
        ("GIF", "dispose_extent"),
        ("JPEG", "decoderconfig"),
        ("PNG", "png"),
    ],
)
def test_a_plugin_s_own_attributes_say_why(tmp_path: Path, file_format: str, name: str) -> None:
    # Pillow's plugins keep loader state on the image they open; a lazy image does not record
    # it, and says so (other names keep Python's message).
    path = tmp_path / f"image.{file_format.lower()}"
    PILImage.new("RGB" if file_format != "GIF" else "P", (4, 4)).save(path, file_format)
    with PILImage.open(path) as reference:
        assert hasattr(reference, name)
    lazy = Image.open(path)
    with pytest.raises(AttributeError) as missing:
        getattr(lazy, name)
    assert str(missing.value).startswith(f"why: Pillow's {file_format} plugin keeps {name!r}")
    assert "; fix: read it from PIL.Image.open(...)" in str(missing.value)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing'"):
        lazy.no_such_thing  # noqa: B018
    with pytest.raises(AttributeError, match=f"has no attribute {name!r}"):
        getattr(lazy.copy(), name)  # a copy is no file, as Pillow's copy has no plugin state


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("size", [(16, 16), (32, 32), (48, 48)])
def test_an_icon_is_chosen_by_size_as_pillow_chooses_it(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    # Pillow's ICO image loads the entry of the size assigned to it; a lazy one reads it at the
    # assignment, and operations run on the GPU from it.
    path = tmp_path / "icon.ico"
    source = PILImage.new("RGBA", (48, 48), (10, 200, 30, 255))
    source.paste((250, 20, 20, 128), (4, 4, 30, 20))
    source.save(path, sizes=[(16, 16), (32, 32), (48, 48)])
    answers = []
    for module in (PILImage, Image):
        with contextlib.closing(module.open(path)) as image:
            image.size = size
            flipped = image.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT)
            answers.append((image.size, image.mode, image.tobytes(), flipped.tobytes()))
        with contextlib.closing(module.open(path)) as image:
            with pytest.raises(ValueError, match="not one of the allowed sizes"):
                image.size = (20, 20)
            with pytest.raises(AttributeError, match="property 'size' of 'Image' object has no"):
                image.copy().size = size  # a copy is no icon file
        with pytest.raises(AttributeError, match="property 'size' of 'Image' object has no"):
            module.new("RGB", (4, 4)).size = (2, 2)
    assert answers[1] == answers[0]
    assert answers[0][0] == size


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("use", ["opened", "thumbnailed", "sought"])
def test_plain_data_of_the_plugin_is_pillow_s(tmp_path: Path, use: str) -> None:
    # Code reads a JPEG's APP segments (XMP, Adobe markers) from applist, a GIF's disposal from
    # the image: read from the file as Pillow's opened image has them; a copy has none.
    jpeg, gif = tmp_path / "photo.jpg", tmp_path / "anim.gif"
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'
    PILImage.new("RGB", (40, 30), (200, 10, 10)).save(jpeg, xmp=xmp, icc_profile=b"icc" * 20)
    frames = [PILImage.new("RGB", (8, 8), (90 * index, 20, 200)) for index in range(3)]
    frames[0].save(gif, save_all=True, append_images=frames[1:], disposal=[1, 2, 3])
    answers = []
    for module in (PILImage, Image):
        with (
            contextlib.closing(module.open(jpeg)) as photo,
            contextlib.closing(module.open(gif)) as animation,
        ):
            if use == "thumbnailed":
                photo.thumbnail((20, 20))
            if use == "sought":
                animation.seek(2)
            answers.append(
                (
                    photo.applist,
                    photo.app,
                    photo.icclist,
                    photo.layers,
                    photo.layer,
                    photo.bits,
                    animation.disposal_method,
                    bytes(animation.global_palette.palette),
                    hasattr(photo.copy(), "applist"),
                )
            )
    assert answers[1] == answers[0]
    assert ("APP1", b"http://ns.adobe.com/xap/1.0/\x00" + xmp) in answers[0][0]
    assert answers[0][6] == (3 if use == "sought" else 1)


@pytest.mark.usefixtures("device")
def test_a_bytes_path_is_a_path_as_in_pillow(tmp_path: Path) -> None:
    # Pillow takes str, bytes and os.PathLike as paths (its is_path); its filename stays bytes.
    path = tmp_path / "anim.gif"
    frames = [PILImage.new("RGB", (8, 6), (70 * index, 30, 90)) for index in range(3)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    answers = []
    for module in (PILImage, Image):
        with contextlib.closing(module.open(os.fsencode(path))) as image:
            image.seek(2)
            answers.append((image.filename, image.tobytes(), image.n_frames))
        with pytest.raises(FileNotFoundError):
            module.open(b"\x89PNG: image data passed where a path goes")
    assert answers[1] == answers[0]
    assert answers[0][0] == os.fsencode(path)
