"""The metadata a PNG carries after its image data (pillow_gpu._png_tail), read without
decoding, and what Image.open records from it."""

from __future__ import annotations

import contextlib
import io
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from PIL import ImageFile
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps, _png_tail
from pillow_gpu._png_tail import (
    LATE_INFO,
    LATE_ORIENTATION,
    LATE_TRANSPARENCY,
    late_metadata,
    late_metadata_in,
    loaded_info,
)
from pillow_gpu._testing import (
    assert_image_equal,
    make_image,
    opens_like_pillow,
    png_chunk,
    png_with_late_chunks,
)
from pillow_gpu.errors import DecodeError
from pillow_gpu.gpu import evaluate

ALL = (LATE_INFO, LATE_ORIENTATION, LATE_TRANSPARENCY)
ORIENTATION = (LATE_INFO, LATE_ORIENTATION)


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
    "comment": ([_text(b"tEXt", b"comment", b"made by a tool")], (LATE_INFO,)),
    "date-ztxt": ([_text(b"zTXt", b"date:create", b"2026-12-04")], (LATE_INFO,)),
    "exif": ([_exif_chunk()], ORIENTATION),
    "raw-profile-ztxt": (
        [_text(b"zTXt", b"Raw profile type exif", b"\nexif\n 0\n")],
        ORIENTATION,
    ),
    "raw-profile-text": ([_text(b"tEXt", b"Raw profile type exif", b"x")], ORIENTATION),
    "xmp-itxt": ([_text(b"iTXt", b"XML:com.adobe.xmp", b"<x/>")], ORIENTATION),
    "trns": (
        [png_chunk(b"tRNS", b"\x00\x10\x00\x20\x00\x30")],
        (LATE_INFO, LATE_TRANSPARENCY),
    ),
    "exif-and-trns": ([png_chunk(b"tRNS", b"\x00\x10\x00\x20\x00\x30"), _exif_chunk()], ALL),
    "unknown-chunk": ([png_chunk(b"prVt", b"\x01\x02")], (LATE_INFO,)),
}


@pytest.mark.parametrize("case", list(LATE_CASES))
def test_late_metadata_names_what_follows_the_pixels(case: str, tmp_path: Path) -> None:
    chunks, expected = LATE_CASES[case]
    data = png_with_late_chunks(make_image("RGB", (9, 7), seed=3), chunks)
    assert late_metadata(None, data) == expected
    path = tmp_path / "late.png"
    path.write_bytes(data)
    assert late_metadata(str(path), None) == expected
    with path.open("rb") as stream:  # a file open elsewhere: walked from its start, kept
        stream.seek(33)
        assert late_metadata_in(stream) == expected
        assert stream.tell() == 33
    leaf = Image.open(path).node
    assert leaf.params["late"] == expected
    with PILImage.open(path) as opened:  # Pillow still opens and decodes the file alike
        opened.load()


@pytest.mark.parametrize("pread", [True, False], ids=["pread", "seek-and-read"])
@pytest.mark.parametrize("case", list(LATE_CASES))
def test_a_file_of_many_chunks_is_walked_a_header_at_a_time_alike(
    case: str, pread: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above 256 KiB the walk reads each chunk header where it is (``os.pread``, or a seek and
    a read where there is none), instead of the file whole: the same answer either way."""
    chunks, expected = LATE_CASES[case]
    monkeypatch.setattr(ImageFile, "MAXBLOCK", 8192)  # 8 KiB data chunks, as libpng writes
    data = png_with_late_chunks(make_image("RGB", (400, 300), seed=3), chunks)
    assert len(data) > 256 << 10  # the case is as named
    assert data.count(b"IDAT") > 40
    if not pread:
        monkeypatch.delattr(os, "pread", raising=False)
    path = tmp_path / "many.png"
    path.write_bytes(data)
    assert late_metadata(str(path), None) == late_metadata(None, data) == expected
    with path.open("rb") as stream:
        stream.seek(33)
        assert late_metadata_in(stream) == expected
        assert stream.tell() == 33
    assert Image.open(path).node.params["late"] == expected


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
    assert set(found) <= set(ORIENTATION)


def test_other_formats_and_garbage_carry_nothing(tmp_path: Path) -> None:
    assert late_metadata(None, b"GIF89a" + bytes(40)) == ()
    assert late_metadata(None, b"") == ()
    assert late_metadata(None, None) == ()
    path = tmp_path / "x.gif"
    make_image("L", (4, 4)).convert("P").save(path)
    assert Image.open(path).node.params["late"] == ()


def test_a_file_of_too_many_chunks_is_reported_carrying_all_kinds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_png_tail, "MAX_CHUNKS", 4)
    chunks = [png_chunk(b"prVt", b"") for _ in range(8)]
    data = png_with_late_chunks(make_image("L", (4, 4)), chunks)
    assert late_metadata(None, data) == ALL


def test_a_huge_declared_length_ends_the_walk() -> None:
    data = png_with_late_chunks(make_image("L", (4, 4)), [])
    end = data.rindex(b"IEND") - 4
    hostile = data[:end] + b"\xff\xff\xff\xf0eXIf" + bytes(16) + data[end:]
    assert late_metadata(None, hostile) == ORIENTATION  # seen, then past the end


@settings(max_examples=200, deadline=None)
@given(tail=st.binary(max_size=400), cut=st.integers(min_value=0, max_value=500))
def test_any_bytes_after_a_png_header_never_raise(tail: bytes, cut: int) -> None:
    """Hostile bytes after a real signature and IHDR: the walk ends, names at most the three
    kinds, and Image.open raises nothing of its own (Pillow's exception, if any)."""
    head = png_with_late_chunks(make_image("L", (3, 2)), [])
    data = (head[:33] + tail)[: 33 + cut]
    assert set(late_metadata(None, data)) <= set(ALL)
    if opens_like_pillow(data):
        assert Image.open(io.BytesIO(data)).node.params["late"] == late_metadata(None, data)


# -- what follows the pixels joins info when the file loads, as in Pillow --------------------

_TEXT_TAIL = [
    _text(b"tEXt", b"date:create", b"2026-12-04T10:00:00+00:00"),
    _text(b"zTXt", b"comment", b"written after the pixels"),
    _text(b"iTXt", b"Title", b"late title"),
    png_chunk(b"pHYs", (2835).to_bytes(4, "big") * 2 + b"\x01"),
]


@pytest.mark.parametrize("source", ["path", "bytes"])
def test_loaded_info_is_pillows_after_load(source: str, tmp_path: Path) -> None:
    data = png_with_late_chunks(make_image("RGB", (9, 7), seed=5), _TEXT_TAIL)
    path = tmp_path / "late.png"
    path.write_bytes(data)
    with PILImage.open(path) as opened:
        header = dict(opened.info)
        opened.load()
        expected = dict(opened.info)
    assert {"date:create", "comment", "Title", "dpi"} <= set(expected) - set(header)
    found = loaded_info(str(path), None) if source == "path" else loaded_info(None, data)
    assert found == expected


def test_a_leaf_shows_the_header_info_and_its_operations_the_loaded_one(tmp_path: Path) -> None:
    path = tmp_path / "late.png"
    path.write_bytes(png_with_late_chunks(make_image("L", (6, 5), seed=6), _TEXT_TAIL))
    with PILImage.open(path) as opened:
        header = dict(opened.info)
        inverted = PILImageOps.invert(opened)  # loads first: the info of the loaded image
    lazy = Image.open(path)
    assert lazy.info == header  # not loaded yet, as Pillow's
    derived = ImageOps.invert(lazy)
    assert derived.info == inverted.info != header
    assert evaluate(derived).info == inverted.info
    assert lazy.to_pil().info == inverted.info
    lazy.load()
    assert lazy.info == inverted.info  # loaded now, as Pillow's after load()


@pytest.mark.parametrize("case", ["comment", "date-ztxt", "exif", "xmp-itxt", "nothing"])
def test_getexif_loads_a_png_without_an_exif_chunk_before_its_pixels(
    case: str, tmp_path: Path
) -> None:
    path = tmp_path / "late.png"
    path.write_bytes(png_with_late_chunks(make_image("RGB", (6, 5), seed=6), LATE_CASES[case][0]))
    found = []
    for opened in (PILImage.open(path), Image.open(path)):
        exif = opened.getexif()  # Pillow's PNG plugin loads the image first
        found.append((dict(exif), dict(opened.info), opened.getexif() is exif))
    assert found[1] == found[0]
    assert Image.open(path).is_evaluated is False
    handle = Image.open(path)
    handle.getexif()
    assert handle.is_evaluated  # loaded, as Pillow's image is


#: Operations on an opened file: Pillow's transform (rotate at other angles than multiples
#: of 90) copies the info before loading, except LA and RGBA filtered, which convert first;
#: the others (``copy`` included) load first.
OPENED_OPERATIONS = {
    "rotate-nearest": lambda im: im.rotate(30),
    "rotate-bicubic": lambda im: im.rotate(30, PILImage.Resampling.BICUBIC, expand=True),
    "quad-bilinear": lambda im: im.transform(
        (5, 4), PILImage.Transform.QUAD, (0, 0, 1, 6, 5, 5, 6, 1), PILImage.Resampling.BILINEAR
    ),
    "rotate-90": lambda im: im.rotate(90),
    "resize": lambda im: im.resize((4, 3)),
    "copy": lambda im: im.copy(),  # Pillow's copy loads first
    "copy-rotate-nearest": lambda im: im.copy().rotate(30),
}


@pytest.mark.parametrize("loaded", [False, True], ids=["opened", "loaded"])
@pytest.mark.parametrize("operation", list(OPENED_OPERATIONS))
@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA", "P"])
def test_an_operations_info_is_what_pillow_copies(
    mode: str, operation: str, loaded: bool, tmp_path: Path
) -> None:
    path = tmp_path / "late.png"
    path.write_bytes(png_with_late_chunks(make_image(mode, (6, 5), seed=7), _TEXT_TAIL))
    apply = OPENED_OPERATIONS[operation]
    with PILImage.open(path) as opened:
        if loaded:
            opened.load()
        expected = apply(opened)
    lazy = Image.open(path)
    if loaded:
        lazy.load()
    derived = apply(lazy)
    assert derived.info == expected.info
    assert evaluate(derived).info == expected.info


#: tRNS chunks (after the pixels): P alphas of the first entries, P one index, an L value and
#: an RGB colour (16 bits per sample, as PNG stores them).
LATE_TRNS = {
    "P-alphas": ("P", bytes([0, 128, 255, 7])),
    "P-index": ("P", bytes([3])),
    "L": ("L", b"\x00\x02"),
    "RGB": ("RGB", b"\x00\x01\x00\x02\x00\x00"),
}
#: Pipelines reading the transparency (conversions, the flattening idiom) and the others.
TRNS_PIPELINES = {
    "convert-RGBA": lambda im, ops: im.convert("RGBA"),
    "convert-LA": lambda im, ops: im.convert("LA"),
    "convert-PA": lambda im, ops: im.convert("PA"),
    "convert-RGB": lambda im, ops: im.convert("RGB"),
    "convert-P": lambda im, ops: im.convert("P"),
    "thumbnail": lambda im, ops: ops.contain(im, (4, 4)),
    "rotate": lambda im, ops: im.rotate(30, expand=True),
    "exif_transpose": lambda im, ops: ops.exif_transpose(im),
    "invert": lambda im, ops: ops.invert(im.convert("RGB")),
    # Copies the transparency its image shows before loading, unless a palette loads it.
    "expand": lambda im, ops: ops.expand(im, 2, 0),
}


def _late_trns_png(case: str) -> bytes:
    mode, chunk = LATE_TRNS[case]
    values = [v % 6 for v in range(35)]
    source = PILImage.new(mode, (7, 5))
    if mode == "P":
        source.putpalette([(7 * i) % 256 for i in range(768)])
    source.putdata([(v, v // 2, 0) for v in values] if mode == "RGB" else values)
    return png_with_late_chunks(source, [png_chunk(b"tRNS", chunk)])


@pytest.mark.filterwarnings("ignore:Palette images with Transparency expressed in bytes")
@pytest.mark.parametrize("pipeline", list(TRNS_PIPELINES))
@pytest.mark.parametrize("case", list(LATE_TRNS))
def test_a_transparency_chunk_after_the_pixels_is_applied_as_pillow_does(
    case: str, pipeline: str, tmp_path: Path
) -> None:
    """Pillow applies a tRNS chunk after the pixels while loading; the leaf's operations start
    from the loaded info (its ``transparency``), so the GPU gives Pillow's result, also right
    after a same-shaped file without it (a plan of another shape)."""
    path = tmp_path / "late-trns.png"
    path.write_bytes(_late_trns_png(case))
    clean = tmp_path / "clean.png"
    apply = TRNS_PIPELINES[pipeline]
    with PILImage.open(path) as opened:
        expected = apply(opened, PILImageOps)
    with PILImage.open(path) as opened:
        opened.save(clean)  # Pillow writes the tRNS before the pixels
    got = evaluate(apply(Image.open(path), ImageOps))
    assert_image_equal(got, expected)
    assert got.info == expected.info
    recorded = apply(Image.open(path), ImageOps)
    assert recorded.info == expected.info  # known before evaluation
    replayed = recorded.to_pil()
    assert_image_equal(replayed, expected)
    assert replayed.info == expected.info
    with GpuBatchExecutor() as executor:
        jobs = [(0, apply(Image.open(clean), ImageOps)), (1, apply(Image.open(path), ImageOps))]
        results = {result.input_key: result.image for result in executor.run(jobs)}
    assert_image_equal(results[1], expected)
    assert results[1].info == expected.info


def test_loaded_info_of_files_pillow_cannot_finish_is_none(tmp_path: Path) -> None:
    data = png_with_late_chunks(make_image("L", (6, 5)), _TEXT_TAIL)
    cut = data[: data.rindex(b"zTXt") + 6]  # inside a compressed text chunk
    assert loaded_info(None, cut) is None
    assert loaded_info(None, b"not a png") is None
    path = tmp_path / "cut.png"
    path.write_bytes(cut)
    lazy = Image.open(path)
    assert lazy.node.info == lazy.info  # nothing loaded: the header's, as recorded before


def _animation_with(path: Path, chunks: dict[int, bytes]) -> None:
    """Three frames, ``chunks[n]`` put before the n-th frame control chunk (2 or 3: after the
    first frame's data)."""
    frames = [make_image("RGB", (6, 5), seed=seed) for seed in (1, 2, 3)]
    written = io.BytesIO()
    frames[0].save(written, "PNG", save_all=True, append_images=frames[1:], duration=40)
    data, position, parts, controls = written.getvalue(), 8, [written.getvalue()[:8]], 0
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        if data[position + 4 : position + 8] == b"fcTL":
            controls += 1
            parts.append(chunks.get(controls, b""))
        parts.append(data[position : position + 12 + length])
        position += 12 + length
    path.write_bytes(b"".join(parts))


def _animated_with_text(path: Path) -> None:
    """Three frames, a text chunk before the second frame and one before the third."""
    _animation_with(path, {n: _text(b"tEXt", b"before-frame-%d" % n, b"text") for n in (2, 3)})


@pytest.mark.parametrize(
    ("frame", "late"),
    [(2, ORIENTATION), (3, ())],
    ids=["before-the-second-frame", "before-the-third-frame"],
)
def test_an_animation_is_walked_to_its_second_frame_where_pillows_load_stops(
    tmp_path: Path, frame: int, late: tuple[str, ...]
) -> None:
    # Pillow's load of an animation's first frame reads the chunks after its data up to the
    # next frame's control chunk: an orientation there turns it, one further on does not.
    path = tmp_path / "anim.png"
    _animation_with(path, {frame: _exif_chunk()})
    with path.open("rb") as stream:
        assert late_metadata_in(stream, animated=True) == late
        assert late_metadata_in(stream) == ORIENTATION  # walked to the end: every chunk
    lazy = Image.open(path)
    assert lazy.node.params["late"] == late
    with PILImage.open(path) as opened:
        expected = PILImageOps.exif_transpose(opened)
        assert (expected.size != opened.size) is (frame == 2)
        result = ImageOps.exif_transpose(lazy)
        assert_image_equal(result.to_pil(), expected)
        assert result.info == expected.info


def test_an_animated_png_s_loaded_info_is_its_first_frame_s(tmp_path: Path) -> None:
    path = tmp_path / "anim.png"
    _animated_with_text(path)
    with PILImage.open(path) as opened:
        header = dict(opened.info)
        opened.load()  # the first frame: the reader stops at the second frame's fcTL
        expected = dict(opened.info)
    assert expected != header
    assert "before-frame-2" in expected
    assert "before-frame-3" not in expected
    assert loaded_info(str(path), None) == expected
    lazy = Image.open(path)
    assert lazy.info == header  # not loaded yet, as Pillow's
    with PILImage.open(path) as again:
        assert again.convert("RGB").info == expected  # Pillow's operations load first
    assert lazy.convert("RGB").info == expected
    assert evaluate(ImageOps.invert(lazy.convert("RGB"))).info == expected


def test_a_file_whose_chunks_after_the_pixels_changed_since_open_fails_to_decode(
    tmp_path: Path,
) -> None:
    path = tmp_path / "late.png"
    path.write_bytes(png_with_late_chunks(make_image("L", (6, 5), seed=7), _TEXT_TAIL))
    lazy = ImageOps.invert(Image.open(path))
    path.write_bytes(png_with_late_chunks(make_image("L", (6, 5), seed=7), _TEXT_TAIL[:1]))
    with pytest.raises(DecodeError, match="info differs from the one read at open"):
        evaluate(lazy)


#: How the handle is used before its ``text`` is read: Pillow's image loads its first frame
#: for every use, and not for metadata reads.
TEXT_USES: dict[str, Any] = {
    "nothing": lambda im: None,
    "info-read": lambda im: im.info,
    "size-read": lambda im: im.size,
    "convert": lambda im: im.convert("RGB"),
    "load": lambda im: im.load(),
    "tobytes": lambda im: im.tobytes(),
    "getexif": lambda im: im.getexif(),
    "seek-1": lambda im: im.seek(1),
    "seek-2": lambda im: im.seek(2),
}


def _text_outcome(path: Path, opener: Any, use: str) -> Any:
    with contextlib.ExitStack() as stack:
        image = opener(path)
        if isinstance(image, PILImage.Image):
            stack.enter_context(image)
        try:
            TEXT_USES[use](image)
        except Exception as error:  # the use's own error, compared by type
            used: Any = type(error).__name__
        else:
            used = "ok"
        try:
            return used, dict(image.text)
        except Exception as error:  # the outcome compared is the exception's type
            return used, type(error).__name__


#: (use, cut) pairs: every use of the whole file and of one cut in its last frame, but
#: seeking the cut frame (the handle decodes a sought frame at the seek, so its error comes
#: there; Pillow's seek succeeds and the frame's first use raises).
TEXT_CASES = [
    (use, cut) for cut in (False, True) for use in TEXT_USES if not (cut and use == "seek-2")
]


@pytest.mark.parametrize(
    ("use", "cut"),
    TEXT_CASES,
    ids=[f"{'cut' if cut else 'whole'}-{use}" for use, cut in TEXT_CASES],
)
def test_text_after_a_use_is_what_pillow_s_load_read(tmp_path: Path, use: str, cut: bool) -> None:
    path = tmp_path / "anim.png"
    _animated_with_text(path)
    if cut:
        data = path.read_bytes()
        path.write_bytes(data[: data.rindex(b"fdAT") + 12])
    expected = _text_outcome(path, PILImage.open, use)
    assert _text_outcome(path, Image.open, use) == expected
    if not cut and not use.startswith("seek"):
        loaded = use not in ("nothing", "info-read", "size-read")
        assert ("before-frame-3" in expected[1]) is not loaded  # the case is what it says
