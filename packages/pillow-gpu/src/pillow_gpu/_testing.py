"""Helpers for pillow-gpu's test-suite: deterministic source images and exact comparisons."""

from __future__ import annotations

import io
import math
import numbers
import struct
import warnings
import zlib
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from PIL import ImageSequence as PILImageSequence

from pillow_gpu import Image, ImageChops, ImageEnhance, ImageFilter, ImageOps, ImageSequence
from pillow_gpu.gpu._layout import bilevel_bytes, words_of_image

__all__ = [
    "FRAME_LOOPS",
    "LAZY_MODULES",
    "MODES",
    "PILLOW_MODULES",
    "SIZES",
    "WHOLE_FILE_CALLS",
    "assert_image_equal",
    "call_outcome",
    "frame_steps",
    "isobmff_times_zeroed",
    "make_image",
    "opens_like_pillow",
    "pillow_converts",
    "png_chunk",
    "png_with_late_chunks",
    "png_without_chunk",
    "rebuilt",
    "tiff_entry_edited",
    "tiff_page_number_zeroed",
    "undated_info",
    "unstamped",
    "whole_file_outcome",
]

#: Native modes and the parity sizes every route is checked at.
MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")
SIZES = ((1, 1), (3, 2), (19, 17), (65, 33))

#: Pillow's modules and pillow_gpu's, by the same names: a test written once against ``m``
#: (``m.ImageOps.invert(image)``) runs with either.
PILLOW_MODULES = SimpleNamespace(
    Image=PILImage,
    ImageChops=PILImageChops,
    ImageEnhance=PILImageEnhance,
    ImageFilter=PILImageFilter,
    ImageOps=PILImageOps,
    ImageSequence=PILImageSequence,
)
LAZY_MODULES = SimpleNamespace(
    Image=Image,
    ImageChops=ImageChops,
    ImageEnhance=ImageEnhance,
    ImageFilter=ImageFilter,
    ImageOps=ImageOps,
    ImageSequence=ImageSequence,
)


def make_image(mode: str, size: tuple[int, int], seed: int = 0) -> PILImage.Image:
    """A random image; RGB gets random padding bytes so padding handling is observable."""
    rng = np.random.default_rng(seed)
    width, height = size
    if mode == "RGB":
        data = rng.integers(0, 256, width * height * 4, dtype=np.uint8).tobytes()
        return PILImage.frombytes("RGB", size, data, "raw", "RGBX")
    bands = PILImage.getmodebands(mode)
    data = rng.integers(0, 256, width * height * bands, dtype=np.uint8).tobytes()
    return PILImage.frombytes(mode, size, data)


#: Three-band modes Pillow stores in four bytes a pixel: ``tobytes()`` leaves the padding byte
#: out, which its Arrow export shows and a paste of the image's words reads. (LA, La and PA's
#: bytes 1 and 2 are not compared: Pillow's operations fill them differently and the GPU's
#: results hold L there; the two calls that read them are refused, see the README.)
_PADDED_MODES = frozenset({"RGB", "YCbCr", "HSV", "LAB"})


def assert_image_equal(actual: PILImage.Image, expected: PILImage.Image) -> None:
    """Mode, size and bytes equal; for the modes of :data:`_PADDED_MODES` also the padding
    byte, for 1 the stored bytes (``tobytes`` packs them to bits)."""
    assert actual.mode == expected.mode, (actual.mode, expected.mode)
    assert actual.size == expected.size, (actual.size, expected.size)
    if actual.tobytes() != expected.tobytes():
        a = np.frombuffer(actual.tobytes(), dtype=np.uint8)
        e = np.frombuffer(expected.tobytes(), dtype=np.uint8)
        where = np.flatnonzero(a != e)
        raise AssertionError(
            f"{where.size} of {a.size} bytes differ; first at {where[:5].tolist()}: "
            f"got {a[where[:5]].tolist()} expected {e[where[:5]].tolist()}"
        )
    if actual.mode in _PADDED_MODES:
        got, want = words_of_image(actual), words_of_image(expected)
        where = np.flatnonzero(got != want)
        if where.size:
            raise AssertionError(
                f"{where.size} stored words of the {actual.mode} image differ (its padding "
                f"byte, which tobytes() leaves out); first at pixel {where[:5].tolist()}: "
                f"got {[hex(w) for w in got[where[:5]]]} expected "
                f"{[hex(w) for w in want[where[:5]]]}"
            )
    # tobytes() packs "not zero"; getpixel and point read the byte (an empty image has none)
    if actual.mode == "1" and actual.width and actual.height:
        message = "stored bytes of the 1 image differ"  # rows in several blocks included
        assert bilevel_bytes(actual) == bilevel_bytes(expected), message


def rebuilt(image: Any) -> Any:
    """A new lazy handle on a copy of ``image``'s graph in which no node has a cached result.

    ``to_pil()`` and ``evaluate()`` cache the root's pixels, after which the other returns that
    cache: a test that checks both routes runs each on its own copy of the graph.
    """
    from pillow_gpu._graph import Node
    from pillow_gpu.Image import Image

    copies: dict[int, Node] = {}

    def copy(node: Node) -> Node:
        found = copies.get(id(node))
        if found is None:
            inputs = tuple(copy(child) for child in node.inputs)
            found = Node(
                op=node.op,
                params=node.params,
                inputs=inputs,
                mode=node.mode,
                size=node.size,
                info=node.info,
            )
            copies[id(node)] = found
        return found

    return Image(copy(image.node))


def call_outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    """What ``call()`` did: the type and message of the exception it raised, or ``("ok", mode,
    size)`` of the image it returned (to compare a recorded call with live Pillow's)."""
    try:
        image = call()
    except Exception as error:  # the exception is the outcome compared
        return type(error), str(error)
    return "ok", image.mode, image.size


def opens_like_pillow(data: bytes) -> bool:
    """Open ``data`` with Pillow and with ``pillow_gpu.Image.open``: where Pillow raises, the
    lazy open raises the same type (an AssertionError otherwise). True when Pillow opens it."""
    from pillow_gpu import Image  # the package imports this module's neighbours

    try:
        with PILImage.open(io.BytesIO(data)):
            pass
    except Exception as error:  # Pillow refuses the bytes: the lazy open raises the same type
        try:
            Image.open(io.BytesIO(data))
        except type(error):
            return False
        msg = f"Pillow raised {type(error).__name__} ({error}); pillow_gpu's open did not"
        raise AssertionError(msg) from error
    return True


def undated_info(info: Mapping[Any, Any]) -> dict[Any, Any]:
    """``info`` with the creation time of a LittleCMS-made ICC profile blanked, and every NaN
    (in a value or a tuple or list of them) replaced by a marker equal to itself.

    Pillow's LAB conversions attach a profile LittleCMS makes on the spot, whose header holds
    the time it was made (bytes 24..35): two Pillow runs a second apart differ there only. A
    damaged TIFF's resolution can be NaN, which no comparison of two ``info`` finds equal.
    """
    found = {key: _nan_marked(value) for key, value in info.items()}
    profile = found.get("icc_profile")
    if isinstance(profile, bytes) and len(profile) >= 128 and profile[4:8] == b"lcms":
        found["icc_profile"] = profile[:24] + bytes(12) + profile[36:]
    return found


#: What :func:`undated_info` puts where a value is NaN.
NAN_MARKER = "<NaN>"


def _nan_marked(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_nan_marked(item) for item in value)
    if isinstance(value, list):
        return [_nan_marked(item) for item in value]
    if isinstance(value, numbers.Real) and not isinstance(value, int) and math.isnan(value):
        return NAN_MARKER
    return value


#: TIFF's page number tag: two SHORTs, the page and the page count.
_PAGE_NUMBER = 297


def tiff_page_number_zeroed(data: bytes) -> bytes:
    """``data`` with the second value of every page's page number (tag 297) zeroed, where
    ``data`` is a classic TIFF; other bytes, and any other format, unchanged. libtiff writes
    uninitialised memory there in every TIFF Pillow saves, so two saves of one image may differ
    in those two bytes only."""
    order = {b"II*\x00": "<", b"MM\x00*": ">"}.get(data[:4])
    if order is None:
        return data
    out = bytearray(data)
    seen: set[int] = set()
    (offset,) = struct.unpack_from(order + "I", data, 4)
    while offset and offset not in seen and offset + 2 <= len(data):
        seen.add(offset)
        (count,) = struct.unpack_from(order + "H", data, offset)
        entries = offset + 2
        if entries + 12 * count + 4 > len(data):
            break
        for entry in range(entries, entries + 12 * count, 12):
            tag, kind, values = struct.unpack_from(order + "HHI", data, entry)
            if (tag, kind, values) == (_PAGE_NUMBER, 3, 2):  # two SHORTs, held in the entry
                out[entry + 10 : entry + 12] = b"\x00\x00"
        (offset,) = struct.unpack_from(order + "I", data, entries + 12 * count)
    return bytes(out)


#: ISOBMFF boxes holding other boxes, down to those with times, and the boxes whose version
#: 0 or 1 header starts with a creation and a modification time (seconds since 1904).
_CONTAINERS = frozenset({b"moov", b"trak", b"mdia"})
_TIMED = frozenset({b"mvhd", b"tkhd", b"mdhd"})


def isobmff_times_zeroed(data: bytes) -> bytes:
    """``data`` with the creation and modification times of its movie, track and media
    headers zeroed, where ``data`` is an ISOBMFF file (an AVIF sequence: libavif stamps them
    with the clock, so two saves a second apart differ there); other bytes unchanged."""
    if data[4:8] != b"ftyp":
        return data
    out = bytearray(data)
    spans = [(0, len(data))]
    while spans:
        start, end = spans.pop()
        at = start
        while at + 8 <= end:
            size, kind = struct.unpack_from(">I4s", data, at)
            header = 8
            if size == 1 and at + 16 <= end:
                (size,) = struct.unpack_from(">Q", data, at + 8)
                header = 16
            elif size == 0:
                size = end - at
            if size < header or at + size > end:
                break
            if kind in _CONTAINERS:
                spans.append((at + header, at + size))
            elif kind in _TIMED and size >= header + 4:
                width = 8 if data[at + header] == 1 else 4  # version 1: 64-bit times
                first = at + header + 4
                if first + 2 * width <= at + size:
                    out[first : first + 2 * width] = bytes(2 * width)
            at += size
    return bytes(out)


def unstamped(data: bytes) -> bytes:
    """``data`` with what Pillow's writers fill from the clock or from uninitialised memory
    zeroed (:func:`tiff_page_number_zeroed`, :func:`isobmff_times_zeroed`): two saves of one
    image are equal then, and only then, where they write the same file."""
    return isobmff_times_zeroed(tiff_page_number_zeroed(data))


def pillow_converts(source: PILImage.Image | str, target: str, **options: Any) -> bool:
    """Whether live Pillow's ``convert(target, **options)`` accepts ``source`` (an image, or a
    mode for a blank 2x2 image): False where it raises ValueError or OSError."""
    image = PILImage.new(source, (2, 2)) if isinstance(source, str) else source
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            image.convert(target, **options)
    except (ValueError, OSError):
        return False
    return True


def png_chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data and CRC."""
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_with_late_chunks(image: PILImage.Image, chunks: Sequence[bytes]) -> bytes:
    """``image`` saved as PNG by Pillow, with ``chunks`` (:func:`png_chunk`) inserted after
    its image data, before ``IEND``: where some writers put metadata and Pillow reads it only
    while decoding."""
    out = io.BytesIO()
    image.save(out, "PNG")
    data = out.getvalue()
    end = data.rindex(b"IEND") - 4  # the IEND chunk's length field
    return data[:end] + b"".join(chunks) + data[end:]


def png_without_chunk(data: bytes, kind: bytes) -> bytes:
    """PNG ``data`` without its first chunk of type ``kind``, as a damaged file or a faulty
    editor leaves it (a palette PNG without PLTE); AssertionError where it has none."""
    position = 8
    while position + 12 <= len(data):
        (length,) = struct.unpack_from(">I", data, position)
        end = position + 12 + length
        if data[position + 4 : position + 8] == kind:
            return data[:position] + data[end:]
        position = end
    raise AssertionError(f"no {kind!r} chunk")


def tiff_entry_edited(
    data: bytes,
    tag: int,
    *,
    kind: int | None = None,
    count: int | None = None,
    value: int | None = None,
) -> bytes:
    """Little-endian TIFF ``data`` whose first directory's ``tag`` entry says the type
    ``kind``, ``count`` values or the value (or offset) ``value`` given, as a faulty editor
    writes them; AssertionError where there is no such entry."""
    edited = bytearray(data)
    assert edited[:2] == b"II"
    first = int.from_bytes(edited[4:8], "little")
    entries = int.from_bytes(edited[first : first + 2], "little")
    for entry in range(first + 2, first + 2 + 12 * entries, 12):
        if int.from_bytes(edited[entry : entry + 2], "little") == tag:
            for at, size, field in ((2, 2, kind), (4, 4, count), (8, 4, value)):
                if field is not None:
                    edited[entry + at : entry + at + size] = field.to_bytes(size, "little")
            return bytes(edited)
    raise AssertionError(f"no tag {tag}")


#: The frame loops :func:`frame_steps` runs.
FRAME_LOOPS = ("iterator", "seek")


def frame_steps(m: SimpleNamespace, data: bytes, loop: str, *, most: int = 20) -> list[Any]:
    """What Pillow's frame loop idioms meet in the file ``data`` through the modules ``m``
    (:data:`PILLOW_MODULES` or :data:`LAZY_MODULES`): for each frame ``("ok", mode, size,
    pixels)`` (mode and size read before its first use) or ``("use", error type, mode,
    size)`` where its use raised, the loop going on; then how the loop ended: ``("iterate",
    error type)`` where ``ImageSequence.Iterator`` raised (``loop="iterator"``), ``("end",)``
    or ``("seek", error type)`` for ``seek(n)`` after ``seek(n - 1)`` (``loop="seek"``).
    A file whose header does not open gives ``[("open", error type)]``."""
    try:
        image = m.Image.open(io.BytesIO(data))
    except Exception as error:  # a header cut short: the type is the outcome
        return [("open", type(error).__name__)]
    steps: list[Any] = []

    def use(frame: Any) -> None:
        header = (frame.mode, frame.size)
        try:
            steps.append(("ok", *header, frame.convert("RGB").resize((6, 4)).tobytes()))
        except Exception as error:  # the frame's use fails: the loop goes on
            steps.append(("use", type(error).__name__, *header))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if loop == "iterator":
            try:
                for frame in m.ImageSequence.Iterator(image):
                    use(frame)
                    if len(steps) >= most:
                        break
            except Exception as error:  # the iterator's seek raised
                steps.append(("iterate", type(error).__name__))
            return steps
        for number in range(most):
            try:
                image.seek(number)
            except EOFError:
                steps.append(("end",))
                break
            except Exception as error:  # the seek raised: Pillow's loop ends there too
                steps.append(("seek", type(error).__name__))
                break
            use(image)
    return steps


#: The whole-file calls :func:`whole_file_outcome` makes.
WHOLE_FILE_CALLS = ("all_frames", "GIF", "PNG")


def whole_file_outcome(m: SimpleNamespace, data: bytes, how: str) -> Any:
    """What a call on every frame of the file ``data`` gives through the modules ``m``:
    ``ImageSequence.all_frames`` (``how="all_frames"``; Pillow's copies every frame, which
    loads it) as the frame count, or ``save(format=how, save_all=True)`` (the writer walks the
    frames) as the written bytes; else the type of the error raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            image = m.Image.open(io.BytesIO(data))
            if how == "all_frames":
                return len(m.ImageSequence.all_frames(image, lambda frame: frame.convert("RGB")))
            saved = io.BytesIO()
            image.save(saved, how, save_all=True)
            return saved.getvalue()
        except Exception as error:  # the type is the outcome
            return type(error).__name__
