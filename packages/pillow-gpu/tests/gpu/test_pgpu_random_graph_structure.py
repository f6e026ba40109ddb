"""The structure damage of the random graphs (``random_graph_structure``) walks the units of
files Pillow writes, and damages them as it says: holders' lengths and PNG CRCs kept right
where a unit is dropped or repeated or its payload changed, TIFF entries changed in place."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image as PILImage

from .random_graph_structure import damaged_structure, units


def _exif() -> PILImage.Exif:
    exif = PILImage.Exif()
    exif[0x0112] = 6  # orientation
    exif[0x010F] = "maker"
    exif.get_ifd(0x8769)[0x9003] = "2026:12:07 08:00:00"  # in the Exif directory
    return exif


def _saved(format: str, **options: object) -> bytes:
    frames = [PILImage.new("RGB", (8, 6), (i * 40, 20, 200 - i * 40)) for i in range(3)]
    buffer = io.BytesIO()
    if options.get("save_all"):
        options["append_images"] = frames[1:]
    frames[0].save(buffer, format, **options)
    return buffer.getvalue()


FILES = {
    "png": lambda: _saved("PNG", exif=_exif()),
    "apng": lambda: _saved("PNG", save_all=True, duration=40),
    "gif": lambda: _saved("GIF", save_all=True, duration=40, loop=0),
    "jpeg": lambda: _saved("JPEG", exif=_exif()),
    "tiff": lambda: _saved("TIFF", exif=_exif()),
    "webp": lambda: _saved("WEBP", save_all=True, duration=40, exif=_exif()),
}
#: Units each file must show (PNG chunks, JPEG markers, GIF blocks, TIFF tags, RIFF chunks).
EXPECTED = {
    "png": {"IHDR", "IDAT", "IEND", "eXIf", "tag274", "tag36867"},
    "apng": {"IHDR", "acTL", "fcTL", "IDAT", "IEND"},
    "gif": {"screen", "extF9", "image"},
    "jpeg": {"FFE1", "FFDB", "FFC0", "FFDA", "tag274", "tag36867"},
    "tiff": {"tag256", "tag257", "tag273", "tag274"},
    "webp": {"VP8X", "EXIF", "tag274"},
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_units_of_pillows_files(name: str) -> None:
    found = {unit.name for unit in units(FILES[name]())}
    assert EXPECTED[name] <= found, sorted(found)


def test_no_units_in_other_formats() -> None:
    assert units(_saved("BMP")) == []
    assert damaged_structure(_saved("BMP"), 1) == ("none", _saved("BMP"))


def _png_crcs_right(data: bytes) -> bool:
    position = 8
    while position + 12 <= len(data):
        (length,) = struct.unpack_from(">I", data, position)
        end = position + 8 + length
        if end + 4 > len(data):
            return True  # a length made wrong: its CRC is read elsewhere
        if zlib.crc32(data[position + 4 : end]) != int.from_bytes(data[end : end + 4], "big"):
            return False
        position = end + 4
    return True


@pytest.mark.parametrize("seed", range(60))
def test_png_damage_keeps_crcs_right(seed: int) -> None:
    kind, data = damaged_structure(FILES["png"](), seed)
    assert data != FILES["png"]()
    if not kind.endswith(" length"):
        assert _png_crcs_right(data), kind


@pytest.mark.parametrize("seed", range(60))
def test_webp_damage_keeps_the_riff_length_right(seed: int) -> None:
    source = FILES["webp"]()
    kind, data = damaged_structure(source, seed)
    assert data != source
    if kind.split()[1] in ("drop", "twice"):
        assert int.from_bytes(data[4:8], "little") == len(data) - 8, kind


def test_tiff_entry_drop_lowers_the_count() -> None:
    source = FILES["tiff"]()
    count = struct.unpack_from("<H", source, struct.unpack_from("<I", source, 4)[0])[0]
    for seed in range(200):
        kind, data = damaged_structure(source, seed)
        if kind == "tag256 drop":  # the first entry of the first directory
            offset = struct.unpack_from("<I", data, 4)[0]
            assert struct.unpack_from("<H", data, offset)[0] == count - 1
            assert struct.unpack_from("<H", data, offset + 2)[0] == 257  # the next one moved up
            assert len(data) == len(source)
            return
    pytest.fail("no seed of 200 drew the first entry's drop")
