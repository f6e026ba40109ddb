"""The metadata a PNG carries after its image data (pillow_gpu._png_tail), read without
decoding, and what Image.open records from it."""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from pillow_gpu import Image, _png_tail
from pillow_gpu._png_tail import LATE_ORIENTATION, LATE_TRANSPARENCY, late_metadata
from pillow_gpu._testing import make_image, png_chunk, png_with_late_chunks

BOTH = (LATE_ORIENTATION, LATE_TRANSPARENCY)


def _text(kind: bytes, keyword: bytes, value: bytes) -> bytes:
    if kind == b"tEXt":
        return png_chunk(kind, keyword + b"\0" + value)
    if kind == b"zTXt":
        return png_chunk(kind, keyword + b"\0\0" + zlib.compress(value))
    return png_chunk(kind, keyword + b"\0\0\0\0\0" + value)  # iTXt, uncompressed


def _exif_chunk() -> bytes:
    exif = PILImage.Exif()
    exif[0x0112] = 6
    return png_chunk(b"eXIf", exif.tobytes()[6:])  # the TIFF structure, no "Exif\0\0"


LATE_CASES = {
    "nothing": ([], ()),
    "comment": ([_text(b"tEXt", b"comment", b"made by a tool")], ()),
    "date-ztxt": ([_text(b"zTXt", b"date:create", b"2026-12-04")], ()),
    "exif": ([_exif_chunk()], (LATE_ORIENTATION,)),
    "raw-profile-ztxt": (
        [_text(b"zTXt", b"Raw profile type exif", b"\nexif\n 0\n")],
        (LATE_ORIENTATION,),
    ),
    "raw-profile-text": ([_text(b"tEXt", b"Raw profile type exif", b"x")], (LATE_ORIENTATION,)),
    "xmp-itxt": ([_text(b"iTXt", b"XML:com.adobe.xmp", b"<x/>")], (LATE_ORIENTATION,)),
    "trns": ([png_chunk(b"tRNS", b"\x00\x10\x00\x20\x00\x30")], (LATE_TRANSPARENCY,)),
    "exif-and-trns": ([png_chunk(b"tRNS", b"\x00\x10\x00\x20\x00\x30"), _exif_chunk()], BOTH),
    "unknown-chunk": ([png_chunk(b"prVt", b"\x01\x02")], ()),
}


@pytest.mark.parametrize("case", list(LATE_CASES))
def test_late_metadata_names_what_follows_the_pixels(case: str, tmp_path: Path) -> None:
    chunks, expected = LATE_CASES[case]
    data = png_with_late_chunks(make_image("RGB", (9, 7), seed=3), chunks)
    assert late_metadata(None, data) == expected
    path = tmp_path / "late.png"
    path.write_bytes(data)
    assert late_metadata(str(path), None) == expected
    leaf = Image.open(path).node
    assert leaf.params["late"] == expected
    with PILImage.open(path) as opened:  # Pillow still opens and decodes the file alike
        opened.load()


def test_metadata_before_the_pixels_is_not_late() -> None:
    buffer = io.BytesIO()
    exif = PILImage.Exif()
    exif[0x0112] = 6
    make_image("L", (5, 4)).save(buffer, "PNG", exif=exif)  # Pillow writes eXIf before IDAT
    assert late_metadata(None, buffer.getvalue()) == ()


@pytest.mark.parametrize(
    "cut",
    [8, 20, -30, -13, -5],
    ids=["after-signature", "inside-ihdr", "inside-late-chunk", "late-header", "inside-iend"],
)
def test_truncated_files_end_the_walk_without_raising(cut: int) -> None:
    data = png_with_late_chunks(make_image("L", (6, 6)), [_exif_chunk()])
    found = late_metadata(None, data[:cut])
    assert set(found) <= {LATE_ORIENTATION}


def test_other_formats_and_garbage_carry_nothing(tmp_path: Path) -> None:
    assert late_metadata(None, b"GIF89a" + bytes(40)) == ()
    assert late_metadata(None, b"") == ()
    assert late_metadata(None, None) == ()
    path = tmp_path / "x.gif"
    make_image("L", (4, 4)).convert("P").save(path)
    assert Image.open(path).node.params["late"] == ()


def test_a_file_of_too_many_chunks_is_reported_carrying_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_png_tail, "MAX_CHUNKS", 4)
    chunks = [png_chunk(b"prVt", b"") for _ in range(8)]
    data = png_with_late_chunks(make_image("L", (4, 4)), chunks)
    assert late_metadata(None, data) == BOTH


def test_a_huge_declared_length_ends_the_walk() -> None:
    data = png_with_late_chunks(make_image("L", (4, 4)), [])
    end = data.rindex(b"IEND") - 4
    hostile = data[:end] + b"\xff\xff\xff\xf0eXIf" + bytes(16) + data[end:]
    assert late_metadata(None, hostile) == (LATE_ORIENTATION,)  # seen, then past the end


@settings(max_examples=200, deadline=None)
@given(tail=st.binary(max_size=400), cut=st.integers(min_value=0, max_value=500))
def test_any_bytes_after_a_png_header_never_raise(tail: bytes, cut: int) -> None:
    """Hostile bytes after a real signature and IHDR: the walk ends, names at most both
    kinds, and Image.open raises nothing of its own (Pillow's exception, if any)."""
    head = png_with_late_chunks(make_image("L", (3, 2)), [])
    data = (head[:33] + tail)[: 33 + cut]
    assert set(late_metadata(None, data)) <= set(BOTH)
    try:
        with PILImage.open(io.BytesIO(data)):
            pass
    except Exception as error:  # Pillow refuses the bytes: the lazy open raises the same type
        with pytest.raises(type(error)):
            Image.open(io.BytesIO(data))
    else:
        assert Image.open(io.BytesIO(data)).node.params["late"] == late_metadata(None, data)
