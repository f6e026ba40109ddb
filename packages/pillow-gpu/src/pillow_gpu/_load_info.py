"""What an opened file's ``info`` gains when Pillow loads it, known without decoding a pixel.

Pillow's operations load their image first, so they start from the loaded ``info``, while an
opened image shows its header's until it loads. Two plugins add keys while loading:

* PNG: the chunks after the image data (:func:`pillow_gpu._png_tail.loaded_info` has Pillow's
  own reader read them);
* WebP: ``timestamp`` and ``duration`` of the decoded frame. An opened file is its first
  frame, which starts at 0 and lasts what its ``ANMF`` chunk says (libwebp's animation
  decoder reports the frame's end; Pillow subtracts the start), or 0 for a still image;
* AVIF: the same keys from libavif's timing, in ms. A still image (no ``moov`` box: an item,
  not a track) has libavif's fixed timing, 1 unit of a 1 s timescale: 0 and 1000. An image
  sequence (major brand ``avis``) is decoded from its colour track, the first with chunks, an
  ``av01`` sample entry and no ``auxl`` reference (libavif's choice): its first frame starts at
  0 and lasts its first ``stts`` delta in its ``mdhd`` timescale, rounded as Pillow rounds it.
  Other files with a ``moov`` box (libavif versions choose differently) are not predicted.

* TIFF: its plugin ends the load with ``ImageOps.exif_transpose`` in place, which for an
  orientation that turns the pixels (2 to 8, from the file's tags or its XMP packet) strips
  the orientation from the XMP packet in ``xmp`` (:func:`tiff_loaded_info`, Pillow's own
  function run on a 1x1 probe carrying the header's info, :mod:`pillow_gpu._transposed_info`).
  Where the info holds EXIF bytes too (``exif``, ``Raw profile type exif``), which it writes
  anew from the file's tags, it is not predicted.

A WebP or AVIF file whose chunks or boxes cannot be walked (other ``moov`` layouts, or a
damaged structure the decoders read past) has Pillow load its first frame at open instead,
and that ``info`` is the answer.

:func:`loaded_info` returns that ``info``, or None where it is not known (another format, a
file Pillow cannot load): such a leaf's operations carry the header's ``info``. A
decode checks the prediction (:func:`pillow_gpu.gpu._plan._host_pixels` raises
``DecodeError`` where Pillow's loaded ``info`` differs), so a wrong one is never delivered.
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Callable, Mapping
from typing import IO, Any, cast

from PIL import Image, ImageFile

from pillow_gpu._png_tail import LATE_INFO
from pillow_gpu._png_tail import loaded_info as _png_loaded_info
from pillow_gpu._transposed_info import ORIENTATION, info_probe, probe_transposed

__all__ = ["loaded_info", "tiff_loaded_info", "tiff_orientation"]

#: Most RIFF chunks (WebP) or top-level boxes (AVIF) walked; a file has a handful.
_MAX_CHUNKS = 1_000


def loaded_info(
    format: str | None,
    path: str | bytes | None,
    data: bytes | None,
    header: Mapping[str, Any],
    late: tuple[str, ...] = (),
    *,
    opened: ImageFile.ImageFile | None = None,
) -> dict[str, Any] | None:
    """``info`` of the file (``path``, or its bytes ``data``) Pillow opened as ``format`` with
    ``header`` as its info, once loaded; None where unknown (see the module docstring). A PNG
    is read on only when its ``late`` metadata names chunks after the data, through
    ``opened`` (Pillow's image of it, not loaded; its info changes) if given."""
    if format == "PNG":
        return _png_loaded_info(path, data, opened) if LATE_INFO in late else None
    if format == "TIFF":
        return None if opened is None else tiff_loaded_info(header, tiff_orientation(opened))
    walk = _FIRST_DURATIONS.get(format or "")
    if walk is None:
        return None
    duration = _read(path, data, walk)
    if duration is None:
        return _decoded_info(opened)
    return {**header, "timestamp": 0, "duration": duration}


#: ``info`` keys holding an XMP packet, from which Pillow's ``exif_transpose`` strips the
#: orientation; and keys of EXIF bytes, which it writes anew from the image's ``Exif``.
_XMP_KEYS = ("XML:com.adobe.xmp", "xmp")
_EXIF_KEYS = ("exif", "Raw profile type exif")


def tiff_orientation(opened: ImageFile.ImageFile) -> Any:
    """The orientation an opened TIFF's load turns by, as its ``getexif()`` gives it: the
    orientation tag, else its XMP packet's (no pixel read; the directory is read again, from
    the file, only where no tag says and the info holds a packet)."""
    tagged = getattr(opened, "tag_v2", {}).get(ORIENTATION)
    if tagged is not None or not any(key in opened.info for key in _XMP_KEYS):
        return tagged
    return opened.getexif().get(ORIENTATION)


def tiff_loaded_info(header: Mapping[str, Any], orientation: Any) -> dict[str, Any] | None:
    """A TIFF's ``info`` once Pillow loaded it by ``orientation`` (its ``Exif``'s, as the
    file's tags or a caller's edit give it), where the load changes ``header``, its info at
    open: a turn strips the orientation from its XMP packet. None where the load changes
    nothing, where Pillow's function raises on it (so does the load), and where the info holds
    EXIF bytes (not predicted; see the module docstring)."""
    if not any(key in header for key in _XMP_KEYS) or any(key in header for key in _EXIF_KEYS):
        return None
    exif = Image.Exif()  # the plugin's: the probe's getexif() answers with it, unparsed
    exif._loaded = True
    if orientation is not None:
        exif[ORIENTATION] = orientation
    try:
        info, _ = probe_transposed(info_probe(header), exif, orientation, in_place=True)
    except Exception:  # an orientation Pillow cannot turn by: its load raises too
        return None
    loaded = cast("dict[str, Any]", dict(info))
    changed = any(key in header and _changed(header[key], loaded[key]) for key in _XMP_KEYS)
    return loaded if changed else None


def _changed(before: Any, after: Any) -> bool:
    """Whether a packet changed (only the packets can: other values are never compared)."""
    try:
        return bool(before != after)
    except Exception:  # a caller's value whose != answers no bool (an array): taken as changed
        return True


def _decoded_info(opened: ImageFile.ImageFile | None) -> dict[str, Any] | None:
    """``opened``'s info after Pillow loads it now (its first frame decoded), for a WebP or
    AVIF file whose structure the walks cannot read (libwebp and libavif decode files whose
    boxes or chunks after the ones they need are damaged); None where Pillow cannot load it,
    as its first operation on the file raises then too."""
    if opened is None:
        return None
    try:
        opened.load()
    except Exception:  # Pillow's own load fails: the graph raises at its evaluation
        return None
    return cast("dict[str, Any]", dict(opened.info))  # Pillow types some keys (int, int)


def _read[T](
    path: str | bytes | None, data: bytes | None, walk: Callable[[IO[bytes], int], T]
) -> T | None:
    """``walk(stream, size)`` over the file or its bytes; None where it cannot be read."""
    try:
        if data is not None:
            return walk(io.BytesIO(data), len(data))
        if path is None:
            return None
        with open(path, "rb") as stream:
            return walk(stream, os.fstat(stream.fileno()).st_size)
    except OSError:
        return None


def _avif_first_duration(stream: IO[bytes], size: int) -> int | None:
    """The first frame's duration in ms of an AVIF file: 1000 for a still image (its top-level
    boxes, all walked, hold no ``moov``), the colour track's for an ``avis`` sequence; None
    for anything else."""
    brand = b""
    moov: bytes | None = None
    position = 0
    for _ in range(_MAX_CHUNKS):
        if position + 8 > size:
            if position != size:  # a box runs past the file's end
                return None
            break
        stream.seek(position)
        length, kind = struct.unpack(">I4s", stream.read(8))
        header = 8
        if length == 1:  # a 64-bit size follows the type
            large = stream.read(8)
            if len(large) < 8:
                return None
            length, header = struct.unpack(">Q", large)[0], 16
        elif length == 0:  # the last box, to the end of the file
            length = size - position
        if length < header or position + length > size:
            return None
        if kind == b"ftyp":
            brand = stream.read(4)
        elif kind == b"moov":
            if moov is not None or length > _MAX_MOOV_BYTES:
                return None
            moov = stream.read(length - header)
        position += length
    else:
        return None
    if moov is None:
        return 1000
    return _sequence_duration(moov) if brand == b"avis" else None


#: Largest ``moov`` box read (a sequence's sample tables; a few KB per thousand frames).
_MAX_MOOV_BYTES = 16 << 20


def _boxes(data: bytes) -> dict[bytes, list[bytes]]:
    """The payloads of the boxes that tile ``data``, by type; empty where they do not tile it
    exactly."""
    found: dict[bytes, list[bytes]] = {}
    position = 0
    while position + 8 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, position)
        if length == 0:
            length = len(data) - position
        if length < 8 or position + length > len(data):
            return {}
        found.setdefault(kind, []).append(data[position + 8 : position + length])
        position += length
    return found if position == len(data) else {}


def _first(boxes: dict[bytes, list[bytes]], kind: bytes) -> bytes:
    """The payload of the first ``kind`` box of ``boxes``, or ``b""`` where there is none."""
    found = boxes.get(kind)
    return found[0] if found else b""


def _full_box(payload: bytes, v0: str, v1: str) -> tuple[int, ...] | None:
    """A full box's fields after its version and flags (``v0``/``v1``: struct formats)."""
    if not payload:
        return None
    fields = v1 if payload[0] == 1 else v0
    if len(payload) < 4 + struct.calcsize(fields):
        return None
    return struct.unpack_from(fields, payload, 4)


def _sequence_duration(moov: bytes) -> int | None:
    """The first frame's duration in ms of the colour track (see the module docstring)."""
    for trak in _boxes(moov).get(b"trak", []):
        boxes = _boxes(trak)
        tkhd = _full_box(_first(boxes, b"tkhd"), ">III", ">QQI")  # its track_ID third
        mdia = _boxes(_first(boxes, b"mdia"))
        stbl = _boxes(_first(_boxes(_first(mdia, b"minf")), b"stbl"))
        auxiliary = any(b"auxl" in _boxes(tref) for tref in boxes.get(b"tref", []))
        if not stbl or tkhd is None or tkhd[2] == 0 or auxiliary:
            continue  # no sample table, no track id, or an alpha track
        chunks = [
            _full_box(box, ">I", ">I") for box in (*stbl.get(b"stco", []), *stbl.get(b"co64", []))
        ]
        if not any(count and count[0] for count in chunks) or not _has_av01(stbl):
            continue
        mdhd = _full_box(_first(mdia, b"mdhd"), ">III", ">QQI")  # its timescale third
        if mdhd is None or mdhd[2] == 0:
            return None
        delta = _first_delta(_first(stbl, b"stts"))
        return None if delta is None else round(1000 * (delta / mdhd[2]))
    return None


def _has_av01(stbl: dict[bytes, list[bytes]]) -> bool:
    """Whether the sample table's ``stsd`` has an ``av01`` sample entry."""
    stsd = _first(stbl, b"stsd")
    return len(stsd) >= 8 and b"av01" in _boxes(stsd[8:])


def _first_delta(stts: bytes) -> int | None:
    """libavif's delta of the first sample: the first entry counting it, else the last entry
    (1 with none); None for a short box."""
    count = _full_box(stts, ">I", ">I")
    if count is None or len(stts) < 8 + 8 * count[0]:
        return None
    deltas = [struct.unpack_from(">II", stts, 8 + 8 * i) for i in range(count[0])]
    for samples, delta in deltas:
        if samples > 0:
            return delta
    return deltas[-1][1] if deltas else 1


#: The chunks an ``ANMF`` frame's data starts with (alpha, lossy, lossless).
_FRAME_CHUNKS = frozenset({b"ALPH", b"VP8 ", b"VP8L"})


def _walk_riff(stream: IO[bytes], size: int) -> int | None:
    """The first frame's duration in ms of a WebP file: its first ``ANMF`` chunk's, 0 without
    one; None where the RIFF structure ends before an answer, or where that frame's data does
    not start with a chunk libwebp decodes (a damaged frame its demuxer may pass over)."""
    head = stream.read(12)
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:] != b"WEBP":
        return None
    end = min(size, 8 + struct.unpack("<I", head[4:8])[0])
    position = 12
    for _ in range(_MAX_CHUNKS):
        if position + 8 > end:
            return 0  # every chunk walked, no frame chunk: a still image
        stream.seek(position)
        kind, length = struct.unpack("<4sI", stream.read(8))
        if kind == b"ANMF":
            # x, y, width - 1, height - 1, duration (24 bits each), flags, then the frame's
            # first chunk: one libwebp decodes, or the frame is not the first one decoded.
            frame = stream.read(20)
            if len(frame) < 20 or frame[16:20] not in _FRAME_CHUNKS:
                return None
            return int.from_bytes(frame[12:15], "little")
        position += 8 + length + (length & 1)  # chunks are padded to even sizes
    return None


#: Format -> the walk that reads its first frame's duration in ms (None: not known).
_FIRST_DURATIONS: dict[str, Callable[[IO[bytes], int], int | None]] = {
    "WEBP": _walk_riff,
    "AVIF": _avif_first_duration,
}
