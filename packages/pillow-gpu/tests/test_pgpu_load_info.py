"""What an opened file's info gains when Pillow loads it (pillow_gpu._load_info), known at open
without decoding: WebP's first-frame timing, a still AVIF's and an AVIF sequence's (PNG's
chunks after the pixels: test_pgpu_png_tail)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from PIL import features
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter, ImageOps
from pillow_gpu._load_info import loaded_info, tiff_loaded_info
from pillow_gpu._testing import make_image, opens_like_pillow, png_chunk, png_with_late_chunks
from pillow_gpu.errors import DecodeError
from pillow_gpu.gpu import evaluate

needs_webp = pytest.mark.skipif(
    not features.check("webp"), reason="this Pillow build has no WebP support"
)
needs_avif = pytest.mark.skipif(
    not features.check("avif"), reason="this Pillow build has no AVIF support"
)


def _webp(path: Path, durations: list[int] | None) -> Path:
    """A still WebP (``durations`` None) or an animation with those frame durations."""
    first = make_image("RGB", (9, 7), seed=1)
    if durations is None:
        first.save(path, "WEBP", lossless=True)
    else:
        frames = [make_image("RGB", (9, 7), seed=seed) for seed in range(2, len(durations) + 1)]
        first.save(
            path, "WEBP", lossless=True, save_all=True, append_images=frames, duration=durations
        )
    return path


def _pillow_loaded(path: Path) -> tuple[dict[str, object], dict[str, object]]:
    with PILImage.open(path) as opened:
        header = dict(opened.info)
        opened.load()
        return header, dict(opened.info)


@needs_webp
@pytest.mark.parametrize(
    "durations", [None, [70, 30], [0, 40, 50], [2**24 - 1, 5]], ids=["still", "anim", "zero", "max"]
)
def test_webp_timing_is_pillows_after_load(durations: list[int] | None, tmp_path: Path) -> None:
    path = _webp(tmp_path / "a.webp", durations)
    header, expected = _pillow_loaded(path)
    assert {"timestamp", "duration"} <= set(expected) - set(header)
    assert loaded_info("WEBP", str(path), None, header) == expected
    assert loaded_info("WEBP", None, path.read_bytes(), header) == expected


@needs_webp
@pytest.mark.parametrize("durations", [None, [70, 30]], ids=["still", "anim"])
def test_webp_results_carry_pillows_info(durations: list[int] | None, tmp_path: Path) -> None:
    path = _webp(tmp_path / "a.webp", durations)
    header, _ = _pillow_loaded(path)
    with PILImage.open(path) as opened:
        expected = PILImageOps.invert(opened)  # loads first
    lazy = Image.open(path)
    assert lazy.info == header  # not loaded yet, as Pillow's
    result = evaluate(ImageOps.invert(lazy))
    assert result.tobytes() == expected.tobytes()
    assert result.info == expected.info


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param("webp-still", marks=needs_webp),
        pytest.param("webp-anim", marks=needs_webp),
        pytest.param("avif-still", marks=needs_avif),
        pytest.param("avif-sequence", marks=needs_avif),
    ],
)
def test_a_copy_carries_the_loaded_info_as_pillows(kind: str, tmp_path: Path) -> None:
    """Pillow's ``copy`` loads first: its info has the timing its decoder adds."""
    path = {
        "webp-still": lambda: _webp(tmp_path / "a.webp", None),
        "webp-anim": lambda: _webp(tmp_path / "a.webp", [70, 30]),
        "avif-still": lambda: _avif(tmp_path / "a.avif", 1),
        "avif-sequence": lambda: _avif(tmp_path / "a.avif", 3, [33, 100, 7]),
    }[kind]()
    header, loaded = _pillow_loaded(path)
    with PILImage.open(path) as opened:
        expected = opened.copy()
        rotated = opened.copy().rotate(30)  # transform copies the (loaded) copy's info
        source_after = dict(opened.info)  # the copy loaded the source too
    assert expected.info == loaded == source_after != header
    lazy = Image.open(path)
    copied = lazy.copy()
    assert (copied.info, copied.copy().info, lazy.info) == (loaded, loaded, loaded)
    assert copied.rotate(30).info == rotated.info
    assert evaluate(copied).info == expected.info
    assert copied.to_pil().tobytes() == expected.tobytes()


@needs_webp
@pytest.mark.parametrize("resample", [PILImage.Resampling.NEAREST, PILImage.Resampling.BICUBIC])
def test_a_rotation_of_an_opened_webp_keeps_the_header_info(resample: int, tmp_path: Path) -> None:
    """Pillow's transform copies the info before it loads (an RGB WebP: no convert first)."""
    path = _webp(tmp_path / "a.webp", [70, 30])
    header, _ = _pillow_loaded(path)
    with PILImage.open(path) as opened:
        expected = opened.rotate(30, resample)
    assert expected.info == header
    result = evaluate(Image.open(path).rotate(30, resample))
    assert (result.info, result.tobytes()) == (expected.info, expected.tobytes())
    replayed = Image.open(path).rotate(30, resample).to_pil()  # the CPU route: Pillow replayed
    assert (replayed.info, replayed.tobytes()) == (expected.info, expected.tobytes())


@needs_webp
def test_a_webp_whose_timing_changed_since_open_fails_to_decode(tmp_path: Path) -> None:
    path = _webp(tmp_path / "a.webp", [70, 30])
    lazy = ImageOps.invert(Image.open(path))
    _webp(path, [80, 30])
    with pytest.raises(DecodeError, match="info differs from the one read at open"):
        evaluate(lazy)


@needs_webp
@pytest.mark.parametrize("route", ["gpu", "cpu"])
def test_a_webp_whose_first_frame_is_damaged_carries_the_info_of_pillow_s_load(
    route: str, tmp_path: Path
) -> None:
    """libwebp's demuxer passes over a frame whose data starts with no chunk it decodes, so
    the first frame decoded is the next one, with its duration (a corpus animation damaged
    so, found by damaging Pillow's): no walk predicts that, and Pillow loads it at open."""
    data = bytearray(_webp(tmp_path / "a.webp", [70, 30, 50]).read_bytes())
    first = data.index(b"ANMF") + 8 + 16  # the first frame's first chunk
    assert data[first : first + 4] == b"VP8L"
    data[first] = ord("=")
    assert loaded_info("WEBP", None, bytes(data), {}) is None
    with PILImage.open(io.BytesIO(bytes(data))) as opened:
        expected = PILImageOps.invert(opened)
    assert expected.info["duration"] == 30  # the second frame's
    lazy = ImageOps.invert(Image.open(io.BytesIO(bytes(data))))
    assert lazy.info == expected.info
    result = evaluate(lazy) if route == "gpu" else lazy.to_pil()
    assert (result.info, result.tobytes()) == (expected.info, expected.tobytes())


def test_other_formats_are_not_predicted(tmp_path: Path) -> None:
    path = tmp_path / "a.jpg"
    make_image("RGB", (9, 7)).save(path)
    assert loaded_info("JPEG", str(path), None, {}) is None
    assert "header_info" not in Image.open(path).node.params


@needs_webp
@settings(max_examples=200, deadline=None)
@given(tail=st.binary(max_size=300), cut=st.integers(min_value=0, max_value=400))
def test_any_riff_bytes_never_raise(tail: bytes, cut: int) -> None:
    data = (b"RIFF" + (len(tail) + 4).to_bytes(4, "little") + b"WEBP" + tail)[:cut]
    found = loaded_info("WEBP", None, data, {})
    assert found is None or (found["timestamp"] == 0 and 0 <= found["duration"] < 2**24)
    if opens_like_pillow(data):
        assert Image.open(io.BytesIO(data)).size == PILImage.open(io.BytesIO(data)).size


def _avif(path: Path, frames: int, durations: int | list[int] = 40, *, mode: str = "RGB") -> Path:
    images = [make_image(mode, (16, 12), seed=seed) for seed in range(frames)]
    images[0].save(path, "AVIF", save_all=frames > 1, append_images=images[1:], duration=durations)
    return path


@needs_avif
def test_a_still_avif_has_libavifs_fixed_timing(tmp_path: Path) -> None:
    path = _avif(tmp_path / "a.avif", 1)
    header, expected = _pillow_loaded(path)
    assert (expected["timestamp"], expected["duration"]) == (0, 1000)
    assert loaded_info("AVIF", str(path), None, header) == expected
    with PILImage.open(path) as opened:
        inverted = PILImageOps.invert(opened)
    result = evaluate(ImageOps.invert(Image.open(path)))
    assert result.info == inverted.info


#: First-frame durations of sequences: Pillow's encoder writes them in a 1 ms timescale (a 0
#: as 1), in one stts entry or several.
SEQUENCES = {"40ms": 40, "three": [33, 100, 7], "zero": [0, 5, 5], "long": [2**20, 1, 1]}


@needs_avif
@pytest.mark.parametrize("mode", ["RGB", "RGBA"], ids=["colour", "alpha-track"])
@pytest.mark.parametrize("name", list(SEQUENCES))
def test_an_avif_sequence_has_its_colour_tracks_first_timing(
    tmp_path: Path, name: str, mode: str
) -> None:
    path = _avif(tmp_path / "a.avifs", 3, SEQUENCES[name], mode=mode)
    header, expected = _pillow_loaded(path)
    assert loaded_info("AVIF", str(path), None, header) == expected
    with PILImage.open(path) as opened:
        inverted = PILImageOps.invert(opened.convert("RGB"))
    result = evaluate(ImageOps.invert(Image.open(path).convert("RGB")))
    assert result.info == inverted.info
    assert result.tobytes() == inverted.tobytes()


@needs_avif
@settings(max_examples=15, deadline=None)
@given(durations=st.lists(st.integers(0, 70_000), min_size=2, max_size=4))
def test_any_sequence_timing_is_pillows(durations: list[int]) -> None:
    data = io.BytesIO()
    frames = [make_image("L", (8, 8), seed=seed) for seed in range(len(durations))]
    frames[0].save(data, "AVIF", save_all=True, append_images=frames[1:], duration=durations)
    with PILImage.open(io.BytesIO(data.getvalue())) as opened:
        header = dict(opened.info)
        opened.load()
        assert loaded_info("AVIF", None, data.getvalue(), header) == opened.info


def _sequence_bytes() -> bytes:
    frames = [make_image("RGBA", (8, 8), seed=seed) for seed in range(3)]
    data = io.BytesIO()
    frames[0].save(data, "AVIF", save_all=True, append_images=frames[1:], duration=[33, 100, 7])
    return data.getvalue()


@needs_avif
@settings(max_examples=150, deadline=None)
@given(
    edits=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), max_size=3)
)
def test_a_changed_sequence_header_is_pillows_or_unknown(edits: list[tuple[float, int]]) -> None:
    """Bytes of the moov box (tracks, sample tables) changed: never raises, and a prediction
    is Pillow's wherever Pillow loads the file."""
    data = bytearray(_sequence_bytes())
    start = data.index(b"moov") - 4
    length = int.from_bytes(data[start : start + 4], "big")
    for where, value in edits:
        data[start + int(where * length)] = value
    found = loaded_info("AVIF", None, bytes(data), {})
    try:
        with PILImage.open(io.BytesIO(bytes(data))) as opened:
            header = dict(opened.info)
            opened.load()
            loaded = dict(opened.info)
    except Exception:  # Pillow cannot load it either (any of its exceptions)
        return
    assert found is None or {**header, **found} == loaded


@needs_avif
def test_a_zero_timescale_fails_its_own_decode() -> None:
    """Pillow's AVIF plugin divides by the track's timescale while loading: a file whose
    timescale is 0 raises ZeroDivisionError there, which fails that job's decode only."""
    data = bytearray(_sequence_bytes())
    start = data.index(b"moov") - 4
    length = int.from_bytes(data[start : start + 4], "big")
    data[start + int(0.21484375 * length)] = 0  # the edit hypothesis found
    with PILImage.open(io.BytesIO(bytes(data))) as opened, pytest.raises(ZeroDivisionError):
        opened.load()
    with GpuBatchExecutor() as executor:
        jobs = [("avif", Image.open(io.BytesIO(bytes(data)))), ("new", Image.new("L", (2, 2)))]
        found = list(executor.run(jobs, errors="deliver"))
    assert [item.ok for item in found] == [False, True]
    assert found[0].kind == "Decode"  # type: ignore[union-attr]
    assert "ZeroDivisionError" in str(found[0].error)  # type: ignore[union-attr]


def _pillow_result(data: bytes) -> PILImage.Image:
    with PILImage.open(io.BytesIO(data)) as opened:
        return opened.convert("L")  # loads first: the loaded info


@needs_avif
def test_a_sequence_whose_major_brand_is_avif_is_decoded_at_open(tmp_path: Path) -> None:
    """libavif versions differ on which part of such a file they decode, so no walk predicts
    it: the installed Pillow loads it at open, and its results carry that info."""
    data = bytearray(_avif(tmp_path / "a.avifs", 2).read_bytes())
    assert data[8:12] == b"avis"
    data[8:12] = b"avif"
    assert loaded_info("AVIF", None, bytes(data), {}) is None
    lazy = Image.open(io.BytesIO(bytes(data)))
    expected = _pillow_result(bytes(data))
    assert {"timestamp", "duration"} <= set(expected.info)
    assert (lazy.info, lazy.node.params["header_info"]) == ({}, {})  # not loaded, as Pillow's
    result = evaluate(lazy.convert("L"))
    assert (result.info, result.tobytes()) == (expected.info, expected.tobytes())


#: Bytes after a still AVIF's boxes that start a box running past the file's end: libavif
#: reads the boxes it needs and decodes the file; the walk of every top-level box cannot tell
#: whether a ``moov`` box follows (a corpus file damaged so, found by mutating Pillow's).
_RUN_PAST_END = b"\x00\x00\x01\x00free"


@needs_avif
@pytest.mark.parametrize("route", ["gpu", "cpu", "executor"])
def test_a_damaged_avif_pillow_decodes_carries_the_info_of_pillow_s_load(
    route: str, tmp_path: Path
) -> None:
    data = _avif(tmp_path / "a.avif", 1).read_bytes() + _RUN_PAST_END
    assert loaded_info("AVIF", None, data, {}) is None  # no walk answers
    expected = _pillow_result(data)
    assert expected.info == {"timestamp": 0, "duration": 1000}
    lazy = Image.open(io.BytesIO(data)).convert("L")
    assert lazy.info == expected.info  # known before any evaluation
    if route == "gpu":
        result = evaluate(lazy)
    elif route == "cpu":
        result = lazy.to_pil()
    else:
        with GpuBatchExecutor() as executor:
            (found,) = executor.run([("damaged", lazy)])
        result = found.image
    assert (result.info, result.tobytes()) == (expected.info, expected.tobytes())


@needs_avif
def test_an_avif_pillow_cannot_load_keeps_the_header_info_and_raises_at_evaluation(
    tmp_path: Path,
) -> None:
    data = bytearray(_avif(tmp_path / "a.avif", 1).read_bytes() + _RUN_PAST_END)
    data[data.rindex(b"mdat") + 8] ^= 0xFF  # the first coded byte
    with pytest.raises(RuntimeError), PILImage.open(io.BytesIO(bytes(data))) as opened:
        opened.load()
    lazy = Image.open(io.BytesIO(bytes(data)))
    assert "header_info" not in lazy.node.params
    with pytest.raises(DecodeError, match="could not be decoded"):
        evaluate(lazy.convert("L"))


_KINDS = st.sampled_from([b"ftyp", b"meta", b"moov", b"mdat", b"free"])


@settings(max_examples=200, deadline=None)
@given(boxes=st.lists(st.tuples(st.integers(8, 40), _KINDS), min_size=1, max_size=6))
def test_well_formed_boxes_are_still_exactly_without_moov(boxes: list[tuple[int, bytes]]) -> None:
    data = b"".join(size.to_bytes(4, "big") + kind + bytes(size - 8) for size, kind in boxes)
    still = {"timestamp": 0, "duration": 1000}
    moov = any(kind == b"moov" for _, kind in boxes)
    assert loaded_info("AVIF", None, data, {}) == (None if moov else still)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=120))
def test_any_bytes_as_avif_never_raise(data: bytes) -> None:
    found = loaded_info("AVIF", None, data, {})
    assert found is None or (found["timestamp"] == 0 and found["duration"] >= 0)


@needs_avif
def test_an_avif_its_codec_cannot_decode_is_a_decode_error(tmp_path: Path) -> None:
    data = bytearray(_avif(tmp_path / "a.avif", 1).read_bytes())
    data[data.rindex(b"mdat") + 8] ^= 0xFF  # the first coded byte
    path = tmp_path / "broken.avif"
    path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError), PILImage.open(path) as opened:  # Pillow's own failure
        opened.load()
    with pytest.raises(DecodeError, match="could not be decoded") as caught:
        evaluate(ImageOps.invert(Image.open(path)))
    assert "RuntimeError" in caught.value.observed


def _late_text_png(folder: Path) -> Path:
    """A PNG whose text chunks come after its pixels (Pillow's load adds them to its info)."""
    chunks = [png_chunk(b"tEXt", b"Comment\0after"), png_chunk(b"tEXt", b"Author\0someone")]
    path = folder / "a.png"
    path.write_bytes(png_with_late_chunks(make_image("RGB", (9, 7), seed=3), chunks))
    return path


#: Files whose load adds to their info, by kind.
LOADING_KINDS = {
    "webp-still": (lambda path: _webp(path / "a.webp", None), needs_webp),
    "webp-anim": (lambda path: _webp(path / "a.webp", [70, 30]), needs_webp),
    "avif-sequence": (lambda path: _avif(path / "a.avif", 3, [33, 100, 7]), needs_avif),
    "png-late-text": (_late_text_png, None),
}
LOADING_PARAMS = [
    pytest.param(kind, marks=() if mark is None else mark)
    for kind, (_, mark) in LOADING_KINDS.items()
]
#: First uses of an opened image: Pillow's image loads at each.
FIRST_USES = {
    "copy": lambda im: im.copy(),
    "resize": lambda im: im.resize((5, 4)),
    "rotate": lambda im: im.rotate(20),
    "crop": lambda im: im.crop((1, 1, 6, 5)),
    "convert": lambda im: im.convert("L"),
    "filter": lambda im: im.filter(
        PILImageFilter.BLUR if isinstance(im, PILImage.Image) else ImageFilter.BLUR
    ),
    "point": lambda im: im.point(lambda value: 255 - value),
    "getpixel": lambda im: im.getpixel((0, 0)),
    "tobytes": lambda im: im.tobytes(),
}


@pytest.mark.parametrize("use", list(FIRST_USES))
@pytest.mark.parametrize("kind", LOADING_PARAMS)
def test_the_handle_shows_the_loaded_info_after_its_first_use(
    kind: str, use: str, tmp_path: Path
) -> None:
    """Pillow's operations load their image first, so after any of them the opened image's
    info holds what the load added (a WebP's or AVIF's timing, a PNG's text after its
    pixels), and a later transform (which copies the info as it stands) carries it."""
    path = LOADING_KINDS[kind][0](tmp_path)
    header, loaded = _pillow_loaded(path)
    with PILImage.open(path) as opened:
        FIRST_USES[use](opened)
        shown = dict(opened.info)
        rotated = opened.rotate(30)
    assert shown == loaded != header
    lazy = Image.open(path)
    assert lazy.info == header
    FIRST_USES[use](lazy)
    assert lazy.info == shown
    again = lazy.rotate(30)
    assert again.info == rotated.info
    for result in (evaluate(again), again.to_pil()):
        assert (result.info, result.tobytes()) == (rotated.info, rotated.tobytes())


@pytest.mark.parametrize("kind", LOADING_PARAMS)
def test_an_info_edit_after_the_first_use_is_kept_as_pillows(kind: str, tmp_path: Path) -> None:
    """An edit after Pillow's load stays as made (the load does not run again to add its
    keys back), reaching every route's results; the pixels are the file's as opened."""
    path = LOADING_KINDS[kind][0](tmp_path)
    _, loaded = _pillow_loaded(path)
    added = sorted(set(loaded) - set(_pillow_loaded(path)[0]))

    def edited(image: Any) -> Any:
        image.resize((4, 4))  # the first use: Pillow's image loads
        for key in added:
            del image.info[key]
        image.info["dpi"] = (72, 72)
        return image

    with PILImage.open(path) as opened:
        expected = PILImageOps.invert(edited(opened).convert("RGB"))
    assert not set(added) & set(expected.info)
    lazy = ImageOps.invert(edited(Image.open(path)).convert("RGB"))
    assert lazy.info == expected.info
    with GpuBatchExecutor() as executor:
        (batched,) = [result.image for result in executor.run([(0, lazy)])]
    for result in (evaluate(lazy), lazy.to_pil(), batched):
        assert (result.info, result.tobytes()) == (expected.info, expected.tobytes())


#: Reads of an opened image that Pillow answers without loading it (but a PNG's getexif).
NO_LOAD = {
    "getbands": lambda im: im.getbands(),
    "has_transparency_data": lambda im: im.has_transparency_data,
    "getexif": lambda im: im.getexif(),
    "getxmp": lambda im: im.getxmp(),
    "verify": lambda im: im.verify(),
    "draft": lambda im: im.draft("L", (4, 4)),
    "seek0": lambda im: im.seek(0),
    "n_frames": lambda im: im.n_frames,
}


@pytest.mark.parametrize("read", list(NO_LOAD))
@pytest.mark.parametrize("kind", LOADING_PARAMS)
def test_reads_that_load_nothing_leave_the_header_info(
    kind: str, read: str, tmp_path: Path
) -> None:
    """(A PNG's ``getexif`` loads the file where its header has no ``exif``: its eXIf chunk
    may follow the pixels.)"""
    path = LOADING_KINDS[kind][0](tmp_path)
    header, loaded = _pillow_loaded(path)
    with PILImage.open(path) as opened:
        NO_LOAD[read](opened)
        shown = dict(opened.info)
    assert shown == (loaded if (kind, read) == ("png-late-text", "getexif") else header)
    lazy = Image.open(path)
    NO_LOAD[read](lazy)
    assert lazy.info == shown
    lazy.resize((4, 4))
    assert lazy.info == loaded


#: XMP packets carrying an orientation as an element, a double-quoted attribute (both of which
#: Pillow's exif_transpose strips) and a single-quoted one (which it leaves).
XMP_FORMS = {
    "element": "<rdf:Description xmlns:tiff='http://ns.adobe.com/tiff/1.0/'>"
    "<tiff:Orientation>{o}</tiff:Orientation></rdf:Description>",
    "attribute": "<rdf:Description xmlns:tiff='http://ns.adobe.com/tiff/1.0/' "
    'tiff:Orientation="{o}"/>',
    "single-quoted": "<rdf:Description xmlns:tiff='http://ns.adobe.com/tiff/1.0/' "
    "tiff:Orientation='{o}'/>",
}


def _oriented_tiff(
    path: Path, size: tuple[int, int], orientation: int, form: str, xmp_orientation: int
) -> Path:
    """A TIFF whose tags say ``orientation`` and whose XMP packet says ``xmp_orientation``."""
    description = XMP_FORMS[form].format(o=xmp_orientation)
    xmp = (
        "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF "
        f"xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>{description}</rdf:RDF>"
        "</x:xmpmeta>"
    ).encode()
    make_image("RGB", size, seed=4).save(path, "TIFF", tiffinfo={0x0112: orientation, 700: xmp})
    return path


def _handed_edit(image: Any, edit: str) -> Any:
    """``image`` after an edit of the orientation in the ``Exif`` it hands out."""
    if edit == "none":
        return image
    exif = image.getexif()
    if edit == "deleted":
        del exif[0x0112]
    else:
        exif[0x0112] = int(edit)
    return image


#: (size, the tags' orientation, an edit of the handed Exif's): the loads keep the size the
#: header reports (a square, or no edit), which the graph is recorded on.
TURNED_TIFFS = [
    *(
        ((8, 8), orientation, edit)
        for orientation in (6, 1)
        for edit in ("none", "1", "3", "deleted", "8")
    ),
    ((6, 4), 6, "none"),
    ((6, 4), 3, "none"),
    ((5, 3), 8, "none"),
]


@pytest.mark.parametrize("form", list(XMP_FORMS))
@pytest.mark.parametrize(
    ("size", "orientation", "edit"),
    TURNED_TIFFS,
    ids=[f"{w}x{h}-{o}-edit-{e}" for (w, h), o, e in TURNED_TIFFS],
)
def test_a_turned_tiffs_xmp_loses_its_orientation_as_pillows(
    size: tuple[int, int], orientation: int, edit: str, form: str, tmp_path: Path
) -> None:
    """Pillow's TIFF plugin turns the pixels at the end of its load (``exif_transpose`` in
    place, by the orientation of the ``Exif`` it hands out, edits included), which strips the
    orientation from the XMP packet (an element or a double-quoted attribute); every route's
    results carry that ``info``, and the handle shows it from its first use. (The results
    kept the header's packet before.)"""
    path = _oriented_tiff(tmp_path / "a.tif", size, orientation, form, orientation)
    with PILImage.open(path) as opened:
        _handed_edit(opened, edit)
        expected = opened.rotate(90, expand=True)
        shown = dict(opened.info)
    lazy = _handed_edit(Image.open(path), edit)
    graph = lazy.rotate(90, expand=True)
    assert (graph.size, graph.info, lazy.info) == (expected.size, expected.info, shown)
    with GpuBatchExecutor() as executor:
        (batched,) = [result.image for result in executor.run([(0, graph)])]
    for result in (evaluate(graph), graph.to_pil(), batched):
        assert (result.size, result.info, result.tobytes()) == (
            expected.size,
            expected.info,
            expected.tobytes(),
        )


#: Edits of an opened TIFF's info before its load.
INFO_EDITS_BEFORE_LOAD = {
    "dpi": lambda info: info.__setitem__("dpi", (10, 10)),
    "xmp-replaced": lambda info: info.__setitem__(
        "xmp", info["xmp"].replace(b"</rdf:RDF>", b"<x/></rdf:RDF>")
    ),
    "xmp-deleted": lambda info: info.__delitem__("xmp"),
    "cleared": lambda info: info.clear(),
}


@pytest.mark.parametrize("orientation", [6, 1])
@pytest.mark.parametrize("edit", list(INFO_EDITS_BEFORE_LOAD))
def test_an_info_edit_before_a_turned_tiff_loads_is_stripped_as_pillows(
    edit: str, orientation: int, tmp_path: Path
) -> None:
    """Pillow's TIFF load strips the orientation from the XMP packet of the dict it finds,
    the caller's edits included (an edit before the load: an edit after it stays as made)."""
    path = _oriented_tiff(tmp_path / "a.tif", (8, 8), orientation, "element", orientation)
    with PILImage.open(path) as opened:
        INFO_EDITS_BEFORE_LOAD[edit](opened.info)
        expected = opened.rotate(90)
    lazy = Image.open(path)
    INFO_EDITS_BEFORE_LOAD[edit](lazy.info)
    graph = lazy.rotate(90)
    assert graph.info == expected.info
    with GpuBatchExecutor() as executor:
        (batched,) = [result.image for result in executor.run([(0, graph)])]
    for result in (evaluate(graph), graph.to_pil(), batched):
        assert (result.info, result.tobytes()) == (expected.info, expected.tobytes())


def test_tiff_loaded_info_compares_only_the_packets() -> None:
    """A caller's values whose ``!=`` answers no bool (an array) never break the prediction:
    only the XMP packets are compared, and such a packet counts as changed."""
    packet = b"<x:xmpmeta><tiff:Orientation>6</tiff:Orientation></x:xmpmeta>"
    header = {"xmp": packet, "other": np.zeros(3)}
    loaded = tiff_loaded_info(header, 6)
    assert loaded is not None
    assert loaded["xmp"] == b"<x:xmpmeta></x:xmpmeta>"
    assert loaded["other"] is header["other"]
    assert tiff_loaded_info(header, 1) is None  # no turn: nothing changes
    assert tiff_loaded_info({"xmp": np.frombuffer(packet, np.uint8)}, 6) is not None
    assert tiff_loaded_info({"xmp": packet, "exif": b"Exif\0\0"}, 6) is None  # not predicted
