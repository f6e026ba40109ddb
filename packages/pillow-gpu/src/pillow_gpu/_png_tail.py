"""What a PNG holds after its image data: the chunks Pillow reads only while decoding.

Pillow's PNG reader stops at the first ``IDAT`` chunk when it opens a file. The chunks after
the image data reach ``info`` only when the pixels load (``PngImageFile.load_end``), and every
operation loads first. Text chunks there (ImageMagick writes its dates after the pixels) only
add ``info`` keys (:data:`LATE_INFO`: a leaf's operations start from the loaded ``info``,
:func:`loaded_info`), but two kinds change pixels in Pillow:

* orientation: an ``eXIf`` chunk, or a text chunk keyed ``Raw profile type exif`` or
  ``XML:com.adobe.xmp``, is what ``ImageOps.exif_transpose`` reads (``PngImageFile.getexif``
  loads the image when the header had no ``exif``);
* transparency: a ``tRNS`` chunk after the data (the PNG specification puts it before, Pillow
  applies it wherever it is) becomes ``info["transparency"]``, which ``convert`` reads (it is
  part of the loaded ``info`` the leaf's operations start from).

:func:`late_metadata` walks the chunk headers after the first ``IDAT`` (no pixel is decoded;
chunk data is skipped, text chunks' keywords read) and names which are there. The
walk goes on to ``IEND`` or the end of the file, past anything that would stop Pillow's
reader earlier, so it never misses a chunk Pillow applies; a file of more than
:data:`MAX_CHUNKS` chunks is reported as carrying all three.
"""

from __future__ import annotations

import io
import os
import struct
import warnings
from collections.abc import Callable
from typing import IO, Any, cast

from PIL import Image as PILImage
from PIL import ImageFile, PngImagePlugin

__all__ = [
    "LATE_INFO",
    "LATE_ORIENTATION",
    "LATE_TRANSPARENCY",
    "MAX_CHUNKS",
    "keys_set_by_load",
    "late_metadata",
    "late_metadata_in",
    "loaded_info",
]

#: :func:`late_metadata` names: any chunk after the data (Pillow's handlers may add ``info``
#: keys while loading), and the two kinds that change pixels.
LATE_INFO = "info"
LATE_ORIENTATION = "orientation"
LATE_TRANSPARENCY = "transparency"

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_TEXT_CHUNKS = (b"tEXt", b"zTXt", b"iTXt")
#: A chunk's length and type.
_CHUNK_HEADER = struct.Struct(">I4s")
#: Text keywords whose values Pillow's ``getexif`` reads for the orientation.
_ORIENTATION_KEYWORDS = (b"Raw profile type exif", b"XML:com.adobe.xmp")
#: Longest keyword the PNG specification allows (79 bytes) plus its terminating NUL.
_KEYWORD_BYTES = 80
#: Most chunks walked (a 4096x4096 RGBA image in 8 KiB IDAT chunks has about 8,000); a file
#: with more is reported as carrying both kinds, the answer that is never wrong.
MAX_CHUNKS = 100_000


#: Files up to this size are read whole for the walk (one read); larger ones a header at a time.
_READ_WHOLE_BYTES = 256 << 10


def _positional(stream: IO[bytes], size: int) -> Callable[[int, int], bytes]:
    """``read(position, count)``: up to ``count`` bytes of ``stream`` (``size`` bytes long)
    from ``position``. A file up to :data:`_READ_WHOLE_BYTES` is read whole first; a larger
    one is read by one ``os.pread`` a call where it is a file (no seek, and no 8 KiB buffer
    refilled for 8 bytes: a 9 MB PNG of 139 chunks was walked in 340 us through the buffered
    file, 130 so; one of 1,100 chunks in 3.1 ms, 1.3), else by a seek and a read."""
    if size <= _READ_WHOLE_BYTES:
        stream.seek(0)
        whole = stream.read(size)
        return lambda position, count: whole[position : position + count]
    pread = getattr(os, "pread", None)  # POSIX only
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):  # bytes in memory
        descriptor = None
    if pread is not None and descriptor is not None:
        return lambda position, count: pread(descriptor, count, position)

    def read(position: int, count: int) -> bytes:
        stream.seek(position)
        return stream.read(count)

    return read


def _walk(stream: IO[bytes], size: int, animated: bool = False) -> tuple[str, ...]:
    read = _positional(stream, size)
    if read(0, 8) != _SIGNATURE:
        return ()
    found: set[str] = set()
    position = 8
    seen_data = False
    for _ in range(MAX_CHUNKS):
        if position + 8 > size:
            break
        header = read(position, 8)
        if len(header) < 8:
            break
        length, kind = _CHUNK_HEADER.unpack(header)
        if kind == b"IEND" or (animated and seen_data and kind == b"fcTL"):
            break  # an animation's next frame: where Pillow's load of the first stops
        if kind in (b"IDAT", b"fdAT"):
            seen_data = True
        elif seen_data:
            found.add(LATE_INFO)
            if kind == b"eXIf":
                found.add(LATE_ORIENTATION)
            elif kind == b"tRNS":
                found.add(LATE_TRANSPARENCY)
            elif kind in _TEXT_CHUNKS:
                keyword = read(position + 8, min(length, _KEYWORD_BYTES)).split(b"\0", 1)[0]
                if keyword in _ORIENTATION_KEYWORDS:
                    found.add(LATE_ORIENTATION)
        position += 12 + length  # header, data, CRC
    else:
        return (LATE_INFO, LATE_ORIENTATION, LATE_TRANSPARENCY)
    return tuple(sorted(found))


def late_metadata(path: str | bytes | None, data: bytes | None) -> tuple[str, ...]:
    """Which of :data:`LATE_INFO`, :data:`LATE_ORIENTATION` and :data:`LATE_TRANSPARENCY` a
    PNG file (``path``) or its bytes (``data``) carries after its image data, sorted; ``()``
    for none, or for bytes that are not a PNG. A file that cannot be read raises ``OSError``."""
    if data is not None:
        return _walk(io.BytesIO(data), len(data))
    if path is None:
        return ()
    with open(path, "rb") as stream:
        return _walk(stream, os.fstat(stream.fileno()).st_size)


def late_metadata_in(stream: IO[bytes], *, animated: bool = False) -> tuple[str, ...]:
    """:func:`late_metadata` of the PNG file open in ``stream`` (from its start: Pillow's
    header's own file), leaving the stream's position where it was. ``animated``: Pillow's
    image of it is (``is_animated``), so its load of the first frame stops at the next
    frame's control chunk, and so does the walk (an APNG of many frames is not walked to its
    end)."""
    position = stream.tell()
    try:
        size = stream.seek(0, os.SEEK_END)
        stream.seek(0)
        return _walk(stream, size, animated)
    finally:
        stream.seek(position)


def loaded_info(
    path: str | bytes | None, data: bytes | None, opened: ImageFile.ImageFile | None = None
) -> dict[str, Any] | None:
    """The ``info`` Pillow's image of a PNG file (``path``) or its bytes (``data``) has once
    loaded: the header's, and what ``PngImageFile.load_end`` reads from the chunks after the
    image data, run by Pillow itself with no pixel decoded (its image memory is a 1x1
    stand-in). Pillow's reader reads the image data it skips (no decompression), so this
    reads the file once to its end: about 5 ms for a 27 MB PNG on the 2-core runner, against
    106 ms for Pillow's decode. Of an animated PNG, its first frame's: the reader stops at the
    next frame's control chunk, as Pillow's load does. None where Pillow cannot read those
    chunks: its own load raises then, and so does the leaf's decode.

    ``opened``: Pillow's image of that file, opened and not loaded, whose copy reads on
    instead of opening the file again (only the position of the file it has open changes: it
    can still load, from its data's offset, as :mod:`pillow_gpu._kept_header` loads it).
    """
    try:
        with warnings.catch_warnings():  # the header was opened once already, warnings and all
            warnings.simplefilter("ignore")
            if opened is not None:
                if isinstance(opened, PngImagePlugin.PngImageFile):
                    opened = _reading_copy(opened)
                return _read_to_end(opened)
            source: Any = path if data is None else io.BytesIO(data)
            with PILImage.open(source, formats=["PNG"]) as again:
                return _read_to_end(again)
    except Exception:
        return None


def keys_set_by_load(path: str | bytes | None, data: bytes | None) -> frozenset[str]:
    """The ``info`` keys Pillow's load of a PNG file (``path``) or its bytes (``data``) sets
    from the chunks after the image data, whatever the header said for them: after an edit
    of ``info`` before the load (``info.clear()``), those come back, with the values the
    chunks hold (a text chunk repeated after the pixels; an ``fcTL`` there, in a PNG without
    ``acTL``, sets ``duration`` and ``blend`` again, equal to the header's or not). Empty
    where Pillow cannot read those chunks."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            source: Any = path if data is None else io.BytesIO(data)
            with PILImage.open(source, formats=["PNG"]) as again:
                again.info.clear()  # the dict Pillow's chunk reader writes into
                found = _read_to_end(again)
    except Exception:
        return frozenset()
    return frozenset(found or ())


def _reading_copy(image: PngImagePlugin.PngImageFile) -> PngImagePlugin.PngImageFile:
    """A copy of the opened, unloaded PNG ``image`` that reads on through the file ``image``
    has open while ``image`` stays as it is: its own chunk stream, ``info`` and text (the
    dicts ``load_end``'s chunk handlers write into), private chunks, tile list and palette
    (which ``load_prepare`` of a P image realises and marks clean). Pillow's own ``copy()``
    loads the pixels."""
    copy = object.__new__(type(image))
    copy.__dict__.update(image.__dict__)
    copy.tile = list(image.tile)
    if image.palette is not None:
        copy.palette = image.palette.copy()
    png = image.png
    if png is not None:
        stream = object.__new__(type(png))
        stream.__dict__.update(png.__dict__)
        stream.queue = None if png.queue is None else list(png.queue)
        stream.im_info = dict(png.im_info)
        stream.im_text = dict(png.im_text)
        copy.png = stream
        # One dict, as Pillow's _open leaves them.
        copy.info = stream.im_info if image.info is png.im_info else dict(image.info)
        copy.private_chunks = list(image.private_chunks)
    return copy


def _read_to_end(image: ImageFile.ImageFile) -> dict[str, Any] | None:
    """Run Pillow's ``load_end`` on the opened PNG ``image`` without decoding its pixels."""
    if len(image.tile) != 1:
        return None
    image.im = PILImage.new(image.mode, (1, 1)).im  # load_prepare allocates none
    image.load_prepare()
    assert image.fp is not None
    image.fp.seek(image.tile[0].offset)  # where Pillow's load starts reading
    image.load_end()
    return cast("dict[str, Any]", dict(image.info))  # Pillow types some keys (int, int)
