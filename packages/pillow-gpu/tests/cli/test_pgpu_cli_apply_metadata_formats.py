"""Every metadata item an input holds reaches every output format that can hold it.

Photos in each format Pillow writes with metadata (JPEG, PNG, WebP, TIFF, AVIF), each holding
a camera's EXIF (make and model), an sRGB profile, an XMP packet and 300 dpi where its format
holds them, go through ``pillow-gpu apply`` into every output format; each item of the input is
read back from the output wherever :data:`KEPT` says the output's format holds it.

:data:`KEPT` is checked the other way too: an item it says a format does not hold is one that
Pillow's own writer, given that item's ``save`` option, does not store either, so nothing is
left out that Pillow could write. A PNG and a TIFF hold an XMP packet though Pillow's writers
ignore their ``xmp`` option (``apply`` writes it as the PNG's ``XML:com.adobe.xmp`` chunk and
the TIFF's XMP tag).
"""

from __future__ import annotations

import functools
import io
import re
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageCms, PngImagePlugin
from pillow_gpu._testing import make_image
from pillow_gpu.cli import main
from pillow_gpu.cli._metadata import HELD_ITEMS
from pillow_gpu.gpu._device import SharedDevice

MAKE, MODEL = "Canon", "EOS R5"
XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'
ITEMS = ("exif", "icc", "xmp", "dpi")

#: Each item's name in ``HELD_ITEMS`` and in the summary of ``apply``.
NAMES = {"exif": "EXIF", "icc": "ICC profile", "xmp": "XMP", "dpi": "resolution"}
#: The output formats (``--format`` name, Pillow's name) and the items each holds, as
#: ``cli._metadata.HELD_ITEMS`` says.
KEPT = {
    (output, pillow_format): {
        item for item in ITEMS if NAMES[item] in HELD_ITEMS.get(pillow_format, ())
    }
    for output, pillow_format in [
        ("jpg", "JPEG"),
        ("png", "PNG"),
        ("webp", "WEBP"),
        ("tif", "TIFF"),
        ("avif", "AVIF"),
        ("gif", "GIF"),
        ("bmp", "BMP"),
        ("jp2", "JPEG2000"),
    ]
}


def _exif() -> bytes:
    exif = PILImage.Exif()
    exif[0x010F], exif[0x0110] = MAKE, MODEL
    return exif.tobytes()


@functools.cache  # the profile holds the time it was made
def _profile() -> bytes:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


#: Each source's ``save`` options: all four items where its Pillow writer takes them. A
#: WebP's EXIF is stored without the ``Exif`` identifier (as its specification says, as
#: cwebp and Pillow's writer store it); a PNG's XMP is its ``XML:com.adobe.xmp`` chunk, a
#: TIFF's its XMP tag and its make and model tags of its own.
def _sources() -> dict[str, dict[str, Any]]:
    exif, profile, dpi = _exif(), _profile(), (300, 300)
    png_xmp = PngImagePlugin.PngInfo()
    png_xmp.add_itxt("XML:com.adobe.xmp", XMP.decode())
    return {
        "jpg-photo.jpg": {"exif": exif, "icc_profile": profile, "xmp": XMP, "dpi": dpi},
        "png-photo.png": {"exif": exif, "icc_profile": profile, "pnginfo": png_xmp, "dpi": dpi},
        "webp-photo.webp": {"exif": exif, "icc_profile": profile, "xmp": XMP, "lossless": True},
        "tif-photo.tif": {
            "icc_profile": profile,
            "dpi": dpi,
            "tiffinfo": {0x010F: MAKE, 0x0110: MODEL, 700: XMP},
        },
        "avif-photo.avif": {"exif": exif, "icc_profile": profile, "xmp": XMP},
    }


def _items(data: bytes | Path) -> set[str]:
    """The items a file holds, read back with Pillow."""
    with PILImage.open(io.BytesIO(data) if isinstance(data, bytes) else data) as image:
        image.load()  # a PNG's chunks after its pixels
        found = set()
        exif = image.getexif()
        if (exif.get(0x010F), exif.get(0x0110)) == (MAKE, MODEL):
            found.add("exif")
        if image.info.get("icc_profile") == _profile():
            found.add("icc")
        if image.info.get("xmp") == XMP:
            found.add("xmp")
        dpi = image.info.get("dpi")
        if dpi and [round(float(value)) for value in dpi] == [300, 300]:
            found.add("dpi")
    return found


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("metadata-formats") / "in"
    folder.mkdir()
    image = make_image("RGB", (40, 30), 3)
    for name, options in _sources().items():
        image.save(folder / name, **options)
    return folder


def test_each_source_holds_every_item_its_format_holds(photos: Path) -> None:
    held = {path.name: _items(path) for path in sorted(photos.iterdir())}
    assert held == {
        "avif-photo.avif": {"exif", "icc", "xmp"},
        "jpg-photo.jpg": set(ITEMS),
        "png-photo.png": set(ITEMS),
        "tif-photo.tif": set(ITEMS),
        "webp-photo.webp": {"exif", "icc", "xmp"},
    }
    with PILImage.open(photos / "webp-photo.webp") as webp:  # the EXIF chunk as cwebp writes it
        assert webp.info["exif"][:4] == b"MM\x00*"


@pytest.mark.parametrize(("output", "pillow_format"), list(KEPT), ids=[key for key, _ in KEPT])
def test_every_item_reaches_every_output_format_that_holds_it(
    photos: Path,
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    output: str,
    pillow_format: str,
) -> None:
    out = tmp_path / "out"
    argv = ["apply", "invert", str(photos), "-o", str(out), "--format", output, "--no-progress"]
    assert main(argv) == 0, capsys.readouterr().err
    kept = KEPT[output, pillow_format]
    lost, left_out, outputs = {}, Counter[str](), 0
    for source in sorted(photos.iterdir()):
        expected = _items(source) & kept
        found = _items(out / f"{source.stem}.{output}")
        if expected - found:
            lost[source.name] = sorted(expected - found)
        missing = _items(source) - kept
        not_held = [f"{NAMES[item]} ({pillow_format} files hold none)" for item in missing]
        left_out.update(not_held)
        outputs += bool(not_held)
    assert lost == {}
    # The summary names each item left out, with how many outputs it was left out of.
    summary = capsys.readouterr().out
    listed = Counter(
        {what: int(count) for count, what in re.findall(r"^    (\d+)x (.*)$", summary, re.M)}
    )
    assert listed == left_out
    if left_out:
        assert f"  metadata left out of {outputs} output(s), which their format cannot" in summary
    else:
        assert "metadata left out" not in summary


LEFT_OUT = [
    pytest.param(pillow_format, item, id=f"{output}-{item}")
    for (output, pillow_format), kept in KEPT.items()
    for item in ITEMS
    if item not in kept
]


@pytest.mark.parametrize(("pillow_format", "item"), LEFT_OUT)
def test_an_item_left_out_of_a_format_is_one_pillow_s_writer_cannot_store(
    pillow_format: str, item: str
) -> None:
    option = {"exif": {"exif": _exif()}, "icc": {"icc_profile": _profile()}}
    option |= {"xmp": {"xmp": XMP}, "dpi": {"dpi": (300, 300)}}
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a writer's note that it ignores an option
        make_image("RGB", (16, 12), 1).save(buffer, format=pillow_format, **option[item])
    assert item not in _items(buffer.getvalue())
