"""``ImageOps.exif_transpose`` and ``getexif()`` of opened JPEGs, PNGs and WebPs: Pillow's
result (pixels, size, ``info``) and ``Exif``, with no second open of the file: the EXIF the
JPEG plugin parsed while opening is parsed again from what it read, as that parse went (edits
of ``info`` made later change nothing, as in Pillow), one it did not parse is read from the
``info`` as it stands (edits included), as Pillow's ``getexif`` reads it, and the pixels load
from the header ``Image.open`` parsed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from PIL import PngImagePlugin
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image

ORIENTATION = 0x0112
#: An EXIF block whose first directory claims five entries and holds none.
TRUNCATED_EXIF = b"Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x05"


def _exif(orientation: int) -> bytes:
    exif = PILImage.Exif()
    exif[ORIENTATION] = orientation
    return exif.tobytes()


def _xmp(orientation: int) -> bytes:
    return (
        b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description '
        b'xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="%d"/>'
        b"</rdf:RDF></x:xmpmeta>" % orientation
    )


#: name: (save options, whether the JPEG plugin parses the EXIF while opening)
JPEGS: dict[str, tuple[dict[str, Any], bool]] = {
    **{f"exif-{turn}": ({"exif": _exif(turn)}, True) for turn in range(1, 9)},
    "exif-and-dpi-6": ({"exif": _exif(6), "dpi": (300, 300)}, False),
    "truncated-exif": ({"exif": TRUNCATED_EXIF}, True),
    "xmp-only-8": ({"xmp": _xmp(8)}, False),
    "exif-5-and-xmp-8": ({"exif": _exif(5), "xmp": _xmp(8)}, True),
    "none": ({}, False),
}

#: Edits of the opened image's ``info`` before ``exif_transpose``, made on both sides.
EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "unedited": lambda info: None,
    "exif-deleted": lambda info: info.pop("exif", None),
    "exif-replaced-by-3": lambda info: info.update(exif=_exif(3)),
}


@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every ``PIL.Image.open`` call (the path or stream it opened)."""
    seen: list[str] = []
    real = PILImage.open

    def counted(fp: Any, *args: Any, **kwargs: Any) -> PILImage.Image:
        seen.append(str(fp))
        return real(fp, *args, **kwargs)

    monkeypatch.setattr(PILImage, "open", counted)
    return seen


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data:UserWarning")  # truncated-exif, both sides
@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
@pytest.mark.parametrize("name", list(JPEGS), ids=list(JPEGS))
def test_exif_transpose_of_an_opened_jpeg_equals_pillow(
    tmp_path: Path, opens: list[str], name: str, edit: str
) -> None:
    options, parsed_at_open = JPEGS[name]
    path = tmp_path / f"{name}.jpg"
    make_image("RGB", (23, 11), seed=3).save(path, quality=95, **options)
    with PILImage.open(path) as opened:
        exif = opened._exif
        assert (exif is not None and exif._loaded) == parsed_at_open  # the case is as named
        EDITS[edit](opened.info)
        expected = PILImageOps.exif_transpose(opened)
    handle = Image.open(path)
    EDITS[edit](handle.info)
    opens.clear()
    result = ImageOps.exif_transpose(handle)
    assert not opens  # the header is not opened again to read the orientation
    assert result.size == expected.size
    assert result.info == expected.info
    assert_image_equal(result.to_pil(), expected)
    assert not opens  # nor to load the pixels


@pytest.mark.parametrize("in_place", [False, True], ids=["new-image", "in-place"])
@pytest.mark.parametrize("turn", [3, 6, 8], ids=["turn-3", "turn-6", "turn-8"])
def test_the_result_s_exif_is_the_one_pillow_s_result_keeps(
    tmp_path: Path, turn: int, in_place: bool
) -> None:
    exif = PILImage.Exif()
    exif[ORIENTATION] = turn
    exif[0x010F] = "Maker"
    exif.get_ifd(0x8769)[0x9003] = "2020:07:27 14:46:48"  # DateTimeOriginal
    exif.get_ifd(0x8825)[0x0000] = b"\x02\x02\x00\x00"  # GPSVersionID
    path = tmp_path / "camera.jpg"
    make_image("RGB", (23, 11), seed=5).save(path, exif=exif.tobytes())
    found = []
    for opened, operations in ((PILImage.open(path), PILImageOps), (Image.open(path), ImageOps)):
        result = operations.exif_transpose(opened, in_place=in_place) or opened
        kept = result.getexif()
        # The IFD pointers Pillow's result reports are the offsets of the bytes it parsed.
        found.append((dict(kept), dict(kept.get_ifd(0x8769)), dict(kept.get_ifd(0x8825))))
        found.append(result.info)
    assert found[2:] == found[:2]
    assert ORIENTATION not in found[0][0]


#: name: save options of PNGs whose metadata all precedes the pixels (Pillow's writer puts
#: eXIf and text there)
PNGS: dict[str, dict[str, Any]] = {
    "exif-6": {"exif": _exif(6)},
    "exif-5-and-xmp-8": {"exif": _exif(5), "pnginfo": "xmp-8"},
    "xmp-only-8": {"pnginfo": "xmp-8"},
    "none": {},
}


@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
@pytest.mark.parametrize("name", list(PNGS), ids=list(PNGS))
def test_exif_transpose_of_an_opened_png_equals_pillow(
    tmp_path: Path, opens: list[str], name: str, edit: str
) -> None:
    options = dict(PNGS[name])
    if options.get("pnginfo") == "xmp-8":
        text = PngImagePlugin.PngInfo()
        text.add_itxt("XML:com.adobe.xmp", _xmp(8).decode())
        options["pnginfo"] = text
    path = tmp_path / f"{name}.png"
    make_image("RGB", (23, 11), seed=3).save(path, **options)
    with PILImage.open(path) as opened:
        EDITS[edit](opened.info)
        expected = PILImageOps.exif_transpose(opened)  # Pillow's PNG getexif loads first
    handle = Image.open(path)
    EDITS[edit](handle.info)
    opens.clear()
    result = ImageOps.exif_transpose(handle)
    assert not opens  # nothing follows the pixels: the info answers, as the load would
    assert result.size == expected.size
    assert result.info == expected.info
    assert_image_equal(result.to_pil(), expected)
    assert not opens


def _exif_answers(exif: PILImage.Exif) -> list[Any]:
    """What code reads from an ``Exif``: its tags in the order it iterates them, its two
    sub-directories, the legacy merged dict and its bytes."""
    return [
        list(exif.items()),
        dict(exif.get_ifd(0x8769)),
        dict(exif.get_ifd(0x8825)),
        exif._get_merged_dict(),
        exif.tobytes(),
    ]


def _camera_exif(orientation: int) -> bytes:
    exif = PILImage.Exif()
    exif[ORIENTATION] = orientation
    exif[0x0128] = 2  # ResolutionUnit: the JPEG plugin reads it (and XResolution) at open
    exif[0x011A] = 240.0
    exif.get_ifd(0x8769)[0x9003] = "2020:07:27 14:46:48"  # DateTimeOriginal
    exif.get_ifd(0x8825)[0x0000] = b"\x02\x02\x00\x00"  # GPSVersionID
    return exif.tobytes()


#: name: (format, save options): files whose getexif() the open answers.
GETEXIF_FILES: dict[str, tuple[str, dict[str, Any]]] = {
    **{f"jpeg-{name}": ("JPEG", options) for name, (options, _) in JPEGS.items()},
    "jpeg-camera-6": ("JPEG", {"exif": _camera_exif(6)}),
    "jpeg-camera-and-dpi": ("JPEG", {"exif": _camera_exif(3), "dpi": (72, 72)}),
    "png-camera-8": ("PNG", {"exif": _camera_exif(8)}),
    "webp-camera-5": ("WEBP", {"exif": _camera_exif(5), "lossless": True}),
}


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data:UserWarning")  # truncated-exif, both sides
@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
@pytest.mark.parametrize("name", list(GETEXIF_FILES), ids=list(GETEXIF_FILES))
def test_getexif_of_an_opened_file_equals_pillow_without_opening_it_again(
    tmp_path: Path, opens: list[str], name: str, edit: str
) -> None:
    image_format, options = GETEXIF_FILES[name]
    path = tmp_path / f"{name}.{image_format.lower()}"
    make_image("RGB", (23, 11), seed=3).save(path, image_format, **options)
    answers = []
    for module in (PILImage, Image):
        with module.open(path) as opened:
            EDITS[edit](opened.info)
            opens.clear()
            try:
                answers.append(_exif_answers(opened.getexif()))
            except Exception as error:  # the exception type is the answer
                answers.append([type(error).__name__])
            if module is Image:
                assert not opens  # the file is not parsed again for its EXIF
    assert answers[1] == answers[0]
