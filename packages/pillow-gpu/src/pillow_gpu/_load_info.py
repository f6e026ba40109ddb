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
  sequence's timing is its track's, known only by decoding.

:func:`loaded_info` returns that ``info``, or None where it is not known (another format, an
animated PNG, a file Pillow cannot finish reading): such a leaf's operations carry the
header's ``info``. A decode checks the prediction (:func:`pillow_gpu.gpu._plan._host_pixels`
raises ``DecodeError`` where Pillow's loaded ``info`` differs), so a wrong one is never
delivered.
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Callable, Mapping
from typing import IO, Any

from pillow_gpu._png_tail import LATE_INFO
from pillow_gpu._png_tail import loaded_info as _png_loaded_info

__all__ = ["loaded_info"]

#: Most RIFF chunks (WebP) or top-level boxes (AVIF) walked; a file has a handful.
_MAX_CHUNKS = 1_000


def loaded_info(
    format: str | None,
    path: str | None,
    data: bytes | None,
    header: Mapping[str, Any],
    late: tuple[str, ...] = (),
) -> dict[str, Any] | None:
    """``info`` of the file (``path``, or its bytes ``data``) Pillow opened as ``format`` with
    ``header`` as its info, once loaded; None where unknown (see the module docstring). A PNG
    is read again only when its ``late`` metadata names chunks after the data."""
    if format == "PNG":
        return _png_loaded_info(path, data) if LATE_INFO in late else None
    if format == "WEBP":
        duration = _first_frame_duration(path, data)
        if duration is None:
            return None
        return {**header, "timestamp": 0, "duration": duration}
    if format == "AVIF":
        return {**header, "timestamp": 0, "duration": 1000} if _is_still(path, data) else None
    return None


def _read[T](path: str | None, data: bytes | None, walk: Callable[[IO[bytes], int], T]) -> T | None:
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


def _first_frame_duration(path: str | None, data: bytes | None) -> int | None:
    """The first frame's duration in ms of a WebP file: its first ``ANMF`` chunk's, 0 without
    one; None where the RIFF structure ends before an answer."""
    return _read(path, data, _walk_riff)


def _is_still(path: str | None, data: bytes | None) -> bool:
    """True when an AVIF file's top-level boxes, all walked, hold no ``moov`` (no track)."""
    return bool(_read(path, data, _walk_boxes))


def _walk_boxes(stream: IO[bytes], size: int) -> bool:
    position = 0
    for _ in range(_MAX_CHUNKS):
        if position + 8 > size:
            return position == size  # every box walked, to the file's end exactly
        stream.seek(position)
        length, kind = struct.unpack(">I4s", stream.read(8))
        if kind == b"moov":
            return False
        if length == 1:  # a 64-bit size follows the type
            large = stream.read(8)
            if len(large) < 8:
                return False
            length = struct.unpack(">Q", large)[0]
        elif length == 0:  # the last box, to the end of the file
            return True
        if length < 8:
            return False
        position += length
    return False


def _walk_riff(stream: IO[bytes], size: int) -> int | None:
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
            frame = stream.read(15)  # x, y, width - 1, height - 1, duration: 24 bits each
            return int.from_bytes(frame[12:15], "little") if len(frame) == 15 else None
        position += 8 + length + (length & 1)  # chunks are padded to even sizes
    return None
